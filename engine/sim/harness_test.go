package sim

import (
	"encoding/csv"
	"fmt"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// harness drives an engine core in virtual time through the steps of
// METHOD.md, the way engine/bench's runner does over HTTP: prefill cells, then
// decode cells with a warm-up and a fixed window of N closed-loop streams. No
// clock, no sleeping: a whole reference plan runs in well under a second.
type harness struct {
	c      *core
	kv     kvSizing
	maxLen int
	nextID int
	seed   uint64
}

func newHarness(t testing.TB, cfg Config) *harness {
	t.Helper()
	p := cfg.Profile
	if cfg.GPUMemoryUtilization == 0 {
		cfg.GPUMemoryUtilization = p.DefaultGPUMemoryUtilization
	}
	if cfg.KVCacheDtype == "" {
		cfg.KVCacheDtype = "auto"
	}
	kv, err := sizeKV(p, cfg.GPUMemoryUtilization, cfg.KVCacheDtype)
	if err != nil {
		t.Fatal(err)
	}
	lim := limits{maxNumSeqs: p.DefaultMaxNumSeqs, maxNumBatchedTokens: p.DefaultMaxNumBatchedTokens,
		prefixCaching: cfg.EnablePrefixCaching, blockSize: p.BlockSize}
	if cfg.MaxNumSeqs > 0 {
		lim.maxNumSeqs = cfg.MaxNumSeqs
	}
	if cfg.MaxNumBatchedTokens > 0 {
		lim.maxNumBatchedTokens = cfg.MaxNumBatchedTokens
	}
	maxLen := cfg.MaxModelLen
	if maxLen == 0 {
		maxLen = p.ModelMaxLen
	}
	return &harness{c: newCore(p, lim, kv.numBlocks), kv: kv, maxLen: maxLen, seed: uint64(cfg.Seed)}
}

// prompt makes a unique prompt of n tokens: a BOS, a per-request marker,
// then filler (the runner's unique prefix per request).
func (h *harness) prompt(n int) []uint32 {
	h.nextID++
	p := make([]uint32, n)
	for i := range p {
		p[i] = 3 + uint32(mix64(h.seed^uint64(h.nextID)<<32^uint64(i))%(vocabSize-3))
	}
	if n > 0 {
		p[0] = bosToken
	}
	return p
}

func (h *harness) request(prompt []uint32, maxTokens int) *seq {
	return &seq{id: strconv.Itoa(h.nextID), prompt: prompt, stopAt: maxTokens, stopReason: "length"}
}

// advance runs the engine until its clock reaches limit (or it idles), calling
// on for every emission. A step that starts before limit may end after it.
func (h *harness) advance(limit float64, on func(emission)) {
	for {
		t, ok := h.c.nextEvent()
		if !ok || t >= limit {
			if !math.IsInf(limit, 1) {
				h.c.idleUntil(limit)
			}
			return
		}
		h.c.idleUntil(t)
		for _, e := range h.c.step() {
			on(e)
		}
	}
}

// runAll submits requests now and runs until every one finished.
func (h *harness) runAll(reqs []*seq) {
	left := len(reqs)
	for _, r := range reqs {
		h.c.add(r, h.c.now)
	}
	for left > 0 {
		h.advance(math.Inf(1), func(e emission) {
			if e.finished {
				left--
			}
		})
		if _, ok := h.c.nextEvent(); !ok && left > 0 {
			panic("engine idle with requests left")
		}
	}
}

// cellResult is one cell as the runner would report it.
type cellResult struct {
	phase            string
	ctx, n           int
	status           string
	totalTokS        float64
	promptTokS       float64
	ttftMs           float64
	avgActive        float64
	waitingMax       int
	tokens           int
	preemptions      int64
	prefixHitPercent float64
}

// prefill runs one prefill cell: a fresh prompt, max_tokens 1.
func (h *harness) prefill(ctx int) cellResult {
	r := h.request(h.prompt(ctx), 1)
	h.runAll([]*seq{r})
	ttft := r.firstTokenAt - r.arrival
	return cellResult{phase: "prefill", ctx: ctx, n: 1, status: "Valid", ttftMs: ttft * 1000, promptTokS: float64(ctx) / ttft}
}

// decode runs one decode cell (METHOD.md: plan check, warm-up, window).
func (h *harness) decode(ctx, n int, d float64, m int) cellResult {
	res := cellResult{phase: "decode", ctx: ctx, n: n}
	switch {
	case ctx+m > h.maxLen:
		res.status = "Exceeds model length"
		return res
	case n*(ctx+m) > h.kv.tokens:
		res.status = "Over capacity"
		return res
	}
	prompts := make([][]uint32, n)
	warm := make([]*seq, n)
	for i := range prompts {
		prompts[i] = h.prompt(max(ctx, 8))
		warm[i] = h.request(prompts[i], 1)
	}
	h.runAll(warm)
	pre0, q0, hit0 := h.c.count.preemptions, h.c.count.prefixQueries, h.c.count.prefixHits

	start := h.c.now
	end := start + d
	type live struct {
		s    *seq
		sent float64
	}
	streams := make([]live, n)
	var ttfts []float64
	active, tokens := 0.0, 0
	send := func(i int, at float64) {
		s := h.request(prompts[i], m)
		h.c.add(s, at)
		streams[i] = live{s, at}
	}
	for i := range streams {
		send(i, start)
	}
	index := make(map[*seq]int, n)
	for i, l := range streams {
		index[l.s] = i
	}
	on := func(e emission) {
		if h.c.now >= end {
			return
		}
		tokens += e.tokens
		i := index[e.s]
		if e.s.output == 1 {
			ttfts = append(ttfts, (h.c.now-streams[i].sent)*1000)
		}
		if e.finished {
			active += h.c.now - math.Max(streams[i].sent, start)
			delete(index, e.s)
			send(i, h.c.now)
			index[streams[i].s] = i
		}
	}
	waitingRun, sustained := 0, false
	for k := 1; float64(k) < d; k++ {
		h.advance(start+float64(k), on)
		w := h.c.waitingGauge()
		res.waitingMax = max(res.waitingMax, w)
		if w > 0 {
			waitingRun++
		} else {
			waitingRun = 0
		}
		sustained = sustained || waitingRun >= 2
	}
	h.advance(end, on)
	for _, l := range streams {
		if l.s.state != stateDone {
			active += end - math.Max(l.sent, start)
			h.c.abort(l.s)
		}
	}
	res.tokens = tokens
	res.totalTokS = float64(tokens) / d
	res.ttftMs = median(ttfts)
	res.avgActive = active / d
	res.preemptions = h.c.count.preemptions - pre0
	if q := h.c.count.prefixQueries - q0; q > 0 {
		res.prefixHitPercent = 100 * float64(h.c.count.prefixHits-hit0) / float64(q)
	}
	switch {
	case tokens == 0:
		res.status = "Over capacity"
	case res.avgActive < 0.95*float64(n) || sustained:
		res.status = "Requests queued"
	default:
		res.status = "Valid"
	}
	return res
}

func median(xs []float64) float64 {
	if len(xs) == 0 {
		return 0
	}
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	if len(s)%2 == 1 {
		return s[len(s)/2]
	}
	return (s[len(s)/2-1] + s[len(s)/2]) / 2
}

// refCell is one row of the reference CSV.
type refCell struct {
	phase      string
	ctx, n     int
	status     string
	totalTokS  float64
	promptTokS float64 // prefill rows keep it in total_tok_s
	ttftMs     float64
}

func loadReference(t testing.TB) []refCell {
	t.Helper()
	f, err := os.Open("testdata/reference.csv")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	var out []refCell
	for _, r := range rows[1:] {
		ctx, _ := strconv.Atoi(r[1])
		n, _ := strconv.Atoi(r[3])
		tok, _ := strconv.ParseFloat(r[5], 64)
		ttft, _ := strconv.ParseFloat(r[7], 64)
		c := refCell{phase: r[0], ctx: ctx, n: n, status: r[4], totalTokS: tok, ttftMs: ttft}
		if c.phase == "prefill" {
			c.promptTokS, c.totalTokS = tok, 0
		}
		out = append(out, c)
	}
	return out
}

// runReferencePlan runs the reference plan (prefill cells, then the decode
// grid in the runner's order) on a fresh engine.
func runReferencePlan(t testing.TB, cfg Config, ref []refCell) []cellResult {
	h := newHarness(t, cfg)
	var out []cellResult
	for _, r := range ref {
		if r.phase == "prefill" {
			out = append(out, h.prefill(r.ctx))
		} else {
			out = append(out, h.decode(r.ctx, r.n, 30, 8192))
		}
	}
	return out
}

// refScore is how a simulated plan compares with the reference, in the
// terms of issue 13's acceptance criteria.
type refScore struct {
	statusMatch   float64 // share of cells with the reference's status
	mismatched    []string
	worstTokS     float64 // worst |relative error| of Valid total_tok_s and prefill prompt_tok_s
	worstTokCell  string
	ttftWithin20  float64 // share of the reference's Valid decode cells with median TTFT within 20%
	worstTTFT     float64 // worst |relative error| of those TTFTs
	worstTTFTCell string
}

func (s refScore) String() string {
	return fmt.Sprintf("statuses %.1f%% (differ: %s), worst tok/s %.1f%% (%s), TTFT within 20%%: %.0f%%, worst TTFT %.1f%% (%s)",
		100*s.statusMatch, strings.Join(s.mismatched, ", "), 100*s.worstTokS, s.worstTokCell,
		100*s.ttftWithin20, 100*s.worstTTFT, s.worstTTFTCell)
}

// compareReference scores got against the reference and returns the
// side-by-side table.
func compareReference(ref []refCell, got []cellResult) (table string, sc refScore) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %7s %4s | %-16s %-16s | %9s %9s %7s | %9s %9s %7s | %6s\n",
		"phase", "ctx", "N", "ref status", "sim status", "ref tok/s", "sim tok/s", "diff", "ref ttft", "sim ttft", "diff", "active")
	match, ttftCells, ttftGood := 0, 0, 0
	for i, r := range ref {
		g := got[i]
		cell := fmt.Sprintf("%s %d×%d", r.phase, r.ctx, r.n)
		if g.status == r.status {
			match++
		} else {
			sc.mismatched = append(sc.mismatched, cell)
		}
		rv, gv := r.totalTokS, g.totalTokS
		if r.phase == "prefill" {
			rv, gv = r.promptTokS, g.promptTokS
		}
		diff, tdiff := "", ""
		if rv > 0 && gv > 0 {
			d := gv/rv - 1
			diff = fmt.Sprintf("%+6.1f%%", 100*d)
			if r.status == "Valid" && math.Abs(d) > sc.worstTokS {
				sc.worstTokS, sc.worstTokCell = math.Abs(d), cell
			}
		}
		if r.phase == "decode" && r.status == "Valid" {
			ttftCells++
			d := math.Inf(1)
			if g.ttftMs > 0 {
				d = g.ttftMs/r.ttftMs - 1
				tdiff = fmt.Sprintf("%+6.1f%%", 100*d)
			}
			if math.Abs(d) <= 0.20 {
				ttftGood++
			}
			if math.Abs(d) > sc.worstTTFT {
				sc.worstTTFT, sc.worstTTFTCell = math.Abs(d), cell
			}
		}
		mark := " "
		if g.status != r.status {
			mark = "!"
		}
		fmt.Fprintf(&b, "%-7s %7d %4d |%s%-16s %-16s | %9.1f %9.1f %7s | %9.0f %9.0f %7s | %6.2f\n",
			r.phase, r.ctx, r.n, mark, r.status, g.status, rv, gv, diff, r.ttftMs, g.ttftMs, tdiff, g.avgActive)
	}
	sc.statusMatch = float64(match) / float64(len(ref))
	if ttftCells > 0 {
		sc.ttftWithin20 = float64(ttftGood) / float64(ttftCells)
	}
	return b.String(), sc
}

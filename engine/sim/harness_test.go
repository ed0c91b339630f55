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

	"github.com/rigbench/rigbench/engine/rundoc"
)

// harness drives an engine core in virtual time through the steps of
// METHOD.md, the way engine/bench's runner does over HTTP: prefill cells, then
// decode cells under the shared prompt policy (one document per context),
// each with a warm-up, a ramp to steady state and a window of D seconds of N
// closed-loop streams. No clock, no sleeping: a whole reference plan runs in
// well under a second.
type harness struct {
	c      *core
	kv     kvSizing
	maxLen int
	nextID int
	seed   uint64
	// docs is each context's shared document: the prefill cell's cold
	// prompt at that context, else a fresh one (engine/bench/shared.go).
	docs map[int][]uint32
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
	return &harness{c: newCore(p, lim, kv.numBlocks), kv: kv, maxLen: maxLen, seed: uint64(cfg.Seed), docs: map[int][]uint32{}}
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
	perRequestTokS   float64
	promptTokS       float64
	ttftMs           float64
	tbtMs            float64
	avgActive        float64
	rampS            float64
	warmupTimedOut   bool
	waitingMax       int
	tokens           int
	preemptions      int64
	prefixHitPercent float64
}

// prefill runs one prefill cell: a fresh prompt, max_tokens 1. The first
// prompt sent cold at a context becomes that context's shared document.
func (h *harness) prefill(ctx int) cellResult {
	p := h.prompt(ctx)
	if _, ok := h.docs[ctx]; !ok {
		h.docs[ctx] = p
	}
	r := h.request(p, 1)
	h.runAll([]*seq{r})
	ttft := r.firstTokenAt - r.arrival
	return cellResult{phase: "prefill", ctx: ctx, n: 1, status: "Valid", ttftMs: ttft * 1000, promptTokS: float64(ctx) / ttft}
}

// Steady state, as engine/bench/steady.go and rundoc define it: checks every
// second after the first send; the window opens once every condition held
// for steadyHold without a break, and no earlier than steadyEarliest.
const (
	steadyCheck    = 1.0
	steadyHold     = 3.0
	steadyEarliest = 2.0
)

// steadyLimit is rundoc.SteadyLimit in seconds.
func steadyLimit(ctx int) float64 {
	switch {
	case ctx <= 32768:
		return 60
	case ctx <= 65536:
		return 120
	default:
		return 180
	}
}

// decode runs one decode cell (METHOD.md: plan check, warm-up of the shared
// prompt, ramp to steady state, window of d seconds from the opening).
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
	doc, ok := h.docs[ctx]
	if !ok {
		// Context 0 is the generation request alone, at the size the
		// seed tool sends it (rundoc.ContextZeroTokens).
		doc = h.prompt(rundoc.PromptTokens(ctx))
		h.docs[ctx] = doc
	}
	h.runAll([]*seq{h.request(doc, 1)})

	// Every request of the cell, ramp included: its send, first and last
	// token and tokens, all up to the window's close.
	type req struct {
		s                 *seq
		sent, first, last float64
		tokens            int
	}
	var reqs []*req
	start := h.c.now
	open, end := math.Inf(1), math.Inf(1)
	streams := make([]*req, n)
	index := make(map[*seq]int, n)
	send := func(i int, at float64) {
		s := h.request(doc, m)
		h.c.add(s, at)
		r := &req{s: s, sent: at, first: -1}
		reqs = append(reqs, r)
		streams[i] = r
		index[s] = i
	}
	for i := range streams {
		send(i, start)
	}
	// Preemptions and prefix hits count over the cell, ramp included: with
	// long streams every request is admitted before the window opens.
	pre0, q0, hit0 := h.c.count.preemptions, h.c.count.prefixQueries, h.c.count.prefixHits
	active, tokens, received := 0.0, 0, 0
	on := func(e emission) {
		now := h.c.now
		if now >= end {
			return
		}
		i := index[e.s]
		r := streams[i]
		if e.tokens > 0 {
			if r.first < 0 {
				r.first = now
			}
			r.last = now
			r.tokens += e.tokens
			received += e.tokens
			if now >= open {
				tokens += e.tokens
			}
		}
		if e.finished {
			if now > open {
				active += now - math.Max(r.sent, open)
			}
			delete(index, e.s)
			send(i, now)
		}
	}
	// The ramp: check once a second of card time until steady or the limit.
	since, lastReceived := -1.0, 0
	limit := steadyLimit(ctx)
	for k := 1; ; k++ {
		at := start + float64(k)*steadyCheck
		h.advance(at, on)
		el := at - start
		producing := 0
		for _, r := range streams {
			if r.first >= 0 {
				producing++
			}
		}
		generating := received > lastReceived
		lastReceived = received
		cond := producing == n && generating && h.c.waitingGauge() == 0 && len(h.c.running) >= n
		switch {
		case !cond:
			since = -1
		case since < 0:
			since = el
		}
		steady := cond && el-since >= steadyHold && el >= steadyEarliest
		if steady || el >= limit {
			res.warmupTimedOut = !steady
			res.rampS = el
			open, end = at, at+d
			break
		}
	}
	waitingRun, sustained := 0, false
	for k := 1; float64(k) < d; k++ {
		h.advance(open+float64(k), on)
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
	for _, r := range streams {
		if r.s.state != stateDone {
			active += end - math.Max(r.sent, open)
			h.c.abort(r.s)
		}
	}
	var ttfts, perReq, itl []float64
	for _, r := range reqs {
		if r.first < 0 {
			continue
		}
		ttfts = append(ttfts, (r.first-r.sent)*1000)
		if r.tokens > 1 && r.last > r.first {
			perReq = append(perReq, float64(r.tokens-1)/(r.last-r.first))
			itl = append(itl, 1000*(r.last-r.first)/float64(r.tokens-1))
		}
	}
	res.tokens = tokens
	res.totalTokS = float64(tokens) / d
	res.ttftMs = median(ttfts)
	res.perRequestTokS = median(perReq)
	res.tbtMs = median(itl)
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
	perReqTokS float64
	tbtMs      float64
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
		perReq, _ := strconv.ParseFloat(r[6], 64)
		tbt, _ := strconv.ParseFloat(r[8], 64)
		c := refCell{phase: r[0], ctx: ctx, n: n, status: r[4], totalTokS: tok, ttftMs: ttft, perReqTokS: perReq, tbtMs: tbt}
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
	worstPerReq   float64 // worst |relative error| of Valid decode per-request tok/s and TBT
	worstPerCell  string
}

func (s refScore) String() string {
	return fmt.Sprintf("statuses %.1f%% (differ: %s), worst tok/s %.1f%% (%s), TTFT within 20%%: %.0f%%, worst TTFT %.1f%% (%s)",
		100*s.statusMatch, strings.Join(s.mismatched, ", "), 100*s.worstTokS, s.worstTokCell,
		100*s.ttftWithin20, 100*s.worstTTFT, s.worstTTFTCell) +
		fmt.Sprintf(", worst per-request/TBT %.1f%% (%s)", 100*s.worstPerReq, s.worstPerCell)
}

// compareReference scores got against the reference and returns the
// side-by-side table.
func compareReference(ref []refCell, got []cellResult) (table string, sc refScore) {
	var b strings.Builder
	fmt.Fprintf(&b, "%-7s %7s %4s | %-16s %-16s | %9s %9s %7s | %9s %9s %7s | %6s %6s %7s | %6s %6s %7s | %6s %5s\n",
		"phase", "ctx", "N", "ref status", "sim status", "ref tok/s", "sim tok/s", "diff", "ref ttft", "sim ttft", "diff",
		"ref pr", "sim pr", "diff", "ref tbt", "sim tbt", "diff", "active", "ramp")
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
		prdiff, tbdiff := "", ""
		if r.phase == "decode" && r.status == "Valid" {
			for _, p := range []struct {
				rv, gv float64
				out    *string
			}{{r.perReqTokS, g.perRequestTokS, &prdiff}, {r.tbtMs, g.tbtMs, &tbdiff}} {
				d := math.Inf(1)
				if p.gv > 0 {
					d = p.gv/p.rv - 1
					*p.out = fmt.Sprintf("%+6.1f%%", 100*d)
				}
				if math.Abs(d) > sc.worstPerReq {
					sc.worstPerReq, sc.worstPerCell = math.Abs(d), cell
				}
			}
		}
		mark := " "
		if g.status != r.status {
			mark = "!"
		}
		fmt.Fprintf(&b, "%-7s %7d %4d |%s%-16s %-16s | %9.1f %9.1f %7s | %9.0f %9.0f %7s | %6.1f %6.1f %7s | %6.1f %6.1f %7s | %6.2f %5.0f\n",
			r.phase, r.ctx, r.n, mark, r.status, g.status, rv, gv, diff, r.ttftMs, g.ttftMs, tdiff,
			r.perReqTokS, g.perRequestTokS, prdiff, r.tbtMs, g.tbtMs, tbdiff, g.avgActive, g.rampS)
	}
	sc.statusMatch = float64(match) / float64(len(ref))
	if ttftCells > 0 {
		sc.ttftWithin20 = float64(ttftGood) / float64(ttftCells)
	}
	return b.String(), sc
}

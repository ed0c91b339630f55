package diagnose

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Outcome is what RigBench predicts of a cell under an advised launch.
type Outcome string

// Predicted outcomes.
const (
	// Fits: the cell's requests fit the KV cache (it runs, not Over
	// capacity).
	Fits Outcome = "fits"
	// NoQueue: the server runs all of the cell's requests at once.
	NoQueue Outcome = "runs without queueing"
)

// Prediction is one cell's predicted outcome under an advice.
type Prediction struct {
	Context, Concurrency int
	Outcome              Outcome
}

// Text is "64K×8 would fit" or "16K×32 would stop queueing".
func (p Prediction) Text() string {
	cell := rundoc.CellName(p.Context, p.Concurrency)
	if p.Outcome == NoQueue {
		return cell + " would stop queueing"
	}
	return cell + " would " + strings.TrimSuffix(string(p.Outcome), "s")
}

// Advice is one thing to try: a launch flag and value, what RigBench
// predicts it does, and the limit it moves; or, with Flag "", a note that
// says what would not help or what costs little.
type Advice struct {
	// Moves is the limit the advice is about.
	Moves Kind
	// Flag and Value are the vLLM flag to launch with ("--max-num-seqs",
	// "64"); "" for a note.
	Flag, Value string
	// Effect is the predicted change of a server fact, as a phrase ("KV
	// capacity 431,632 tokens → 863,264 tokens"), "" when none.
	Effect string
	// Predictions are the cells of the run the advice changes, as the
	// plan check predicts them (a note about llama-server's or SGLang's
	// own setting has them too, and says them in its sentence).
	Predictions []Prediction
	// Note is the sentence of a note (Flag "").
	Note string
}

// Text is the advice as one line: "--kv-cache-dtype fp8: KV capacity 431,632 tokens
// → 863,264 tokens; 64K×8 would fit".
func (a Advice) Text() string {
	if a.Flag == "" {
		return a.Note
	}
	parts := []string{}
	if a.Effect != "" {
		parts = append(parts, a.Effect)
	}
	var cells []string
	for _, p := range a.Predictions {
		cells = append(cells, p.Text())
	}
	if len(cells) > 0 {
		parts = append(parts, strings.Join(cells, ", "))
	}
	if a.Lossy() {
		parts = append(parts, "it can change the model's answers, so `rigbench-cli tune --from-advice` checks quality too (--quality agreement)")
	}
	return a.Flag + " " + a.Value + ": " + strings.Join(parts, "; ")
}

// Lossy reports whether the advised flag can change what the model
// answers (vllm.Lossy): its speed is worth having only with a quality
// check, which the sweep of this advice makes.
func (a Advice) Lossy() bool { return a.Flag != "" && vllm.Lossy(a.Flag, a.Value) }

// Args is the advice as vLLM arguments (none for a note).
func (a Advice) Args() []string {
	if a.Flag == "" {
		return nil
	}
	return []string{a.Flag, a.Value}
}

// Advise returns what to try on run's server, from its cells' bottlenecks
// and its server's facts: raise --max-num-seqs (llama-server's
// -np/--parallel, SGLang's --max-running-requests) where requests queued
// behind it, a smaller --kv-cache-dtype where cells did not fit the KV
// cache (and the note that --max-model-len would not help), and the note
// that a power cap costs little where cells were bandwidth-bound under
// it. None without evidence, and none the server's facts contradict.
func Advise(run *rundoc.Run) []Advice {
	var out []Advice
	if a, ok := maxNumSeqs(run); ok {
		out = append(out, a)
	}
	out = append(out, kvDtype(run)...)
	if a, ok := powerNote(run); ok {
		out = append(out, a)
	}
	return append(out, boundNotes(run)...)
}

// boundNotes say plainly, for cells whose limit no launch flag RigBench
// can predict moves, what does (issue 41: a run whose cells were
// bandwidth- or front-end-bound got no advice and no word why). Decode
// at the bandwidth roofline reads the weights once per step: fewer bytes
// per token (a more quantised model) or more tokens per step
// (speculative decoding, whose gain is its acceptance rate, not a
// prediction) move it. Time in the front end is request handling on the
// server's CPU, which no flag of the engine's scheduler or KV cache moves.
func boundNotes(run *rundoc.Run) []Advice {
	var out []Advice
	if cells := cellsWith(run, Drafting); len(cells) > 0 {
		out = append(out, Advice{Moves: Drafting, Note: cellList(cells) +
			" drafting poorly on this prompt: fewer speculative tokens (num_speculative_tokens), another drafter (an n-gram one drafts well " +
			"only on repetitive text), or no speculation may be faster; measure them side by side with " +
			"`rigbench-cli tune --vary speculative=off,mtp:1,mtp:2`"})
	}
	if a, ok := networkNote(run); ok {
		out = append(out, a)
	}
	if cells := cellsWith(run, Bandwidth); len(cells) > 0 {
		more := "more tokens per step (speculative decoding, --speculative-config, as far as its drafts are accepted)"
		if speculative(run) {
			more = "more tokens per step (drafts accepted more often)"
		}
		out = append(out, Advice{Moves: Bandwidth, Note: cellList(cells) + " bandwidth-bound: no launch flag RigBench can predict moves " +
			pick(len(cells) == 1, "it", "them") + "; fewer bytes per token (a more quantised model) or " + more + " do"})
	}
	if cells := cellsWith(run, FrontEnd); len(cells) > 0 {
		out = append(out, Advice{Moves: FrontEnd, Note: cellList(cells) + " front-end-bound: no launch flag RigBench can predict moves " +
			pick(len(cells) == 1, "it", "them") + "; the server's CPU handles the requests there (a faster CPU, or fewer streams, does)"})
	}
	return out
}

// cellList names cells ("0×1, 0×2 and 3 more"), at most three.
func cellList(cells []*rundoc.Cell) string {
	var names []string
	for _, c := range cells[:min(3, len(cells))] {
		names = append(names, rundoc.CellName(c.Context, c.Concurrency))
	}
	out := strings.Join(names, ", ")
	if n := len(cells) - len(names); n > 0 {
		out += fmt.Sprintf(" and %d more", n)
	}
	return out + pick(len(cells) == 1, " is", " are")
}

// pick is a if cond, else b.
func pick(cond bool, a, b string) string {
	if cond {
		return a
	}
	return b
}

// cellsWith returns the decode cells of run whose bottlenecks include k.
func cellsWith(run *rundoc.Run, k Kind) []*rundoc.Cell {
	var out []*rundoc.Cell
	for i := range run.Cells {
		c := &run.Cells[i]
		if slices.ContainsFunc(Cell(run, c), func(b Bottleneck) bool { return b.Kind == k }) {
			out = append(out, c)
		}
	}
	return out
}

// maxNumSeqs advises running every queued cell's requests at once: the
// largest concurrency that queued becomes the server's slot setting
// (SlotsSetting), and each queued cell whose requests then fit the KV
// cache (bench.DecodeStatus with the new slots) is predicted to stop queueing.
// Only where the server's slots are known (a launch's or the demo's
// --max-num-seqs, llama-server's total_slots, SGLang's
// max_running_requests). On vLLM it is the flag --max-num-seqs, not past
// the launch's own --max-num-batched-tokens, which vLLM requires to be at
// least --max-num-seqs. llama-server and SGLang are not servers RigBench
// launches or sweeps, so theirs is a note in their own terms (serverSlots).
func maxNumSeqs(run *rundoc.Run) (Advice, bool) {
	l := bench.ServerLimits(run.Server)
	if l.Slots == 0 {
		return Advice{}, false
	}
	queued := cellsWith(run, Queue)
	want := 0
	for _, c := range queued {
		want = max(want, c.Concurrency)
	}
	if want <= l.Slots {
		return Advice{}, false
	}
	switch run.Server.Personality {
	case "llama-server", "sglang":
		return serverSlots(run, queued, want)
	}
	// vLLM refuses --max-num-seqs above --max-num-batched-tokens: a
	// launch that set the budget lower than want could not start.
	if v, _ := launchValue(run, "--max-num-batched-tokens", ""); v != "" {
		if budget, err := strconv.Atoi(v); err == nil && budget < want {
			return Advice{}, false
		}
	}
	l.Slots = want
	a := Advice{Moves: Queue, Flag: "--max-num-seqs", Value: strconv.Itoa(want)}
	a.Predictions = stopQueueing(run, queued, l)
	return a, len(a.Predictions) > 0
}

// stopQueueing predicts which queued cells run without queueing under l.
func stopQueueing(run *rundoc.Run, queued []*rundoc.Cell, l bench.Limits) []Prediction {
	var out []Prediction
	for _, c := range queued {
		if bench.DecodeStatus(c.Context, c.Concurrency, run.Plan.MaxOutput, l) == "" {
			out = append(out, Prediction{Context: c.Context, Concurrency: c.Concurrency, Outcome: NoQueue})
		}
	}
	return out
}

// serverSlots is maxNumSeqs for llama-server and SGLang: a note (Flag "",
// so no sweep or launch takes it for a vLLM flag) that names the server's
// own setting with the value and the cells predicted to stop queueing.
//
// llama-server divides its context (-c) among its slots unless they share
// one pool (-kvu), so each slot keeps its context, and the run's max model
// length (the slot's), only if -c grows with them: the note says so and
// predicts under that condition, the pool (where known) growing by
// want ÷ slots. SGLang's KV pool (max_total_num_tokens) is sized from
// memory whatever the setting, so its capacity stays.
func serverSlots(run *rundoc.Run, queued []*rundoc.Cell, want int) (Advice, bool) {
	l := bench.ServerLimits(run.Server)
	slots := l.Slots
	setting := SlotsSetting(run.Server.Personality)
	extra := ""
	if run.Server.Personality == "llama-server" {
		l.KVCapacity = l.KVCapacity * want / slots
		if n := run.Server.MaxModelLen; n > 0 {
			extra = fmt.Sprintf("; without -kvu each slot gets -c ÷ %d tokens, so raise -c to %d to keep %d per slot", want, n*want, n)
		}
	}
	l.Slots = want
	a := Advice{Moves: Queue, Predictions: stopQueueing(run, queued, l)}
	if len(a.Predictions) == 0 {
		return Advice{}, false
	}
	var cells []string
	for _, p := range a.Predictions {
		cells = append(cells, p.Text())
	}
	a.Note = fmt.Sprintf("%s %d: %s%s", setting, want, strings.Join(cells, ", "), extra)
	return a, true
}

// smallerKVDtype is the --kv-cache-dtype advised for a 16-bit cache: 8-bit
// floats halve each token's bytes, so the same memory holds twice the
// tokens, at a small cost in accuracy most models tolerate.
const smallerKVDtype = "fp8"

// kvDtype advises an 8-bit KV cache where cells were over capacity and the
// cache is 16-bit: the capacity grows by the ratio of the dtypes' sizes
// (vllm.KVDtypeRatio), and each over-capacity cell that then fits
// (bench.DecodeStatus) is predicted. The dtype must be known: a launch's or
// the demo's flags (an endpoint's is not). A note follows that
// --max-model-len frees nothing, since vLLM sizes the KV cache from the
// memory left, whatever the length.
func kvDtype(run *rundoc.Run) []Advice {
	l := bench.ServerLimits(run.Server)
	dtype, known := launchValue(run, "--kv-cache-dtype", "auto")
	now, ok := vllm.KVDtypeRatio(dtype)
	next, _ := vllm.KVDtypeRatio(smallerKVDtype)
	if l.KVCapacity == 0 || !known || !ok || now <= next || run.Plan.MaxOutput == 0 {
		return nil
	}
	var over []*rundoc.Cell
	for i := range run.Cells {
		if c := &run.Cells[i]; c.Phase == rundoc.PhaseDecode && bench.CapacityVerdict(*c, run.Cells) {
			over = append(over, c)
		}
	}
	if len(over) == 0 {
		return nil
	}
	before := l.KVCapacity
	l.KVCapacity = int(float64(before) * now / next)
	a := Advice{Moves: Capacity, Flag: "--kv-cache-dtype", Value: smallerKVDtype,
		Effect: "KV capacity " + rundoc.TokensText(before) + " → " + rundoc.TokensText(l.KVCapacity)}
	for _, c := range over {
		if bench.DecodeStatus(c.Context, c.Concurrency, run.Plan.MaxOutput, l) == "" {
			a.Predictions = append(a.Predictions, Prediction{Context: c.Context, Concurrency: c.Concurrency, Outcome: Fits})
		}
	}
	if len(a.Predictions) == 0 {
		return nil
	}
	first := over[0]
	note := Advice{Moves: Capacity, Note: "--max-model-len frees nothing: the KV cache, not the length, limits " + rundoc.CellName(first.Context, first.Concurrency)}
	return []Advice{a, note}
}

// powerNote says a lower power cap would cost little where most cells
// that ran were bandwidth-bound and the power cap held the clocks: decode
// then waits on memory, not on the cores the cap slows.
func powerNote(run *rundoc.Run) (Advice, bool) {
	capped, bound := false, 0
	ran := 0
	for i := range run.Cells {
		c := &run.Cells[i]
		if c.Phase != rundoc.PhaseDecode || !c.Status.Ran() {
			continue
		}
		ran++
		kinds := Cell(run, c)
		if slices.ContainsFunc(kinds, func(b Bottleneck) bool { return b.Kind == Bandwidth }) {
			bound++
			capped = capped || slices.ContainsFunc(kinds, func(b Bottleneck) bool { return b.Kind == Power })
		}
	}
	if !capped || 2*bound < ran {
		return Advice{}, false
	}
	limit := "its power cap"
	if h := run.Hardware; h != nil && len(h.GPUs) > 0 && h.GPUs[0].PowerLimitW > 0 {
		limit = fmt.Sprintf("%.0f W", h.GPUs[0].PowerLimitW)
	}
	return Advice{Moves: Power, Note: "power-capped at " + limit + " while bandwidth-bound: a lower cap would cost little"}, true
}

// launchValue is a vLLM flag's value in the run's launch (or the demo's
// flags), def when the launch leaves it at vLLM's default; known is false
// where RigBench did not start the server (an endpoint's flags are not
// known).
func launchValue(run *rundoc.Run, flag, def string) (v string, known bool) {
	if run.Launch == nil {
		return def, run.Simulated
	}
	cfg, err := vllm.FromRecord(*run.Launch)
	if err != nil {
		return def, false
	}
	if v, ok := cfg.Get(flag); ok {
		return v, true
	}
	return def, true
}

// speculative reports whether run's launch drafts (its roofline's note of
// --speculative-config, also for a server without drafting counters) or
// some decode cell of it drafted (an endpoint's counters).
func speculative(run *rundoc.Run) bool {
	if r := run.Server.Roofline; r != nil && r.Speculative {
		return true
	}
	for i := range run.Cells {
		if run.Cells[i].Speculative() {
			return true
		}
	}
	return false
}

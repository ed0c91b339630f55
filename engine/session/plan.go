package session

import (
	"fmt"
	"slices"
	"strconv"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Facts are what a plan check needs to know about the server before a run:
// its max_model_len, KV capacity K in tokens and the requests it runs at
// once (0 = unknown), and the simulator's speed factor in demo mode (0 or 1
// = real time), which makes a demo run S times shorter than the card it
// imitates.
type Facts struct {
	MaxModelLen int
	KVCapacity  int
	Slots       int
	Speed       float64
}

// limits are the facts as the plan check reads them, with the plan's KV
// capacity override.
func (f Facts) limits(p rundoc.Plan) bench.Limits {
	return bench.Limits{MaxModelLen: f.MaxModelLen, KVCapacity: kvCapacity(p, f), Slots: f.Slots}
}

// DemoFacts are the facts of the demo target for cfg, computed from the
// simulator's sizing without starting it (sim.Facts). Its error is the one
// the demo's start would fail with; Speed is set even then.
func DemoFacts(cfg sim.Config) (Facts, error) {
	f := Facts{Speed: max(1, cfg.Speed), Slots: demoSlots(cfg)}
	var err error
	f.MaxModelLen, f.KVCapacity, err = sim.Facts(cfg)
	return f, err
}

// ServerFacts are the facts a launched server reported at start-up.
func ServerFacts(s *Server) Facts {
	if s == nil {
		return Facts{}
	}
	return Facts{MaxModelLen: s.MaxModelLen, KVCapacity: s.KVCapacity, Slots: launchSlots(s.Record)}
}

// demoSlots is the demo's max_num_seqs: its --max-num-seqs, else its
// profile's default (the simulator's sizing).
func demoSlots(cfg sim.Config) int {
	n := cfg.MaxNumSeqs
	if n == 0 {
		n = cfg.Profile.DefaultMaxNumSeqs
		if cfg.Profile.Name == "" {
			n = sim.DefaultProfile().DefaultMaxNumSeqs
		}
	}
	if n < 1 || n > rundoc.MaxConcurrency {
		return 0
	}
	return n
}

// launchSlots is --max-num-seqs of a launch (the requests vLLM runs at
// once), 0 when the launch does not set it or there is none.
func launchSlots(l *rundoc.Launch) int {
	if l == nil {
		return 0
	}
	cfg, err := vllm.FromRecord(*l)
	if err != nil {
		return 0
	}
	v, ok := cfg.Get("--max-num-seqs")
	if !ok {
		return 0
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 1 || n > rundoc.MaxConcurrency {
		return 0
	}
	return n
}

// Predict applies METHOD.md's plan check (bench.DecodeStatus) to every decode
// cell of p and returns a preview run whose cells hold only the predicted
// statuses (cells that will run are absent). Contexts of ContextMax resolve
// to max_model_len − M when the length is known and are dropped otherwise.
func Predict(p rundoc.Plan, f Facts) *rundoc.Run {
	l := f.limits(p)
	r := &rundoc.Run{Plan: p}
	r.Plan.Contexts = p.Resolve(f.MaxModelLen).Contexts
	for _, c := range r.Plan.Contexts {
		for _, n := range p.Concurrency {
			if st := bench.DecodeStatus(c, n, p.MaxOutput, l); st != "" {
				r.Cells = append(r.Cells, rundoc.Cell{Phase: rundoc.PhaseDecode, Context: c, Concurrency: n, Status: st})
			}
		}
	}
	return r
}

// Estimate is the expected length of a run in real time (bench.PlanDuration,
// divided by the simulator's speed in demo mode), with measured prefill
// cells, when there are any, setting the warm-up rate. Runnable is the
// number of decode cells of the preview (Predict) that will run.
func Estimate(preview *rundoc.Run, f Facts, measured []rundoc.Cell) (d time.Duration, runnable int) {
	p := preview.Plan
	for _, c := range p.Contexts {
		for _, n := range p.Concurrency {
			if preview.Find(rundoc.PhaseDecode, c, n) == nil {
				runnable++
			}
		}
	}
	d = bench.PlanDuration(p, f.limits(p), measured)
	if f.Speed > 1 {
		d = time.Duration(float64(d) / f.Speed)
	}
	return d, runnable
}

// kvCapacity is the capacity the plan is checked against: the user's
// override when set, else the server's.
func kvCapacity(p rundoc.Plan, f Facts) int {
	if p.KVCapacityOverride > 0 {
		return p.KVCapacityOverride
	}
	return f.KVCapacity
}

// Why names the limit that leaves no cell of a plan runnable.
type Why int

// The limits, in the order CheckPlan tests them.
const (
	// NoPrefillFits: a prefill-only plan whose every context is longer
	// than the server holds; Suggest is the largest context that fits.
	NoPrefillFits Why = iota + 1
	// OutputFillsModel: the max output alone reaches max_model_len;
	// Suggest is a max output leaving about half of it for the prompt.
	OutputFillsModel
	// NoRoomForOutput: the smallest context plus the max output exceeds
	// max_model_len; Suggest is the largest max output that fits it.
	NoRoomForOutput
	// ConcurrencyTooHigh: one request fits the KV cache, but the lowest
	// concurrency does not.
	ConcurrencyTooHigh
	// RequestTooBig: one request of the smallest context and the max
	// output exceeds the KV cache; Suggest is the max output that fits.
	RequestTooBig
	// CacheTooSmall: the KV cache cannot hold even the smallest context.
	CacheTooSmall
)

// NothingRunsError says that no cell of a plan can run on a server, by the
// engine's own predictions, and which limit is to blame. It carries the
// numbers, not advice: each front end words the remedy in its own terms
// (flag names in the CLI, plan fields in the app).
type NothingRunsError struct {
	Why Why
	// MaxModelLen and KVCapacity are the server's limits (0 = unknown).
	MaxModelLen, KVCapacity int
	// MaxOutput, Context and Concurrency are the plan's max output, its
	// smallest decode context and its lowest concurrency.
	MaxOutput, Context, Concurrency int
	// Suggest is the value that would let a cell run (see Why).
	Suggest int
}

// Error states the cause and the remedy in the plan's own terms.
func (e *NothingRunsError) Error() string {
	switch e.Why {
	case NoPrefillFits:
		return fmt.Sprintf("no prefill context fits this server (max_model_len %s, KV cache %s): use prefill contexts of %d tokens or less",
			rundoc.TokensText(e.MaxModelLen), rundoc.TokensText(e.KVCapacity), e.Suggest)
	case OutputFillsModel:
		return fmt.Sprintf("a max output of %d leaves no room in max_model_len %d: use a max output of %d or less",
			e.MaxOutput, e.MaxModelLen, e.Suggest)
	case NoRoomForOutput:
		return fmt.Sprintf("no context leaves room for a max output of %d in max_model_len %d: use a max output of %d or less, or smaller contexts",
			e.MaxOutput, e.MaxModelLen, e.Suggest)
	case ConcurrencyTooHigh:
		return fmt.Sprintf("the KV cache holds %s, too few for %d requests of %d tokens (context + max output) at once: add lower concurrency levels such as 1",
			rundoc.TokensText(e.KVCapacity), e.Concurrency, e.Context+e.MaxOutput)
	case RequestTooBig:
		return fmt.Sprintf("the KV cache holds %s, too few for one request of context %s plus a max output of %d: use a max output of %d or less",
			rundoc.TokensText(e.KVCapacity), rundoc.ContextLabel(e.Context), e.MaxOutput, e.Suggest)
	}
	return fmt.Sprintf("the KV cache holds %s, too few for any context of the plan: use smaller contexts", rundoc.TokensText(e.KVCapacity))
}

// CheckPlan returns a *NothingRunsError when no cell of the resolved plan p
// can run on server s, by the engine's own predictions (bench.DecodeStatus and
// bench.PrefillStatus), and nil when at least one can. An empty plan is
// nil here: Plan.Validate reports it.
func CheckPlan(p rundoc.Plan, s rundoc.Server) error {
	l := bench.ServerLimits(s)
	length, kv := l.MaxModelLen, l.KVCapacity
	skipped := 0
	for _, c := range p.PrefillContexts {
		if bench.PrefillStatus(c, l) == "" {
			return nil
		}
		skipped++
	}
	for _, c := range p.Contexts {
		for _, n := range p.Concurrency {
			if bench.DecodeStatus(c, n, p.MaxOutput, l) == "" {
				return nil
			}
			skipped++
		}
	}
	if skipped == 0 {
		return nil
	}
	e := &NothingRunsError{MaxModelLen: length, KVCapacity: kv, MaxOutput: p.MaxOutput}
	if len(p.Contexts) == 0 || len(p.Concurrency) == 0 {
		largest := length - 1
		if kv > 0 && (largest < 0 || kv-1 < largest) {
			largest = kv - 1
		}
		e.Why, e.Suggest = NoPrefillFits, max(largest, 1)
		return e
	}
	// The requests the server would run at once: a server with fewer
	// slots than N holds only its slots' KV (issue 30 item 1).
	e.Context, e.Concurrency = slices.Min(p.Contexts), l.Running(slices.Min(p.Concurrency))
	switch c0 := e.Context; {
	case length > 0 && p.MaxOutput >= length:
		e.Why, e.Suggest = OutputFillsModel, roomyOutput(length)
	case length > 0 && c0+p.MaxOutput > length:
		e.Why, e.Suggest = NoRoomForOutput, length-c0
	case kv > 0 && c0+p.MaxOutput <= kv:
		e.Why = ConcurrencyTooHigh
	case kv > c0:
		e.Why, e.Suggest = RequestTooBig, kv-c0
	default:
		e.Why = CacheTooSmall
	}
	return e
}

// roomyOutput suggests a max output that leaves about half of the model
// length for the prompt: the largest power of two not above length/2.
func roomyOutput(length int) int {
	out := 1
	for out*2 <= length/2 {
		out *= 2
	}
	return out
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
)

// planCheck stands in front of the run's other observers. At the run's
// first event, when the server's max_model_len and KV capacity are known
// and before any cell runs, it stops a run in which the engine would skip
// every cell (too long or over capacity): such a run measures nothing, yet
// would end "complete" with exit 0. The stopped run reaches neither the
// progress lines nor the history. It also says which of the default
// contexts the server is too small for, which the engine drops silently.
type planCheck struct {
	next   rundoc.Observers
	cancel context.CancelCauseFunc
	// asked is the plan as the flags gave it, before Resolve.
	asked rundoc.Plan
	note  io.Writer
	// err is why the run was stopped; read it after session.Run returns.
	err error
}

var _ rundoc.Observer = (*planCheck)(nil)

// Observe implements bench.Observer.
func (p *planCheck) Observe(e rundoc.Event) {
	if p.err != nil {
		return
	}
	if e.Kind == rundoc.EventRunStarted && e.Run != nil {
		if err := noCellRuns(e.Run.Plan, e.Run.Server); err != nil {
			p.err = err
			p.cancel(err)
			return
		}
	}
	p.next.Observe(e)
	if e.Kind == rundoc.EventRunStarted && e.Run != nil {
		p.noteDropped(e.Run)
	}
}

// noteDropped names the default contexts the server cannot hold, which
// Plan.Resolve leaves out of the run (TrimContexts).
func (p *planCheck) noteDropped(run *rundoc.Run) {
	if !p.asked.TrimContexts || run.Server.MaxModelLen <= 0 {
		return
	}
	var parts []string
	if d := dropped(p.asked.Contexts, run.Plan.Contexts); d != "" {
		parts = append(parts, "decode "+d)
	}
	if d := dropped(p.asked.PrefillContexts, run.Plan.PrefillContexts); d != "" {
		parts = append(parts, "prefill "+d)
	}
	if len(parts) > 0 {
		fmt.Fprintf(p.note, "note: max_model_len %d is too short for these default contexts, so they are skipped: %s\n",
			run.Server.MaxModelLen, strings.Join(parts, "; "))
	}
}

// dropped lists the contexts of asked missing from resolved ("max" aside,
// which resolves to another number).
func dropped(asked, resolved []int) string {
	var out []string
	for _, c := range asked {
		if c != rundoc.ContextMax && !slices.Contains(resolved, c) {
			out = append(out, rundoc.ContextLabel(c))
		}
	}
	return strings.Join(out, ", ")
}

// noCellRuns returns why no cell of the resolved plan can run on this
// server, by the engine's own predictions (bench.Predict and
// bench.PredictPrefill), or nil when at least one can. An empty plan is
// nil here: Plan.Validate reports it.
func noCellRuns(p rundoc.Plan, s rundoc.Server) error {
	length, kv := s.MaxModelLen, s.KVCapacityTokens
	skipped := 0
	for _, c := range p.PrefillContexts {
		if bench.PredictPrefill(c, length, kv) == "" {
			return nil
		}
		skipped++
	}
	for _, c := range p.Contexts {
		for _, n := range p.Concurrency {
			if bench.Predict(c, n, p.MaxOutput, length, kv) == "" {
				return nil
			}
			skipped++
		}
	}
	if skipped == 0 {
		return nil
	}
	if len(p.Contexts) == 0 || len(p.Concurrency) == 0 {
		largest := length - 1
		if kv > 0 && (largest < 0 || kv-1 < largest) {
			largest = kv - 1
		}
		return fmt.Errorf("no prefill context fits this server (max_model_len %s, KV cache %s): use --prefill %d or less",
			tokensText(length), tokensText(kv), max(largest, 1))
	}
	c0, n0 := slices.Min(p.Contexts), slices.Min(p.Concurrency)
	switch {
	case length > 0 && p.MaxOutput >= length:
		return fmt.Errorf("--max-output %d leaves no room in max_model_len %d: use --max-output %d or less",
			p.MaxOutput, length, roomyOutput(length))
	case length > 0 && c0+p.MaxOutput > length:
		return fmt.Errorf("no context of --contexts leaves room for --max-output %d in max_model_len %d: use --max-output %d or less, or smaller contexts",
			p.MaxOutput, length, length-c0)
	case kv > 0 && c0+p.MaxOutput <= kv:
		return fmt.Errorf("the KV cache holds %d tokens, too few for %d requests of %d tokens (context + --max-output) at once: add lower --concurrency levels such as 1",
			kv, n0, c0+p.MaxOutput)
	case kv > c0:
		return fmt.Errorf("the KV cache holds %d tokens, too few for one request of context %s plus --max-output %d: use --max-output %d or less",
			kv, rundoc.ContextLabel(c0), p.MaxOutput, kv-c0)
	}
	return fmt.Errorf("the KV cache holds %s, too few for any context of --contexts: use smaller contexts", tokensText(kv))
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

// tokensText is a server's token limit, or "unknown" when it reported none.
func tokensText(n int) string {
	if n <= 0 {
		return "unknown"
	}
	return fmt.Sprintf("%d tokens", n)
}

// checkWritable tells, before a run starts, whether a file can be written
// at path: an existing folder, into which a file can be created. A run
// can last hours; a typo in --json must not be found at its end.
func checkWritable(path string) error {
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return fmt.Errorf("--json %s is a folder: give a file name, such as %s", path, filepath.Join(path, "run.json"))
	}
	dir := dirOf(path)
	fi, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return fmt.Errorf("--json %s: the folder %s does not exist; create it or give another path", path, dir)
	case err != nil:
		return fmt.Errorf("--json %s: cannot use the folder %s (%v)", path, dir, osReason(err))
	case !fi.IsDir():
		return fmt.Errorf("--json %s: %s is not a folder; give another path", path, dir)
	}
	if err := safefile.Check(path); err != nil {
		return fmt.Errorf("--json %v", err)
	}
	return nil
}

// osReason is the reason of a file-system error without the path it
// carries, which may be a temporary file the user never named.
func osReason(err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		return le.Err
	}
	return err
}

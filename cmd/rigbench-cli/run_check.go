package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/internal/safefile"
)

// droppedNote names, at the run's start, the default contexts the server
// is too small for, which Plan.Resolve leaves out of the run
// (TrimContexts) without a word.
type droppedNote struct {
	// asked is the plan as the flags gave it, before Resolve.
	asked rundoc.Plan
	note  io.Writer
	done  bool
}

var _ rundoc.Observer = (*droppedNote)(nil)

// Observe implements rundoc.Observer.
func (p *droppedNote) Observe(e rundoc.Event) {
	if p.done || e.Kind != rundoc.EventRunStarted || e.Run == nil {
		return
	}
	p.done = true
	run := e.Run
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

// planError words engine/session's "nothing in this plan can run" in the
// CLI's terms: the flags that change the plan.
func planError(e *session.NothingRunsError) error {
	switch e.Why {
	case session.NoPrefillFits:
		return fmt.Errorf("no prefill context fits this server (max_model_len %s, KV cache %s): use --prefill %d or less",
			rundoc.TokensText(e.MaxModelLen), rundoc.TokensText(e.KVCapacity), e.Suggest)
	case session.OutputFillsModel:
		return fmt.Errorf("--max-output %d leaves no room in max_model_len %d: use --max-output %d or less",
			e.MaxOutput, e.MaxModelLen, e.Suggest)
	case session.NoRoomForOutput:
		return fmt.Errorf("no context of --contexts leaves room for --max-output %d in max_model_len %d: use --max-output %d or less, or smaller contexts",
			e.MaxOutput, e.MaxModelLen, e.Suggest)
	case session.ConcurrencyTooHigh:
		return fmt.Errorf("the KV cache holds %s, too few for %d requests of %d tokens (context + --max-output) at once: add lower --concurrency levels such as 1",
			rundoc.TokensText(e.KVCapacity), e.Concurrency, e.Context+e.MaxOutput)
	case session.RequestTooBig:
		return fmt.Errorf("the KV cache holds %s, too few for one request of context %s plus --max-output %d: use --max-output %d or less",
			rundoc.TokensText(e.KVCapacity), rundoc.ContextLabel(e.Context), e.MaxOutput, e.Suggest)
	}
	return fmt.Errorf("the KV cache holds %s, too few for any context of --contexts: use smaller contexts", rundoc.TokensText(e.KVCapacity))
}

// checkWritable tells, before a run starts, whether a file can be written
// at path: an existing folder, into which a file can be created. A run
// can last hours; a typo in --json must not be found at its end, nor a
// path that would replace a file the command uses (kept).
func checkWritable(path string, kept *safefile.Guard) error {
	if err := kept.Check(path); err != nil {
		return fmt.Errorf("--json %v", err)
	}
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

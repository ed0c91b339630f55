package session

import (
	"fmt"
	"net/url"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// flagPart is one differing flag of a launch: its text and whether Tune
// can vary it.
type flagPart struct {
	text    string
	tunable bool
	// changed: the previous run of the model did not have it.
	changed bool
}

// nameFlags is how many differing flags a default name lists; the rest
// are counted ("+4 more") and stay whole in History's Flags column.
const nameFlags = 3

// DefaultName names a new run so that runs of the same model tell apart in
// History, Results and Compare: what ran (the model's last part, or an
// endpoint's host), up to three flags that differ from vLLM's defaults
// when RigBench knows them (flagsKnown: a launch or the demo, not an
// endpoint), performance flags first, and the start time. It fits
// rundoc.MaxNameLen by construction, so the runner never cuts it and the
// start time is never lost: flags that would not fit are counted instead.
//
// prev are the launch arguments of the previous run of the same model
// (nil when there is none or RigBench cannot tell): flags that differ from
// it lead, so runs that differ in one flag tell apart by their names'
// beginnings, not by a "+4 more" (issue 41: every demo run began
// "a1-4b-fp8 · max-model-len 262144, gpu-…").
func DefaultName(what string, args, prev []string, flagsKnown bool, start time.Time) string {
	if i := strings.LastIndex(what, "/"); i >= 0 && i+1 < len(what) {
		what = what[i+1:]
	}
	when := start.Local().Format("Jan 2 15:04")
	const sep = " · "
	// The model keeps room for the time and a short flag list.
	what = cutRunes(what, rundoc.MaxNameLen/2)
	texts, tunable := vllm.FlagParts(args)
	before, _ := vllm.FlagParts(prev)
	parts := make([]flagPart, len(texts))
	for i := range texts {
		parts[i] = flagPart{texts[i], tunable[i], prev != nil && !slices.Contains(before, texts[i])}
	}
	// What changed since the previous run first, then performance flags,
	// each group in the order typed.
	slices.SortStableFunc(parts, func(a, b flagPart) int {
		switch {
		case a.changed != b.changed:
			if a.changed {
				return -1
			}
			return 1
		case a.tunable == b.tunable:
			return 0
		case a.tunable:
			return -1
		}
		return 1
	})
	room := rundoc.MaxNameLen - len(what) - len(when) - 2*len(sep)
	var kept []string
	used := 0
	for i, p := range parts {
		more := ""
		if rest := len(parts) - i - 1; rest > 0 {
			more = fmt.Sprintf(", +%d more", rest)
		}
		add := len(p.text)
		if len(kept) > 0 {
			add += len(", ")
		}
		if len(kept) == nameFlags || used+add+len(more) > room {
			break
		}
		kept, used = append(kept, p.text), used+add
	}
	flags := strings.Join(kept, ", ")
	if n := len(parts) - len(kept); n > 0 {
		if flags != "" {
			flags += ", "
		}
		flags += fmt.Sprintf("+%d more", n)
	}
	out := []string{what}
	switch {
	case flags != "":
		out = append(out, flags)
	case flagsKnown:
		out = append(out, "vLLM defaults")
	}
	return strings.Join(append(out, when), sep)
}

// cutRunes keeps at most n bytes of s, whole characters, marking a cut
// with "…".
func cutRunes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	cut := n - len("…")
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// defaultRunName is the name of a run given none, in both front ends:
// DefaultName of what was launched (the launch record: the model and the
// flags the server or the simulator ran with), else of the simulator's
// model with vLLM's defaults, else of the endpoint's host, whose flags
// RigBench does not know.
func defaultRunName(o Options, doc *rundoc.Run, now time.Time) string {
	switch {
	case doc.Launch != nil:
		return DefaultName(doc.Launch.Model, doc.Launch.Args, previousArgs(o, doc.Launch.Model), true, now)
	case o.Kind == Demo:
		return DefaultName(DemoModel(o.Sim), nil, nil, true, now)
	}
	host := o.Endpoint
	if u, err := url.Parse(o.Endpoint); err == nil && u.Host != "" {
		host = u.Host
	}
	return DefaultName(host, nil, nil, false, now)
}

// History is what an observer that keeps the run history (store.Recorder)
// offers a new run's default name: the launch arguments of the newest
// run of model it holds, ok false when it holds none.
type History interface {
	PreviousArgs(model string) (args []string, ok bool)
}

// previousArgs asks the run's history, if an observer keeps one, for the
// previous run of model's arguments (nil: none, or no history).
func previousArgs(o Options, model string) []string {
	for _, ob := range o.Observers {
		if h, ok := ob.(History); ok {
			if args, ok := h.PreviousArgs(model); ok {
				return append([]string{}, args...)
			}
			return nil
		}
	}
	return nil
}

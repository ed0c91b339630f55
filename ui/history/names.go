package history

import (
	"fmt"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// FlagsText is the part of a launch's arguments that differs from vLLM's
// defaults, short enough for a table column: "max-num-seqs 16,
// kv-cache-dtype fp8, enforce-eager". Flags set to their catalog default
// are left out (they change nothing), and so are the ones RigBench manages
// (port, host, API key). Arguments outside the catalog are kept as typed.
func FlagsText(args []string) string {
	var texts []string
	for _, p := range flagParts(args) {
		texts = append(texts, p.text)
	}
	return strings.Join(texts, ", ")
}

// flagPart is one flag of FlagsText: its text and whether Tune can vary
// it (a performance flag, which tells runs apart more than a path or a
// name does).
type flagPart struct {
	text    string
	tunable bool
}

// flagParts is FlagsText as one part per flag that differs.
func flagParts(args []string) []flagPart {
	if len(args) == 0 {
		return nil
	}
	c, err := vllm.ParseArgs(args)
	if err != nil {
		return []flagPart{{text: strings.Join(args, " ")}}
	}
	var parts []flagPart
	for _, fv := range c.Flags {
		f, _, ok := vllm.Lookup(fv.Name)
		if ok && f.Managed {
			continue
		}
		name := strings.TrimPrefix(fv.Name, "--")
		tunable := vllm.Tunable(fv.Name)
		switch {
		case ok && !f.TakesValue():
			// A switch without a "--no-" spelling is off unless it says
			// otherwise; one with it is shown unless its default is known.
			on := fv.Value != "false"
			def := f.Default
			if def == "" && f.Negation == "" {
				def = "false"
			}
			if def != "" && on == (def == "true") {
				continue
			}
			if !on {
				name = "no " + name
			}
			parts = append(parts, flagPart{name, tunable})
		case ok && vllm.IsDefault(fv.Name, fv.Value):
		default:
			parts = append(parts, flagPart{name + " " + fv.Value, tunable})
		}
	}
	if len(c.Extra) > 0 {
		parts = append(parts, flagPart{text: strings.Join(c.Extra, " ")})
	}
	return parts
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
func DefaultName(what string, args []string, flagsKnown bool, start time.Time) string {
	if i := strings.LastIndex(what, "/"); i >= 0 && i+1 < len(what) {
		what = what[i+1:]
	}
	when := start.Local().Format("Jan 2 15:04")
	const sep = " · "
	// The model keeps room for the time and a short flag list.
	what = cutRunes(what, rundoc.MaxNameLen/2)
	parts := flagParts(args)
	// Performance flags first, each group in the order typed.
	slices.SortStableFunc(parts, func(a, b flagPart) int {
		switch {
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

// NormaliseModel is report.NormaliseModel with the ids the app knows: the
// simulator's models and those of the runs listed.
func NormaliseModel(id string, listed []Entry) string {
	known := sim.Models()
	for _, e := range listed {
		known = append(known, e.Run.Server.Model)
	}
	return report.NormaliseModel(id, known)
}

// displayName is how the table names a run: its name, else its model.
func displayName(r *rundoc.Run) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Server.Model
}

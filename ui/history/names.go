package history

import (
	"strings"
	"time"

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
	if len(args) == 0 {
		return ""
	}
	c, err := vllm.ParseArgs(args)
	if err != nil {
		return strings.Join(args, " ")
	}
	var parts []string
	for _, fv := range c.Flags {
		f, _, ok := vllm.Lookup(fv.Name)
		if ok && f.Managed {
			continue
		}
		name := strings.TrimPrefix(fv.Name, "--")
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
			parts = append(parts, name)
		case ok && vllm.IsDefault(fv.Name, fv.Value):
		default:
			parts = append(parts, name+" "+fv.Value)
		}
	}
	if len(c.Extra) > 0 {
		parts = append(parts, strings.Join(c.Extra, " "))
	}
	return strings.Join(parts, ", ")
}

// DefaultName names a new run so that runs of the same model tell apart in
// History, Results and Compare: what ran (the model's last part, or an
// endpoint's host), the flags that differ from vLLM's defaults when
// RigBench knows them (flagsKnown: a launch or the demo, not an endpoint),
// and the start time.
func DefaultName(what string, args []string, flagsKnown bool, start time.Time) string {
	if i := strings.LastIndex(what, "/"); i >= 0 && i+1 < len(what) {
		what = what[i+1:]
	}
	parts := []string{what}
	if f := FlagsText(args); f != "" {
		parts = append(parts, f)
	} else if flagsKnown {
		parts = append(parts, "vLLM defaults")
	}
	parts = append(parts, start.Local().Format("Jan 2 15:04"))
	return strings.Join(parts, " · ")
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

package history

import (
	"strings"
	"time"

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

// modelSlug is a model id as a file name writes it: "/" and "--" read
// as "-", case folded.
func modelSlug(id string) string {
	s := strings.ToLower(strings.ReplaceAll(id, "/", "-"))
	return strings.ReplaceAll(s, "--", "-")
}

// NormaliseModel gives a model id read from a file name ("agents-a1-4b-fp8",
// with its "/" written as "-") the spelling of a known id with the same
// letters ("agents/a1-4b-fp8"), so one model does not show under two
// names. Known ids are the simulator's models and those of the runs
// listed; an id that already has a "/" or matches none is kept.
func NormaliseModel(id string, listed []Entry) string {
	if id == "" || strings.Contains(id, "/") {
		return id
	}
	known := []string{}
	for _, n := range sim.ProfileNames() {
		if p, err := sim.ProfileByName(n); err == nil {
			known = append(known, p.Model)
		}
	}
	for _, e := range listed {
		known = append(known, e.Run.Server.Model)
	}
	slug := modelSlug(id)
	for _, k := range known {
		if strings.Contains(k, "/") && modelSlug(k) == slug {
			return k
		}
	}
	return id
}

// displayName is how the table names a run: its name, else its model.
func displayName(r *rundoc.Run) string {
	if r.Name != "" {
		return r.Name
	}
	return r.Server.Model
}

package vllm

import "strings"

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
	c, err := ParseArgs(args)
	if err != nil {
		return []flagPart{{text: strings.Join(args, " ")}}
	}
	var parts []flagPart
	for _, fv := range c.Flags {
		f, _, ok := Lookup(fv.Name)
		if ok && f.Managed {
			continue
		}
		name := strings.TrimPrefix(fv.Name, "--")
		tunable := Tunable(fv.Name)
		switch {
		case fv.Name == SpeculativeFlag:
			// Its JSON would fill a run's name: the sweep's short form.
			parts = append(parts, flagPart{"speculative " + SpeculativeLabel(fv.Value), tunable})
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
		case ok && IsDefault(fv.Name, fv.Value):
		default:
			parts = append(parts, flagPart{name + " " + fv.Value, tunable})
		}
	}
	if len(c.Extra) > 0 {
		parts = append(parts, flagPart{text: strings.Join(c.Extra, " ")})
	}
	return parts
}

// FlagParts is FlagsText one part per flag, each with whether Tune can
// vary it (a performance flag), for a name that lists the few that tell
// runs apart.
func FlagParts(args []string) (texts []string, tunable []bool) {
	for _, p := range flagParts(args) {
		texts, tunable = append(texts, p.text), append(tunable, p.tunable)
	}
	return texts, tunable
}

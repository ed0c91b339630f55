package report

import (
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// FlagChange is one `vllm serve` flag whose value is not the same in all
// the compared runs: what each run launched with, in the runs' order.
type FlagChange struct {
	// Flag is the catalog's spelling ("--kv-cache-dtype"), or OtherArgs
	// for the arguments the catalog does not know.
	Flag string
	// Values are each run's value as a reader takes it: the value given,
	// "on"/"off" for a switch, the catalog's default where the run left
	// the flag out (FlagDefault when vLLM derives it), or
	// chart.FlagsNotRecorded for a run without a launch record.
	Values []string
}

// OtherArgs names, in a FlagChange, the arguments outside the catalog,
// compared as written.
const OtherArgs = "other arguments"

// FlagDefault is a flag a run left out whose default vLLM derives (the
// catalog records none), so no value can be named.
const FlagDefault = "vLLM's default"

// Text is the change on one line, the runs' values in order:
// "--kv-cache-dtype: auto → fp8".
func (c FlagChange) Text() string {
	return c.Flag + ": " + strings.Join(c.Values, " → ")
}

// FlagChanges lists the launch flags that differ between runs (issue 41:
// Compare shows which flags set two runs apart, not only their names).
// Flags are read as vLLM reads them (vllm.ParseArgs: "--max-num-seqs=64"
// and "--max_num_seqs 64" are one value), a flag left out counts as its
// catalog default, values are compared by the catalog's rule
// (vllm.SameValue: "0.90" is "0.9"), and the flags RigBench manages (port,
// host, API key) are left out. None when fewer than two runs, or fewer
// than two with a launch record, can be compared.
func FlagChanges(runs []*rundoc.Run) []FlagChange {
	flags := make([]map[string]string, len(runs))
	other := make([]string, len(runs))
	var names []string
	recorded := 0
	for i, r := range runs {
		if r == nil || r.Launch == nil {
			continue
		}
		c, err := vllm.ParseArgs(r.Launch.Args)
		if err != nil {
			continue // unreadable: said as not recorded
		}
		recorded++
		flags[i] = map[string]string{}
		for _, fv := range c.Flags {
			if f, _, ok := vllm.Lookup(fv.Name); ok && f.Managed {
				continue
			}
			flags[i][fv.Name] = fv.Value
			if !slices.Contains(names, fv.Name) {
				names = append(names, fv.Name)
			}
		}
		other[i] = strings.Join(c.Extra, " ")
	}
	if recorded < 2 {
		return nil
	}
	slices.Sort(names)
	var out []FlagChange
	for _, n := range names {
		ch := FlagChange{Flag: n, Values: make([]string, len(runs))}
		raw := make([]string, len(runs))
		for i := range runs {
			if flags[i] == nil {
				ch.Values[i] = chart.FlagsNotRecorded
				continue
			}
			raw[i], ch.Values[i] = flagValue(n, flags[i])
		}
		if !allSame(n, raw, flags) {
			out = append(out, ch)
		}
	}
	ch := FlagChange{Flag: OtherArgs, Values: make([]string, len(runs))}
	same := true
	first := -1
	for i := range runs {
		switch {
		case flags[i] == nil:
			ch.Values[i] = chart.FlagsNotRecorded
			continue
		case other[i] == "":
			ch.Values[i] = "none"
		default:
			ch.Values[i] = other[i]
		}
		if first < 0 {
			first = i
		} else if other[i] != other[first] {
			same = false
		}
	}
	if !same {
		out = append(out, ch)
	}
	return out
}

// flagValue is run's value of flag name as compared (raw) and as shown:
// the value given, or the catalog default where the run left it out;
// switches read "on" or "off".
func flagValue(name string, set map[string]string) (raw, shown string) {
	f, _, _ := vllm.Lookup(name)
	v, ok := set[name]
	if !ok {
		v = f.Default
		if f.Type == vllm.KindBool && v == "" && f.Negation == "" {
			v = "false" // a switch without a negation is off unless given
		}
	}
	if v == "" {
		return "", FlagDefault
	}
	if f.Type == vllm.KindBool {
		if on, ok := vllm.ParseOnOff(v); ok {
			if on {
				return v, "on"
			}
			return v, "off"
		}
	}
	return v, v
}

// allSame reports whether every run with a launch record has the same
// value of flag name, by the catalog's rule.
func allSame(name string, raw []string, flags []map[string]string) bool {
	first := -1
	for i := range raw {
		if flags[i] == nil {
			continue
		}
		if first < 0 {
			first = i
			continue
		}
		if !vllm.SameValue(name, raw[first], raw[i]) {
			return false
		}
	}
	return true
}

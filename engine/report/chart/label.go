package chart

import (
	"fmt"
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// MaxRuns is the most runs one comparison overlays; more would make the
// legend and the lines unreadable.
const MaxRuns = 6

// Letter names the i-th run of a comparison: A, B, C, … The letters tie a
// chart's legend to the report's tables.
func Letter(i int) string { return string(rune('A' + i)) }

// RunName is a run's title (rundoc.Run.Title): its name, else its model,
// else the start of its UUID.
func RunName(r *rundoc.Run) string { return r.Title() }

// Model is the model the server reported, else the one it was launched
// with (rundoc.Run.ModelName).
func Model(r *rundoc.Run) string { return r.ModelName() }

// GPUName describes the run's GPUs (hardware.Snapshot.GPUNames), "" when
// unknown.
func GPUName(r *rundoc.Run) string { return r.Hardware.GPUNames() }

// RigName is the rig the run's server ran on (rundoc.Run.RigName), ""
// when not recorded.
func RigName(r *rundoc.Run) string { return r.RigName() }

// Rigs is each run's rig where the runs were not all on one rig, so a
// view that names runs by title alone can add "on ssh://box3090"; nil when
// they share one (or none is recorded). An unrecorded rig stays "".
func Rigs(runs []*rundoc.Run) []string {
	vals := make([]string, len(runs))
	for i, r := range runs {
		vals[i] = RigName(r)
	}
	if len(runs) < 2 || allEqual(vals) {
		return nil
	}
	return vals
}

// Engine is "vllm 0.32.0" or as much of it as the server reported.
func Engine(r *rundoc.Run) string {
	return strings.TrimSpace(r.Server.Engine + " " + r.Server.Version)
}

// Describe is a one-line summary of what a run measured: GPU · model ·
// engine, with "simulated" appended for demo-mode runs.
func Describe(r *rundoc.Run) string {
	var parts []string
	for _, p := range []string{GPUName(r), Model(r), Engine(r)} {
		if p != "" {
			parts = append(parts, p)
		}
	}
	if r.Simulated {
		parts = append(parts, "simulated")
	}
	return strings.Join(parts, " · ")
}

// RunLabels names each run of a comparison for legends: "A: name — what
// differs". With one run it is just the run's name.
func RunLabels(runs []*rundoc.Run) []string {
	diffs := Differences(runs)
	out := make([]string, len(runs))
	for i, r := range runs {
		name := RunName(r)
		if len(runs) == 1 {
			out[i] = name
			continue
		}
		out[i] = Letter(i) + ": " + name
		if len(diffs[i]) > 0 {
			out[i] += " — " + strings.Join(diffs[i], ", ")
		}
	}
	return out
}

// fact is one property compared between runs, e.g. the GPU.
type fact struct {
	name  string
	value func(*rundoc.Run) string
}

// facts are compared in this order, so a legend names the rig first:
// "A: qwen — ssh://box3090, NVIDIA GeForce RTX 3090" against the 4090 box.
var facts = []fact{
	{"rig", RigName},
	{"GPU", GPUName},
	{"model", Model},
	{"engine", Engine},
	{"image", func(r *rundoc.Run) string {
		if r.Launch == nil {
			return ""
		}
		return r.Launch.Image
	}},
	{"power limit", func(r *rundoc.Run) string {
		if r.Hardware == nil || len(r.Hardware.GPUs) == 0 || r.Hardware.GPUs[0].PowerLimitW == 0 {
			return ""
		}
		return fmt.Sprintf("%.0f W", r.Hardware.GPUs[0].PowerLimitW)
	}},
	{"windows", func(r *rundoc.Run) string {
		// Adaptive and fixed windows measure the same figure, but a
		// reader comparing runs should know which method each used.
		if l := r.Plan.WindowLabel(); l != "" {
			return l + " windows"
		}
		return ""
	}},
	{"window opening", func(r *rundoc.Run) string {
		// Windows opened at the first send count the ramp: their figures
		// read lower at long contexts × many streams (METHOD.md).
		return "windows open " + r.Plan.OpeningLabel()
	}},
	{"prompts", func(r *rundoc.Run) string {
		return r.Plan.PromptsLabel() + " prompts"
	}},
	{"server", func(r *rundoc.Run) string {
		// An imported file that does not say what served it is "not
		// known", never assumed real (rundoc.Run.ServerLabel).
		if l := r.ServerLabel(); l != rundoc.ServerNotKnown {
			return l
		}
		return "server " + rundoc.ServerNotKnown
	}},
}

// Differences lists, for each run, what sets it apart from the others: the
// facts (rig, GPU, model, engine, image, power limit, simulated) whose values
// are not all equal, then the `vllm serve` flags that differ, each written
// as this run has it ("--max-num-seqs=64", "--enforce-eager", "no
// --enable-prefix-caching"), or FlagsNotRecorded for a run without a
// launch record. With fewer than two runs every list is empty.
func Differences(runs []*rundoc.Run) [][]string {
	out := make([][]string, len(runs))
	if len(runs) < 2 {
		return out
	}
	for _, f := range facts {
		vals := make([]string, len(runs))
		for i, r := range runs {
			vals[i] = f.value(r)
		}
		if allEqual(vals) {
			continue
		}
		for i, v := range vals {
			if v != "" { // an unknown value says nothing worth a legend
				out[i] = append(out[i], v)
			}
		}
	}
	flags := make([]map[string]string, len(runs))
	var names []string
	recorded := make([]bool, len(runs))
	for i, r := range runs {
		if r.Launch != nil {
			flags[i], recorded[i] = ParseFlags(r.Launch.Args), true
		}
		for n := range flags[i] {
			if !slices.Contains(names, n) {
				names = append(names, n)
			}
		}
	}
	slices.Sort(names)
	for _, n := range names {
		vals := make([]string, len(runs))
		for i := range runs {
			v, ok := flags[i][n]
			switch {
			case !recorded[i]:
				vals[i] = "" // said once below, not as a missing flag each
			case !ok:
				vals[i] = "no " + n
			case v == "":
				vals[i] = n
			default:
				vals[i] = n + "=" + v
			}
		}
		if allEqual(vals) {
			continue
		}
		for i, v := range vals {
			if v != "" {
				out[i] = append(out[i], v)
			}
		}
	}
	// A run without a launch record (an imported CSV, an endpoint) has
	// flags nobody knows: "no --enable-prefix-caching" would claim it ran
	// without them.
	if len(names) > 0 {
		for i := range runs {
			if !recorded[i] {
				out[i] = append(out[i], FlagsNotRecorded)
			}
		}
	}
	return out
}

// FlagsNotRecorded is what a comparison says of a run whose `vllm serve`
// flags were not recorded, where the others' flags are compared.
const FlagsNotRecorded = "flags not recorded"

// ParseFlags reads a `vllm serve` argument list into flag → value, split
// as vLLM's argparse (and the launch form) split it (vllm.SplitOptions): a
// switch of the catalog takes no value, another flag the next word that is
// not itself a flag ("--max-num-seqs 64") or what follows '='; a bare flag
// has the value "". Positional words are ignored.
func ParseFlags(args []string) map[string]string {
	m := map[string]string{}
	for _, o := range vllm.SplitOptions(args, vllm.CatalogArity) {
		if o.Name != "" && o.Name != "--" {
			m[o.Name] = o.Value
		}
	}
	return m
}

func allEqual(vals []string) bool {
	for _, v := range vals[1:] {
		if v != vals[0] {
			return false
		}
	}
	return true
}

package tune

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Matches tells whether s continues the sweep whose spec was kept as
// kept: the same base flags, image and target, dimensions, mode, workload,
// objective and constraints. Otherwise the variants found finished in the
// history were measured under other conditions, and skipping them would
// mix two sweeps in one verdict; the error names the first difference.
func (s Spec) Matches(kept Spec) error {
	diff := func(what, was, now string) error {
		return fmt.Errorf("sweep %s was started with %s %s, and this command gives %s: repeat the sweep's own flags with --resume %s, give --resume %s alone, or start a new sweep without --resume",
			kept.ID, what, was, now, kept.ID, kept.ID)
	}
	if a, b := baseText(kept), baseText(s); a != b {
		return diff("the base flags", quote(a), quote(b))
	}
	if a, b := string(kept.Target)+simText(kept), string(s.Target)+simText(s); a != b {
		return diff("the target", quote(a), quote(b))
	}
	if a, b := dimsText(kept), dimsText(s); a != b || kept.Mode != s.Mode {
		return diff("what it varies,", quote(a+" ("+string(kept.Mode)+")"), quote(b+" ("+string(s.Mode)+")"))
	}
	if a, b := intsText(kept.Plan.Contexts), intsText(s.Plan.Contexts); a != b {
		return diff("the contexts", a, b)
	}
	if a, b := intsText(kept.Plan.Concurrency), intsText(s.Plan.Concurrency); a != b {
		return diff("the concurrency levels", a, b)
	}
	if a, b := jsonText(kept.Plan), jsonText(s.Plan); a != b {
		return diff("the workload", a, b)
	}
	if a, b := jsonText(kept.Objective)+jsonText(kept.Constraints), jsonText(s.Objective)+jsonText(s.Constraints); a != b {
		return diff("the objective and constraints", a, b)
	}
	if kept.Quality != s.Quality || kept.QualityDataset != s.QualityDataset {
		return diff("the quality probe", quote(kept.Quality+" "+kept.QualityDataset), quote(s.Quality+" "+s.QualityDataset))
	}
	return nil
}

// baseText is the base's flags without secrets, as the kept spec holds
// them, after the image and model for a launch.
func baseText(s Spec) string {
	b := s.Base.WithoutSecrets()
	flags := vllm.JoinArgs(b.Record().Args)
	if flags == "" {
		flags = "no flags"
	}
	if s.Target == TargetLaunch {
		return b.ImageRef() + " " + b.Model + " " + flags
	}
	return flags
}

func simText(s Spec) string {
	if s.Target != TargetDemo {
		return ""
	}
	return fmt.Sprintf(" (speed %g, profile %q)", s.SimSpeed, s.SimProfile)
}

func dimsText(s Spec) string {
	parts := make([]string, len(s.Dimensions))
	for i, d := range s.Dimensions {
		parts[i] = d.Text()
	}
	return strings.Join(parts, " ")
}

func intsText(v []int) string {
	parts := make([]string, len(v))
	for i, n := range v {
		parts[i] = rundoc.ContextLabel(n)
	}
	return strings.Join(parts, ",")
}

func jsonText(v any) string {
	b, _ := json.Marshal(v)
	return string(b)
}

func quote(s string) string { return "“" + s + "”" }

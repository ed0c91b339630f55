package tune

import (
	"encoding/json"
	"fmt"
	"strconv"
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
	// Where the variants ran is a condition too: another rig measures
	// other hardware, and over a cluster the base's interface decides
	// which kept run is "your flags" when the interface is varied.
	if a, b := placeText(kept), placeText(s); a != b {
		return diff("the rigs", quote(a), quote(b))
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

// placeText is where a sweep's variants run: this machine, a rig, or a
// cluster's rigs with its link and ports.
func placeText(s Spec) string {
	if c := s.Cluster; c != nil {
		t := strings.TrimSpace(c.Rigs)
		for _, part := range [][2]string{{"over", strings.TrimSpace(c.Interface)}, {"nodes", strings.TrimSpace(c.NodeIPs)},
			{"Ray port", portText(c.RayPort)}, {"serve port", portText(c.ServePort)}} {
			if part[1] != "" {
				t += " " + part[0] + " " + part[1]
			}
		}
		return t
	}
	if r := strings.TrimSpace(s.Rig); r != "" && r != "local" {
		return r
	}
	return "this machine"
}

// portText is a port given, "" for the default (0).
func portText(p int) string {
	if p == 0 {
		return ""
	}
	return strconv.Itoa(p)
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

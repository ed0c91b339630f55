package tune_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// A split is read however people write it, and refused in one sentence
// that says how to write it.
func TestParseSplit(t *testing.T) {
	for s, want := range map[string][2]int{"2x2": {2, 2}, "1X4": {1, 4}, "2×1": {2, 1}, "TP2xPP2": {2, 2}, " tp 4 × pp 2 ": {4, 2}} {
		tp, pp, err := tune.ParseSplit(s)
		if err != nil || tp != want[0] || pp != want[1] {
			t.Errorf("%q: TP %d PP %d %v, want %v", s, tp, pp, err, want)
		}
	}
	for _, bad := range []string{"", "2", "2x", "x2", "0x2", "2x0", "17x1", "-1x2", "2x2x2", "axb", "2.5x2"} {
		if _, _, err := tune.ParseSplit(bad); err == nil || !strings.Contains(err.Error(), "write TxP") {
			t.Errorf("%q: %v, want refused with how to write it", bad, err)
		}
	}
}

// split=… varies both parallel sizes together: the grid tries the splits
// asked for, not every TP with every PP, and each variant's launch has
// both flags; a split equal to the base's flags is the base.
func TestSplitVariesBothSizesTogether(t *testing.T) {
	base := vllm.LaunchConfig{Model: "m"}
	base.Set("--pipeline-parallel-size", "2")
	split := dim(t, "split=1x2,2x2,2×2")
	if strings.Join(split.Values, ",") != "1x2,2x2" || split.Flag != tune.SplitDimension || split.Text() != "split=1x2,2x2" {
		t.Fatalf("split dimension %+v (%s)", split, split.Text())
	}
	seqs := dim(t, "max-num-seqs=8,16")
	spec := tune.Spec{Base: base, Dimensions: []tune.Dimension{split, seqs}, Mode: tune.Grid}
	var labels []string
	for _, v := range spec.Variants() {
		labels = append(labels, v.Label())
	}
	want := "your flags|--max-num-seqs 8|--max-num-seqs 16|--tensor-parallel-size 2 --max-num-seqs 8|--tensor-parallel-size 2 --max-num-seqs 16"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("grid = %s\nwant   %s", got, want)
	}
	for _, v := range spec.Variants()[3:] {
		if tp, _ := v.Config.Get("--tensor-parallel-size"); tp != "2" {
			t.Errorf("%s launches with TP %q", v.Label(), tp)
		}
		if pp, _ := v.Config.Get("--pipeline-parallel-size"); pp != "2" {
			t.Errorf("%s launches with PP %q", v.Label(), pp)
		}
	}
	// From a base without parallel flags, 2x1 and 1x2 are two variants
	// with both of their sizes, never 2x2.
	spec = tune.Spec{Base: vllm.LaunchConfig{Model: "m"}, Dimensions: []tune.Dimension{dim(t, "split=2x1,1x2")}, Mode: tune.Grid}
	labels = nil
	for _, v := range spec.Variants() {
		labels = append(labels, v.Label())
		if v.Config.WorldSize() > 2 {
			t.Errorf("%s needs %d GPUs", v.Label(), v.Config.WorldSize())
		}
	}
	if got := strings.Join(labels, "|"); got != "your flags|--tensor-parallel-size 2|--pipeline-parallel-size 2" {
		t.Errorf("splits from the defaults = %s", got)
	}
}

// A flag split sets cannot also be varied alone, and an interface is
// varied only over a cluster; each refusal says what to do.
func TestJointDimensionsAreCheckedBeforeTheSweep(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	spec := tune.Spec{ID: tune.NewID(), Base: vllm.LaunchConfig{Model: "m"}, Mode: tune.Grid, Plan: plan, Objective: o, Target: tune.TargetLaunch,
		Dimensions: []tune.Dimension{dim(t, "split=1x2,2x2"), dim(t, "tensor-parallel-size=1,2")}}
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "--tensor-parallel-size is varied twice: split sets it") {
		t.Errorf("split and TP: %v", err)
	}
	spec.Dimensions = []tune.Dimension{dim(t, "interface=enp1s0,enp65s0f0")}
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "interface is varied only over several rigs (the CLI's --rigs") {
		t.Errorf("interface on one rig: %v", err)
	}
	spec.Cluster = &session.ClusterInput{Rigs: "head=ssh://a,ssh://b", Interface: "enp1s0"}
	if err := spec.Validate(); err != nil {
		t.Errorf("interface over two rigs: %v", err)
	}
	spec.Dimensions = []tune.Dimension{dim(t, "split=1x2,2x3")}
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "PP 3 is refused") || !strings.Contains(err.Error(), "the variant --tensor-parallel-size 2 --pipeline-parallel-size 3") {
		t.Errorf("split 2x3 over two rigs: %v", err)
	}
	for _, bad := range []string{"interface=en p1", "interface=a/b", "interface=averyveryverylongname0", "interface=", "split="} {
		if _, err := tune.ParseDimension(bad); err == nil {
			t.Errorf("%q accepted", bad)
		}
	}
}

// interface=… gives each variant its own link: the cluster's own
// interface is the base, each other value a variant labelled "over IF"
// whose launch (the sweep's target for it) sets that interface on the
// cluster, which its run records; the sweep's own cluster is unchanged.
func TestInterfaceVariantsLaunchOverTheirLink(t *testing.T) {
	c := &session.ClusterInput{Rigs: "head=ssh://a,ssh://b", Interface: "enp1s0", NodeIPs: "10.0.0.1,10.0.0.2"}
	spec := tune.Spec{Base: vllm.LaunchConfig{Model: "m"}, Cluster: c, Mode: tune.OneAtATime,
		Dimensions: []tune.Dimension{dim(t, "interface=enp1s0,enp65s0f0"), dim(t, "max-num-seqs=8")}}
	var labels []string
	for _, v := range spec.Variants() {
		labels = append(labels, v.Label())
	}
	if got := strings.Join(labels, "|"); got != "your flags|over enp65s0f0|--max-num-seqs 8" {
		t.Fatalf("variants = %s", got)
	}
	spec.Mode = tune.Grid
	labels = nil
	for _, v := range spec.Variants() {
		labels = append(labels, v.Label())
	}
	if got := strings.Join(labels, "|"); got != "your flags|--max-num-seqs 8|--max-num-seqs 8 over enp65s0f0" {
		t.Fatalf("grid = %s", got)
	}
	r := &tune.Runner{Spec: spec, Target: tune.Docker{Cluster: c}}
	for _, v := range spec.Variants() {
		d, ok := tune.TargetOf(r, v).(tune.Docker)
		want := "enp1s0"
		if v.Interface != "" {
			want = v.Interface
		}
		if !ok || d.Cluster == nil || d.Cluster.Interface != want || d.Cluster.Rigs != c.Rigs || d.Cluster.NodeIPs != c.NodeIPs {
			t.Errorf("%s launches over %+v, want the cluster over %s", v.Label(), d.Cluster, want)
		}
	}
	if c.Interface != "enp1s0" {
		t.Errorf("launching a variant changed the sweep's cluster to %s", c.Interface)
	}
}

// Over a cluster a split's GPUs are every rig's: the launch's own GPU pick
// (one container's) does not refuse PP 2 over two rigs.
func TestClusterSplitIsNotJudgedByOneContainersGPUs(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	base := vllm.LaunchConfig{Model: "m", GPUs: "1"}
	spec := tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.Grid, Plan: plan, Objective: o, Target: tune.TargetLaunch,
		Dimensions: []tune.Dimension{dim(t, "split=1x2")}}
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "needs 2 GPUs") {
		t.Errorf("PP 2 on one rig with 1 GPU picked: %v, want refused", err)
	}
	spec.Cluster = &session.ClusterInput{Rigs: "head=ssh://a,ssh://b"}
	if err := spec.Validate(); err != nil {
		t.Errorf("PP 2 over two rigs with 1 GPU picked: %v", err)
	}
}

// A resume over another interface (or other rigs) is refused: with the
// interface varied, the cluster's own interface decides which kept run is
// the base, so the kept runs would be taken for other variants.
func TestResumeOverAnotherLinkIsRefused(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	kept := tune.Spec{ID: "0a1b2c3d", Base: vllm.LaunchConfig{Model: "m"}, Mode: tune.Grid, Plan: plan, Objective: o, Target: tune.TargetLaunch,
		Dimensions: []tune.Dimension{dim(t, "interface=lo,eth0")}, Cluster: &session.ClusterInput{Rigs: "head=ssh://a,ssh://b", Interface: "lo"}}
	again := kept
	c := *kept.Cluster
	again.Cluster = &c
	if err := again.Matches(kept); err != nil {
		t.Fatalf("the same sweep: %v", err)
	}
	c.Interface = "eth0"
	if err := again.Matches(kept); err == nil || !strings.Contains(err.Error(), "was started with the rigs “head=ssh://a,ssh://b over lo”, and this command gives “head=ssh://a,ssh://b over eth0”") {
		t.Errorf("resumed over eth0: %v", err)
	}
	again.Cluster = nil
	if err := again.Matches(kept); err == nil || !strings.Contains(err.Error(), "“this machine”") {
		t.Errorf("resumed on this machine: %v", err)
	}
	one, other := kept, kept
	one.Cluster, other.Cluster = nil, nil
	one.Dimensions, other.Dimensions = []tune.Dimension{dim(t, "max-num-seqs=8")}, []tune.Dimension{dim(t, "max-num-seqs=8")}
	one.Rig, other.Rig = "", "local"
	if err := other.Matches(one); err != nil {
		t.Errorf("local and this machine: %v", err)
	}
	other.Rig = "ssh://me@box"
	if err := other.Matches(one); err == nil || !strings.Contains(err.Error(), "ssh://me@box") {
		t.Errorf("resumed on another rig: %v", err)
	}
}

package tune_test

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

func TestParseDimension(t *testing.T) {
	for _, s := range []string{"kv-cache-dtype=auto,fp8", "--kv-cache-dtype=auto,fp8", " kv-cache-dtype = auto , fp8 ,fp8"} {
		d, err := tune.ParseDimension(s)
		if err != nil || d.Flag != "--kv-cache-dtype" || strings.Join(d.Values, ",") != "auto,fp8" {
			t.Errorf("%q: %+v %v", s, d, err)
		}
	}
	d, err := tune.ParseDimension("enable-prefix-caching=on,off")
	if err != nil || strings.Join(d.Values, ",") != "true,false" {
		t.Errorf("booleans: %+v %v", d, err)
	}
	d, err = tune.ParseDimension("-tp=1,2") // the alias of --tensor-parallel-size
	if err != nil || d.Flag != "--tensor-parallel-size" {
		t.Errorf("alias: %+v %v", d, err)
	}
	for _, bad := range []string{"kv-cache-dtype", "kv-cache-dtype=", "kv-cache-dtype=int3", "max-num-seqs=0,x",
		"api-key=a,b", "port=1,2", "model=a,b", "enable-prefix-caching=maybe", "no-such-flag=1", "=1,2",
		"served-model-name=a,b"} {
		if _, err := tune.ParseDimension(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestVariants(t *testing.T) {
	base := vllm.LaunchConfig{Model: "m"}
	base.Set("--max-num-seqs", "64")
	kv, _ := tune.ParseDimension("kv-cache-dtype=auto,fp8")
	seqs, _ := tune.ParseDimension("max-num-seqs=16,64")
	spec := tune.Spec{Base: base, Dimensions: []tune.Dimension{kv, seqs}, Mode: tune.Grid}
	var labels []string
	for i, v := range spec.Variants() {
		if v.Index != i {
			t.Errorf("variant %d has index %d", i, v.Index)
		}
		labels = append(labels, v.Label())
	}
	// auto is vLLM's default and 64 the base's own value: the grid's
	// (auto, 64) is the base, listed once, first.
	want := "your flags|--max-num-seqs 16|--kv-cache-dtype fp8 --max-num-seqs 16|--kv-cache-dtype fp8"
	if got := strings.Join(labels, "|"); got != want {
		t.Errorf("grid = %s, want %s", got, want)
	}
	v := spec.Variants()[2]
	if s, _ := v.Config.Get("--max-num-seqs"); s != "16" {
		t.Errorf("variant config %+v", v.Config.Flags)
	}
	if s, _ := spec.Base.Get("--max-num-seqs"); s != "64" {
		t.Error("building variants changed the base")
	}
	spec.Mode = tune.OneAtATime
	labels = nil
	for _, v := range spec.Variants() {
		labels = append(labels, v.Label())
	}
	if got := strings.Join(labels, "|"); got != "your flags|--kv-cache-dtype fp8|--max-num-seqs 16" {
		t.Errorf("one-at-a-time = %s", got)
	}
	pc, _ := tune.ParseDimension("enable-prefix-caching=off")
	spec.Dimensions = []tune.Dimension{pc}
	if vs := spec.Variants(); len(vs) != 2 || vs[1].Label() != "--no-enable-prefix-caching" {
		t.Errorf("boolean variant %v", vs)
	}
}

func TestParseObjective(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 8}}
	for in, want := range map[string]string{
		"total-tok-s@16Kx8":       "total-tok-s@16Kx8",
		"total_tok_s@16K×8":       "total-tok-s@16Kx8",
		"per-request-tok-s@0x1":   "per-request-tok-s@0x1",
		"ttft-p90":                "ttft-p90@16Kx8",
		"longest-context@20":      "longest-context@20",
		"most-streams@16K:2s":     "most-streams@16K:2s",
		"most-streams@16K:1500ms": "most-streams@16K:1.5s",
		"j-per-token":             "j-per-token",
	} {
		o, err := tune.ParseObjective(in, plan)
		if err != nil || o.String() != want {
			t.Errorf("%q → %q %v, want %q", in, o.String(), err, want)
			continue
		}
		if back, err := tune.ParseObjective(o.String(), plan); err != nil || back != o {
			t.Errorf("%q does not read back: %+v %v", o.String(), back, err)
		}
	}
	for _, bad := range []string{"", "fastest", "total-tok-s@32Kx8", "total-tok-s@16K", "longest-context", "most-streams@16K",
		"most-streams@64K:2s", "j-per-token@1", "longest-context@-3"} {
		if _, err := tune.ParseObjective(bad, plan); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestParseConstraint(t *testing.T) {
	k, err := tune.ParseConstraint("ttft_p90<=2s")
	if err != nil || k.Figure != "ttft_p90" || k.Op != "<=" || k.Value != 2000 || k.String() != "ttft_p90<=2s" {
		t.Errorf("%+v %v", k, err)
	}
	k, err = tune.ParseConstraint("per-request-tok-s>=20")
	if err != nil || !k.Holds(&rundoc.Cell{PerRequestTokS: 20}) || k.Holds(&rundoc.Cell{PerRequestTokS: 19.9}) {
		t.Errorf("%+v %v", k, err)
	}
	for _, bad := range []string{"ttft_p90", "speed>=3", "ttft<=soon", "tbt<=-1ms", "total_tok_s>=NaN"} {
		if _, err := tune.ParseConstraint(bad); err == nil {
			t.Errorf("%q was accepted", bad)
		}
	}
}

func TestSuggestions(t *testing.T) {
	if s := vllm.Suggestions("kv-cache-dtype"); len(s) != 0 {
		t.Errorf("a name without dashes is not a spelling: %v", s)
	}
	for name, want := range map[string]string{
		"--kv-cache-dtype": "auto,fp8", "--max-num-seqs": "16,32,64,128", "--enable-prefix-caching": "true,false",
		"-tp": "1,2", "--scheduling-policy": "fcfs,priority", "--api-key": "",
	} {
		if got := strings.Join(vllm.Suggestions(name), ","); got != want {
			t.Errorf("%s: %q, want %q", name, got, want)
		}
		// Every suggestion is a value the sweep accepts.
		if s := vllm.Suggestions(name); len(s) > 0 {
			if _, err := tune.NewDimension(name, s); err != nil {
				t.Errorf("%s suggestions refused: %v", name, err)
			}
		}
	}
}

func FuzzParseDimension(f *testing.F) {
	for _, s := range []string{"kv-cache-dtype=auto,fp8", "--max-num-seqs=16,32", "enable-prefix-caching=on,off", "=", "x=1"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		d, err := tune.ParseDimension(s)
		if err != nil {
			return
		}
		if len(d.Values) == 0 || !strings.HasPrefix(d.Flag, "--") {
			t.Fatalf("%q → %+v", s, d)
		}
		spec := tune.Spec{Dimensions: []tune.Dimension{d}, Mode: tune.Grid}
		if vs := spec.Variants(); len(vs) == 0 || len(vs) > len(d.Values)+1 {
			t.Fatalf("%q: %d variants", s, len(vs))
		}
	})
}

func FuzzParseObjective(f *testing.F) {
	for _, s := range []string{"total-tok-s@16Kx8", "most-streams@16K:2s", "longest-context@20", "ttft-p90@0×1", "@", "x@1x1"} {
		f.Add(s)
	}
	plan := rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 8}}
	f.Fuzz(func(t *testing.T, s string) {
		o, err := tune.ParseObjective(s, plan)
		if err != nil {
			return
		}
		back, err := tune.ParseObjective(o.String(), plan)
		if err != nil || back != o {
			t.Fatalf("%q → %q → %+v %v", s, o.String(), back, err)
		}
	})
}

func FuzzParseConstraint(f *testing.F) {
	for _, s := range []string{"ttft_p90<=2s", "per_request_tok_s>=20", "tbt<50ms", "<="} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		k, err := tune.ParseConstraint(s)
		if err != nil {
			return
		}
		if back, err := tune.ParseConstraint(k.String()); err != nil || back.Figure != k.Figure || back.Op != k.Op {
			t.Fatalf("%q → %q → %+v %v", s, k.String(), back, err)
		}
	})
}

func FuzzReadDoc(f *testing.F) {
	f.Add(`{"schema":"rigbench.tune/v1","variants":[{"flags":[],"status":"measured","cells":[]}],"best":0}`)
	f.Add(`{"schema":"rigbench.tune/v1","variants":[],"best":3}`)
	f.Add(`{}`)
	f.Fuzz(func(t *testing.T, s string) {
		d, err := tune.ReadDoc(strings.NewReader(s))
		if err != nil {
			return
		}
		// Whatever reads back renders without panicking.
		var b bytes.Buffer
		if err := d.Markdown(&b); err != nil {
			t.Fatal(err)
		}
		if err := d.HTML(&b); err != nil {
			t.Fatal(err)
		}
		d.Table()
	})
}

func TestSpecFileKeepsNoSecrets(t *testing.T) {
	dir := t.TempDir()
	base := vllm.LaunchConfig{Model: "m", Image: "vllm/vllm-openai", Tag: "v0.11.0", HFToken: "hf_secret_token", TokenSource: vllm.TokenInline,
		Extra: []string{"--hf-token", "hf_other_secret", "--speed", "50"}}
	base.Set("--api-key", "sk-secret-key")
	base.Set("--max-num-seqs", "64")
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	spec := tune.Spec{ID: tune.NewID(), Base: base, Mode: tune.Grid, Plan: plan, Objective: o, Target: tune.TargetLaunch,
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8")}, Rig: "ssh://me@basement:2222"}
	if err := tune.SaveSpec(dir, spec); err != nil {
		t.Fatal(err)
	}
	data, err := os.ReadFile(filepath.Join(dir, spec.ID+".json"))
	if err != nil {
		t.Fatal(err)
	}
	for _, secret := range []string{"hf_secret_token", "hf_other_secret", "sk-secret-key"} {
		if strings.Contains(string(data), secret) {
			t.Errorf("the spec file holds %s", secret)
		}
	}
	back, err := tune.LoadSpec(dir, spec.ID)
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := back.Base.Get("--max-num-seqs"); v != "64" || strings.Join(back.Base.Extra, " ") != "--speed 50" ||
		back.Target != tune.TargetLaunch || len(back.Variants()) != len(spec.Variants()) || back.Rig != spec.Rig {
		t.Errorf("read back %+v", back)
	}
	latest, _, ok := tune.LatestSpec(dir)
	if !ok || latest.ID != spec.ID {
		t.Errorf("latest %q %v", latest.ID, ok)
	}
	if _, err := tune.LoadSpec(dir, "../../x"); err == nil {
		t.Error("a path as an id was accepted")
	}
	if _, err := tune.LoadSpec(dir, "0000ffff"); err == nil || !strings.Contains(err.Error(), "no sweep 0000ffff") {
		t.Errorf("a missing sweep: %v", err)
	}
}

// A hand-edited spec is checked against the flag catalog as --vary is: a
// dimension on a secret or unknown flag, or a value the catalog refuses,
// is refused on resume, so a key can never reach the variants' run names.
func TestResumedSpecIsCheckedAgainstTheCatalog(t *testing.T) {
	dir := t.TempDir()
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	for _, d := range []tune.Dimension{
		{Flag: "--api-key", Values: []string{"sk-SECRETKEY", "b"}},
		{Flag: "--no-such-flag", Values: []string{"1", "2"}},
		{Flag: "--max-num-seqs", Values: []string{"-3", "8"}},
	} {
		spec := tune.Spec{ID: tune.NewID(), Base: vllm.LaunchConfig{Model: "m"}, Mode: tune.Grid, Plan: plan, Objective: o,
			Target: tune.TargetDemo, Dimensions: []tune.Dimension{d}}
		data, _ := json.Marshal(spec)
		if err := os.WriteFile(filepath.Join(dir, spec.ID+".json"), data, 0o600); err != nil {
			t.Fatal(err)
		}
		if _, err := tune.LoadSpec(dir, spec.ID); err == nil || !strings.Contains(err.Error(), d.Flag) {
			t.Errorf("a spec varying %s %v: %v, want a refusal naming the flag", d.Flag, d.Values, err)
		}
	}
}

// A sweep is bounded: more variants than MaxVariants is refused with a
// sentence naming the cap and the count, found by arithmetic (10⁸ here),
// never by building the grid.
func TestSpecCapsTheVariantCount(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	many := func(from int) []string {
		out := make([]string, 10000)
		for i := range out {
			out[i] = strconv.Itoa(from + i)
		}
		return out
	}
	spec := tune.Spec{ID: tune.NewID(), Base: vllm.LaunchConfig{Model: "m"}, Mode: tune.Grid, Plan: plan, Objective: o, Target: tune.TargetDemo,
		Dimensions: []tune.Dimension{{Flag: "--max-model-len", Values: many(1024)}, {Flag: "--max-num-batched-tokens", Values: many(2048)}}}
	err := spec.Validate()
	if err == nil || !strings.Contains(err.Error(), strconv.Itoa(tune.MaxVariants)) || !strings.Contains(err.Error(), "100000000") {
		t.Fatalf("Validate: %v; want a refusal naming the cap %d and the count", err, tune.MaxVariants)
	}
	spec.Mode = tune.OneAtATime // 20,000 variants, still too many
	if err := spec.Validate(); err == nil {
		t.Errorf("one-at-a-time with 20000 variants was accepted")
	}
	spec.Dimensions = []tune.Dimension{{Flag: "--max-num-seqs", Values: many(1)[:tune.MaxVariants-1]}}
	if err := spec.Validate(); err != nil {
		t.Errorf("a sweep of %d variants was refused: %v", tune.MaxVariants, err)
	}
}

// A sweep's rig must be an address rig.Parse reads, and only a launch
// sweep runs on one: the simulator runs in process here (issue 25).
func TestSpecRig(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	spec := tune.Spec{ID: tune.NewID(), Base: vllm.LaunchConfig{Model: "m"}, Mode: tune.Grid, Plan: plan, Objective: o, Target: tune.TargetLaunch,
		Dimensions: []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8")}}
	for rig, on := range map[string]bool{"": false, "local": false, "ssh://me@box": true, "gpu-box": true} {
		spec.Rig = rig
		if err := spec.Validate(); err != nil || spec.OnRig() != on {
			t.Errorf("rig %q: Validate %v, OnRig %v; want valid, OnRig %v", rig, err, spec.OnRig(), on)
		}
	}
	spec.Rig = "tcp://box:2375"
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "scheme") {
		t.Errorf("rig tcp://box:2375: Validate %v, want the scheme refused", err)
	}
	spec.Rig, spec.Target = "ssh://me@box", tune.TargetDemo
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "only a launch sweep runs on a rig") {
		t.Errorf("a demo sweep on a rig: Validate %v", err)
	}

	// A sweep over several rigs: read per variant on every rig, launched
	// by the cluster's own launcher (no one rig for the front end to
	// connect), and only as a launch without a single rig.
	spec.Rig, spec.Target = "", tune.TargetLaunch
	spec.Cluster = &session.ClusterInput{Rigs: "head=ssh://a,ssh://b", Interface: "enp1s0"}
	if err := spec.Validate(); err != nil || !spec.OnRig() || spec.OneRig() {
		t.Errorf("a cluster sweep: Validate %v, OnRig %v, OneRig %v; want valid, read on the rigs, no one rig", err, spec.OnRig(), spec.OneRig())
	}
	spec.Dimensions = []tune.Dimension{dim(t, "pipeline-parallel-size=2,3")}
	if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "PP 3 is refused: a cluster runs one pipeline stage a rig, so PP is its 2 rigs") ||
		!strings.Contains(err.Error(), "pipeline-parallel-size 3") {
		t.Errorf("PP 3 over 2 rigs: Validate %v; want the variant named and engine/cluster's sentence", err)
	}
	spec.Dimensions = []tune.Dimension{dim(t, "kv-cache-dtype=auto,fp8")}
	for _, bad := range []func(){func() { spec.Target = tune.TargetDemo }, func() { spec.Rig = "ssh://me@box" }} {
		spec.Rig, spec.Target = "", tune.TargetLaunch
		bad()
		if err := spec.Validate(); err == nil || !strings.Contains(err.Error(), "only a launch sweep does, and without a single --rig") {
			t.Errorf("cluster sweep on %s %q: Validate %v", spec.Target, spec.Rig, err)
		}
	}
}

// A spec over MaxDocBytes is refused naming the limit, not as "EOF".
func TestLoadSpecNamesTheSizeLimit(t *testing.T) {
	dir := t.TempDir()
	const id = "0123abcd"
	f, err := os.Create(filepath.Join(dir, id+".json"))
	if err != nil {
		t.Fatal(err)
	}
	f.WriteString(`{"sweep_id":"0123abcd","notes":"`)
	f.Truncate(tune.MaxDocBytes + 1) // sparse: cheap to make
	f.Close()
	if _, err := tune.LoadSpec(dir, id); err == nil || !strings.Contains(err.Error(), "16 MiB") {
		t.Errorf("LoadSpec of a 16 MiB+1 spec: %v, want the limit named", err)
	}
}

// A label with a newline or an escape (a hand-edited sweep document) stays
// on its row of the table, escaped, in every rendering and on the terminal.
func TestSweepTableLabelsStayOnOneLine(t *testing.T) {
	d := &tune.Doc{SweepID: "0123abcd", Plan: rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{1}},
		Variants: []tune.DocVariant{{Label: "your flags", Status: tune.Measured}, {Label: "--x 1\n--y \x1b[2J2", Status: tune.Measured}}}
	_, rows := d.Table()
	for _, r := range rows {
		for _, c := range r {
			if strings.ContainsAny(c, "\n\x1b") {
				t.Errorf("table cell %q holds a newline or ESC", c)
			}
		}
	}
	var b strings.Builder
	if err := d.Text(&b); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "\x1b") || strings.Contains(b.String(), "\n--y") {
		t.Errorf("Text:\n%s", b.String())
	}
}

// TestNewRunner: the one constructor both front ends call builds the
// demo's simulator from the spec's profile and speed, and a Docker target
// whose estimate shortens by the simulator image's --speed.
func TestNewRunner(t *testing.T) {
	spec := tune.Spec{ID: "0123abcd", Target: tune.TargetDemo, SimProfile: "tiny", SimSpeed: 20}
	r, err := tune.NewRunner(spec, session.Launching{})
	if err != nil {
		t.Fatal(err)
	}
	d, ok := r.Target.(tune.Demo)
	if !ok || d.Sim.Profile.Name != "tiny" || d.Speed() != 20 {
		t.Fatalf("demo target %+v", r.Target)
	}
	spec = tune.Spec{ID: "0123abcd", Target: tune.TargetLaunch, Base: vllm.LaunchConfig{Model: "sim/tiny", Extra: []string{"--profile", "tiny", "--speed", "10"}}}
	r, err = tune.NewRunner(spec, session.Launching{})
	if err != nil {
		t.Fatal(err)
	}
	if r.Target.Speed() != 10 {
		t.Fatalf("launch of the simulator image at --speed 10: speed %v", r.Target.Speed())
	}
	if tune.SimImageSpeed(vllm.LaunchConfig{Extra: []string{"--speed", "+Inf"}}) != 1 || tune.SimImageSpeed(vllm.LaunchConfig{}) != 1 {
		t.Error("SimImageSpeed of no or a silly --speed")
	}
	if _, err := tune.NewRunner(tune.Spec{ID: "0123abcd", Target: "endpoint"}, session.Launching{}); err == nil {
		t.Error("a sweep on an endpoint was built")
	}
	if _, err := tune.NewRunner(tune.Spec{ID: "0123abcd", Target: tune.TargetDemo, SimProfile: "nope"}, session.Launching{}); err == nil {
		t.Error("an unknown profile was accepted")
	}
}

// TestSweepEstimateHonoursTheKVOverride: a sweep's estimate predicts its
// cells by the run's own rule (session.Estimate), so a KV capacity the
// user gives leaves out the cells it cannot hold, as a run's estimate does.
func TestSweepEstimateHonoursTheKVOverride(t *testing.T) {
	spec := demoSpec(t)
	spec.Target, spec.SimSpeed = tune.TargetDemo, 50
	r, err := tune.NewRunner(spec, session.Launching{})
	if err != nil {
		t.Fatal(err)
	}
	whole := r.EstimateSweep()
	spec.Plan.KVCapacityOverride = 20000 // holds 1K×16, not 16K×16
	r, err = tune.NewRunner(spec, session.Launching{})
	if err != nil {
		t.Fatal(err)
	}
	if short := r.EstimateSweep(); !(short < whole) {
		t.Errorf("estimate with 16K×16 over the KV override %v, without %v: want it shorter", short, whole)
	}
}

// Tensor and pipeline parallel sizes are varied where the GPUs allow:
// a variant needing more GPUs than the launch picks (or the demo's
// profile has) is refused before anything starts, naming it.
func TestSpecVariesParallelismWithinTheGPUs(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{4}, DurationS: 30, MaxOutput: 64}
	o, _ := tune.ParseObjective("total-tok-s", plan)
	for _, c := range []struct {
		name    string
		target  session.Kind
		gpus    string
		profile string
		vary    []string
		refused string // "" = accepted
	}{
		{"two picked, TP 1 and 2", tune.TargetLaunch, "0,1", "", []string{"tensor-parallel-size=1,2"}, ""},
		{"two picked, TP 4", tune.TargetLaunch, "0,1", "", []string{"tensor-parallel-size=2,4"}, "--tensor-parallel-size 4"},
		{"two picked, TP × PP", tune.TargetLaunch, "0,1", "", []string{"tensor-parallel-size=1,2", "pipeline-parallel-size=1,2"},
			"--tensor-parallel-size 2 --pipeline-parallel-size 2"},
		{"all: the rig's count", tune.TargetLaunch, "all", "", []string{"tensor-parallel-size=2,8"}, ""},
		{"demo on two cards", tune.TargetDemo, "", "rtx3060-12gb-x2", []string{"tensor-parallel-size=1,2", "pipeline-parallel-size=1,2"},
			"--tensor-parallel-size 2 --pipeline-parallel-size 2"},
		{"demo on one card", tune.TargetDemo, "", "rtx3060-12gb", []string{"tensor-parallel-size=1,2"}, "--tensor-parallel-size 2"},
	} {
		var dims []tune.Dimension
		for _, v := range c.vary {
			dims = append(dims, dim(t, v))
		}
		spec := tune.Spec{ID: tune.NewID(), Base: vllm.LaunchConfig{Model: "m", GPUs: c.gpus}, Mode: tune.Grid, Plan: plan, Objective: o,
			Target: c.target, SimProfile: c.profile, Dimensions: dims}
		err := spec.Validate()
		switch {
		case c.refused == "" && err != nil:
			t.Errorf("%s: refused: %v", c.name, err)
		case c.refused != "" && (err == nil || !strings.Contains(err.Error(), c.refused) || !strings.Contains(err.Error(), "GPUs")):
			t.Errorf("%s: %v, want a refusal naming %q", c.name, err, c.refused)
		}
	}
}

// TestDimensionValuesThatLaunchTheSameServer: `--vary X=1,01` measured the
// same launch twice (issue 36 item 10). Values the flag reads alike are one
// value, the first spelling kept.
func TestDimensionValuesThatLaunchTheSameServer(t *testing.T) {
	for in, want := range map[string][]string{
		"max-num-seqs=1,1,01,2":              {"1", "2"},
		"gpu-memory-utilization=0.9,0.90,.9": {"0.9"},
		"enable-prefix-caching=on,true,off":  {"true", "false"},
	} {
		d, err := tune.ParseDimension(in)
		if err != nil || !slices.Equal(d.Values, want) {
			t.Errorf("ParseDimension(%q) = %v, %v; want %v", in, d.Values, err, want)
		}
	}
}

// TestObjectiveChoicesParse holds the app's Objective choices to the
// reader: each parses on the Tune form's default workload (1K,16K × 8,32),
// one per kind, and reads back as itself.
func TestObjectiveChoicesParse(t *testing.T) {
	plan := rundoc.Plan{Contexts: []int{1024, 16384}, Concurrency: []int{8, 32}}
	kinds := map[tune.ObjectiveKind]bool{}
	for _, c := range tune.ObjectiveChoices {
		o, err := tune.ParseObjective(c, plan)
		if err != nil {
			t.Errorf("choice %q: %v", c, err)
			continue
		}
		kinds[o.Kind] = true
		if again, err := tune.ParseObjective(o.String(), plan); err != nil || again != o {
			t.Errorf("choice %q reads back as %q: %+v, %v", c, o.String(), again, err)
		}
	}
	if len(kinds) != len(tune.ObjectiveNames) {
		t.Errorf("the choices cover %d objectives, the help names %d", len(kinds), len(tune.ObjectiveNames))
	}
}

// SweepOf finds a run's sweep among its tags, and ignores a tag that only
// looks like one.
func TestSweepOf(t *testing.T) {
	for _, tc := range []struct {
		tags []string
		id   string
		ok   bool
	}{
		{nil, "", false},
		{[]string{"mine", tune.Tag("0a1b2c3d")}, "0a1b2c3d", true},
		{[]string{"sweep:../../etc"}, "", false},
		{[]string{"sweep:"}, "", false},
	} {
		if id, ok := tune.SweepOf(tc.tags); id != tc.id || ok != tc.ok {
			t.Errorf("SweepOf(%q) = %q, %v, want %q, %v", tc.tags, id, ok, tc.id, tc.ok)
		}
	}
}

// MarkFinished and Finished: a sweep is finished only once marked, and an
// id that is not a sweep's is refused.
func TestMarkFinished(t *testing.T) {
	dir := t.TempDir()
	if tune.Finished(dir, "0a1b2c3d") {
		t.Fatal("finished before it was marked")
	}
	if err := tune.MarkFinished(dir, "0a1b2c3d"); err != nil {
		t.Fatal(err)
	}
	if !tune.Finished(dir, "0a1b2c3d") || tune.Finished(dir, "ffffffff") {
		t.Error("Finished does not follow MarkFinished")
	}
	if err := tune.MarkFinished(dir, "../x"); err == nil {
		t.Error("MarkFinished took an id that is not a sweep's")
	}
}

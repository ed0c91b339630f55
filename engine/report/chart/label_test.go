package chart_test

import (
	"reflect"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

func TestDifferencesNameWhatDiffers(t *testing.T) {
	mk := func(gpu string, args ...string) *rundoc.Run {
		return &rundoc.Run{
			Server:   rundoc.Server{Model: "m", Engine: "vllm", Version: "0.32.0"},
			Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{Name: gpu}}},
			Launch:   &rundoc.Launch{Model: "m", Args: args},
		}
	}
	runs := []*rundoc.Run{
		mk("RTX 3060", "--max-num-seqs", "32", "--gpu-memory-utilization=0.9"),
		mk("RTX 3060", "--max-num-seqs", "64", "--gpu-memory-utilization=0.9", "--enforce-eager"),
		mk("RTX 3090", "--max-num-seqs", "64", "--gpu-memory-utilization=0.9"),
	}
	got := chart.Differences(runs)
	want := [][]string{
		{"RTX 3060", "no --enforce-eager", "--max-num-seqs=32"},
		{"RTX 3060", "--enforce-eager", "--max-num-seqs=64"},
		{"RTX 3090", "no --enforce-eager", "--max-num-seqs=64"},
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("Differences = %q, want %q", got, want)
	}
	labels := chart.RunLabels(runs)
	if !strings.HasPrefix(labels[1], "B: m — RTX 3060, --enforce-eager") {
		t.Errorf("label B = %q", labels[1])
	}
	if d := chart.Differences(runs[:1]); len(d[0]) != 0 {
		t.Errorf("one run has no differences, got %q", d)
	}
}

// Issue 25: runs of one model on two boxes are told apart by rig first,
// "the 3090 box vs the 4090 box"; runs on one rig are not labelled by it.
func TestDifferencesNameTheRigFirst(t *testing.T) {
	mk := func(rig, gpu string) *rundoc.Run {
		r := &rundoc.Run{Server: rundoc.Server{Model: "m"}, Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{Name: gpu}}}}
		if rig != "" {
			r.Rig = &rundoc.Rig{Kind: rundoc.RigSSH, Name: rig}
		}
		return r
	}
	runs := []*rundoc.Run{mk("ssh://box3090", "RTX 3090"), mk("ssh://box4090", "RTX 4090")}
	labels := chart.RunLabels(runs)
	if want := []string{"A: m — ssh://box3090, RTX 3090", "B: m — ssh://box4090, RTX 4090"}; !reflect.DeepEqual(labels, want) {
		t.Errorf("labels = %q, want %q", labels, want)
	}
	if got, want := chart.Rigs(runs), []string{"ssh://box3090", "ssh://box4090"}; !reflect.DeepEqual(got, want) {
		t.Errorf("Rigs = %q, want %q", got, want)
	}
	same := []*rundoc.Run{mk("ssh://box3090", "RTX 3090"), mk("ssh://box3090", "RTX 3090")}
	if got := chart.Rigs(same); got != nil {
		t.Errorf("Rigs of runs on one rig = %q, want none", got)
	}
	if d := chart.Differences(same); len(d[0]) != 0 || len(d[1]) != 0 {
		t.Errorf("runs on one rig differ by %q", d)
	}
	if got := chart.Rigs([]*rundoc.Run{mk("", "RTX 3090"), mk("local", "RTX 3090")}); !reflect.DeepEqual(got, []string{"", "local"}) {
		t.Errorf("Rigs with one unrecorded = %q", got)
	}
}

// Issue 24 item 10: a run without a launch record (an imported CSV) is
// "flags not recorded", not a list of flags it supposedly ran without.
func TestDifferencesFlagsNotRecorded(t *testing.T) {
	launched := &rundoc.Run{Server: rundoc.Server{Model: "m"}, Launch: &rundoc.Launch{Model: "m",
		Args: []string{"--enable-prefix-caching", "--gpu-memory-utilization", "0.9"}}}
	imported := &rundoc.Run{Server: rundoc.Server{Model: "m"}}
	d := chart.Differences([]*rundoc.Run{imported, launched})
	if !reflect.DeepEqual(d[0], []string{chart.FlagsNotRecorded}) {
		t.Errorf("the imported run's differences %q, want only %q", d[0], chart.FlagsNotRecorded)
	}
	for _, x := range d[0] {
		if strings.HasPrefix(x, "no --") {
			t.Errorf("the imported run is said to run %q", x)
		}
	}
	if !reflect.DeepEqual(d[1], []string{"--enable-prefix-caching", "--gpu-memory-utilization=0.9"}) {
		t.Errorf("the launched run's differences %q", d[1])
	}
}

func TestParseFlags(t *testing.T) {
	got := chart.ParseFlags([]string{"--a", "1", "--b=2", "--c", "--d", "-1", "pos"})
	want := map[string]string{"--a": "1", "--b": "2", "--c": "", "--d": "-1"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("ParseFlags = %v, want %v", got, want)
	}
}

func TestRampEndsAndContrast(t *testing.T) {
	if c := chart.Ramp(0); c.R != 0x44 || c.G != 0x01 || c.B != 0x54 {
		t.Errorf("Ramp(0) = %v, want viridis start #440154", c)
	}
	if c := chart.Ramp(1); c.R != 0xfd || c.G != 0xe7 || c.B != 0x25 {
		t.Errorf("Ramp(1) = %v, want viridis end #fde725", c)
	}
	if c := chart.Ramp(-3); c != chart.Ramp(0) {
		t.Error("Ramp does not clamp below 0")
	}
}

// FuzzParseFlags: argument lists come from imported run files.
func FuzzParseFlags(f *testing.F) {
	f.Add("--max-num-seqs\x0064\x00--enforce-eager")
	f.Add("--a=b\x00-1\x00--\x00-")
	f.Fuzz(func(t *testing.T, joined string) {
		args := strings.Split(joined, "\x00")
		m := chart.ParseFlags(args)
		for k := range m {
			if !strings.HasPrefix(k, "-") {
				t.Fatalf("flag name %q does not start with -", k)
			}
		}
		runs := []*rundoc.Run{{Launch: &rundoc.Launch{Args: args}}, {}}
		d := chart.Differences(runs)
		if len(d) != 2 {
			t.Fatalf("Differences returned %d lists for 2 runs", len(d))
		}
	})
}

// Issue 24 item 14: the matrix picture of a demo run says SIMULATED where
// a long name cannot push it out, and each cell's figure carries its ±.
func TestMatrixChartSaysSimulatedWithCI(t *testing.T) {
	r := &rundoc.Run{Simulated: true, Name: strings.Repeat("long name ", 20), Server: rundoc.Server{Model: "m"},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 2199.6, TotalTokSCI95: 12.3, TTFTMs: 81}}}
	var b strings.Builder
	if err := chart.Render(&b, chart.Matrix, []*rundoc.Run{r}, chart.Options{Format: chart.SVG}); err != nil {
		t.Fatal(err)
	}
	svg := b.String()
	if !strings.Contains(svg, "SIMULATED") {
		t.Error("the matrix chart of a simulated run does not say so")
	}
	if !strings.Contains(svg, "2199.6 ± 12.3") {
		t.Error("the matrix cell has no ±")
	}
}

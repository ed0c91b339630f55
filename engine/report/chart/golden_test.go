package chart_test

import (
	"bytes"
	"flag"
	"image/png"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

var update = flag.Bool("update", false, "rewrite the golden files under engine/report/testdata/")

// TestSVGGolden pins the SVG of the reference run's charts and of a
// comparison: SVG output must be byte-for-byte deterministic.
func TestSVGGolden(t *testing.T) {
	ref := referenceRun(t)
	cases := []struct {
		file string
		kind chart.Kind
		runs []*rundoc.Run
		dark bool
	}{
		{"chart_decode.svg", chart.DecodeTotal, []*rundoc.Run{ref}, false},
		{"chart_matrix.svg", chart.Matrix, []*rundoc.Run{ref}, false},
		{"chart_prefill_dark.svg", chart.Prefill, []*rundoc.Run{ref}, true},
		{"chart_compare_decode.svg", chart.DecodeTotal, []*rundoc.Run{ref, variantRun(t, ref, 1.3)}, false},
		{"chart_energy_nodata.svg", chart.Energy, []*rundoc.Run{ref}, false},
		{"chart_compare_pareto.svg", chart.Pareto, []*rundoc.Run{ref, variantRun(t, ref, 1.3)}, false},
	}
	for _, tc := range cases {
		var a, b bytes.Buffer
		opts := chart.Options{Format: chart.SVG, Dark: tc.dark}
		if err := chart.Render(&a, tc.kind, tc.runs, opts); err != nil {
			t.Fatal(err)
		}
		if err := chart.Render(&b, tc.kind, tc.runs, opts); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("%s: two renders differ", tc.file)
		}
		path := filepath.Join("..", "testdata", tc.file)
		if *update {
			if err := os.WriteFile(path, a.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read golden: %v (go test -update writes it)", err)
		}
		if !bytes.Equal(a.Bytes(), want) {
			t.Errorf("%s differs from the golden file (go test -update after checking the change)", tc.file)
		}
	}
}

// TestNoDataIsDrawn: a run without data gives a picture saying so, not an
// error.
func TestNoDataIsDrawn(t *testing.T) {
	empty := &rundoc.Run{Schema: rundoc.Schema, UUID: "empty"}
	for _, k := range chart.Kinds() {
		var buf bytes.Buffer
		if err := chart.Render(&buf, k, []*rundoc.Run{empty}, chart.Options{Format: chart.SVG}); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
		if !strings.Contains(buf.String(), ">Not enough data</text>") {
			t.Errorf("%s of an empty run does not say Not enough data", k)
		}
	}
}

func TestPNGSizeAndScale(t *testing.T) {
	ref := referenceRun(t)
	var buf bytes.Buffer
	if err := chart.Render(&buf, chart.Matrix, []*rundoc.Run{ref}, chart.Options{Width: 640, Height: 400, Scale: 2}); err != nil {
		t.Fatal(err)
	}
	img, err := png.Decode(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if got := img.Bounds().Size(); got.X != 1280 || got.Y != 800 {
		t.Fatalf("PNG is %v, want 1280×800 (640×400 at scale 2)", got)
	}
}

func TestRenderRejectsBadArguments(t *testing.T) {
	ref := referenceRun(t)
	seven := []*rundoc.Run{ref, ref, ref, ref, ref, ref, ref}
	for name, f := range map[string]func() error{
		"no runs":    func() error { return chart.Render(&bytes.Buffer{}, chart.Matrix, nil, chart.Options{}) },
		"seven runs": func() error { return chart.Render(&bytes.Buffer{}, chart.Matrix, seven, chart.Options{}) },
		"nil run":    func() error { return chart.Render(&bytes.Buffer{}, chart.Matrix, []*rundoc.Run{nil}, chart.Options{}) },
		"bad kind":   func() error { return chart.Render(&bytes.Buffer{}, "pie", []*rundoc.Run{ref}, chart.Options{}) },
		"bad format": func() error {
			return chart.Render(&bytes.Buffer{}, chart.Matrix, []*rundoc.Run{ref}, chart.Options{Format: "gif"})
		},
		"huge": func() error {
			return chart.Render(&bytes.Buffer{}, chart.Matrix, []*rundoc.Run{ref}, chart.Options{Width: 100000})
		},
		"tiny": func() error {
			return chart.Render(&bytes.Buffer{}, chart.Matrix, []*rundoc.Run{ref}, chart.Options{Width: 10})
		},
		"scale too big": func() error {
			return chart.Render(&bytes.Buffer{}, chart.Matrix, []*rundoc.Run{ref}, chart.Options{Scale: 10})
		},
	} {
		if err := f(); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

// BenchmarkRenderPNG measures what the app pays to show a chart.
func BenchmarkRenderPNG(b *testing.B) {
	ref := referenceRun(b)
	for _, k := range []chart.Kind{chart.DecodeTotal, chart.Matrix} {
		b.Run(string(k), func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if err := chart.Render(&bytes.Buffer{}, k, []*rundoc.Run{ref}, chart.Options{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

func BenchmarkRenderSVG(b *testing.B) {
	ref := referenceRun(b)
	b.ReportAllocs()
	for b.Loop() {
		if err := chart.Render(&bytes.Buffer{}, chart.Matrix, []*rundoc.Run{ref}, chart.Options{Format: chart.SVG}); err != nil {
			b.Fatal(err)
		}
	}
}

// Issue 16 item 6: an energy chart without readings says why for the kind
// of run it shows, not that energy needs a GPU (an imported run of a real
// card had one).
func TestEnergyNoDataSaysWhy(t *testing.T) {
	cell := rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50}
	for _, tc := range []struct {
		run  rundoc.Run
		want string
	}{
		{rundoc.Run{Simulated: true}, "a simulated server has no GPU power readings"},
		{rundoc.Run{Origin: rundoc.OriginImported}, "the run file carried no GPU power readings"},
		{rundoc.Run{}, "NVIDIA GPU on its own computer"},
		{rundoc.Run{Launch: &rundoc.Launch{Image: "vllm/vllm-openai:latest"}}, "energy needs an NVIDIA GPU"},
	} {
		r := tc.run
		r.Schema, r.UUID, r.Cells = rundoc.Schema, "r", []rundoc.Cell{cell}
		var buf bytes.Buffer
		if err := chart.Render(&buf, chart.Energy, []*rundoc.Run{&r}, chart.Options{Format: chart.SVG}); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(buf.String(), tc.want) {
			t.Errorf("energy chart of %+v lacks %q", tc.run, tc.want)
		}
	}
}

// TestUnreliableCellSaysWhy: the chart matrix showed "Unreliable" alone;
// like every matrix it now says why on the cell, the reason's head under
// the status.
func TestUnreliableCellSaysWhy(t *testing.T) {
	run := &rundoc.Run{Schema: rundoc.Schema, UUID: "u", Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 4}},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 47.8, TTFTMs: 190},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 4, Status: rundoc.StatusUnreliable, TotalTokS: 165,
				Reason: rundoc.UnreliableReason("counter -90%", "the server counted 1,238 generated tokens, RigBench 12,380")},
		}}
	var buf bytes.Buffer
	if err := chart.Render(&buf, chart.Matrix, []*rundoc.Run{run}, chart.Options{Format: chart.SVG}); err != nil {
		t.Fatal(err)
	}
	if svg := buf.String(); !strings.Contains(svg, ">Unreliable</text>") || !strings.Contains(svg, ">counter -90%</text>") {
		t.Errorf("the matrix's Unreliable cell does not say why")
	}
}

package chart_test

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestRenderEveryKind draws every chart of the reference run, of a
// comparison and of an empty run, in both formats and palettes, and checks
// each output is a well-formed PNG or SVG. Set RIGBENCH_CHART_SAMPLES to a
// folder to keep the files for looking at.
func TestRenderEveryKind(t *testing.T) {
	ref := referenceRun(t)
	sets := map[string][]*rundoc.Run{
		"ref":     {ref},
		"compare": {ref, variantRun(t, ref, 1.3)},
		"empty":   {{Schema: rundoc.Schema, UUID: "empty"}},
		"energy":  {energyRun()},
	}
	dir := os.Getenv("RIGBENCH_CHART_SAMPLES")
	for name, runs := range sets {
		for _, kind := range chart.Kinds() {
			for _, f := range []chart.Format{chart.PNG, chart.SVG} {
				for _, dark := range []bool{false, true} {
					if f == chart.PNG && name != "ref" && dir == "" {
						continue // rasterising is slow under -race; SVG covers the layout
					}
					var buf bytes.Buffer
					if err := chart.Render(&buf, kind, runs, chart.Options{Format: f, Dark: dark}); err != nil {
						t.Fatalf("%s %s %s: %v", name, kind, f, err)
					}
					checkMagic(t, f, buf.Bytes())
					if dir != "" {
						suffix := ""
						if dark {
							suffix = "-dark"
						}
						p := filepath.Join(dir, name+"-"+string(kind)+suffix+"."+string(f))
						if err := os.WriteFile(p, buf.Bytes(), 0o644); err != nil {
							t.Fatal(err)
						}
					}
				}
			}
		}
	}
}

func checkMagic(t *testing.T, f chart.Format, b []byte) {
	t.Helper()
	switch f {
	case chart.PNG:
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			t.Fatalf("PNG output does not start with the PNG signature")
		}
	case chart.SVG:
		if !bytes.Contains(b, []byte("<svg")) || !bytes.HasSuffix(bytes.TrimSpace(b), []byte("</svg>")) {
			t.Fatalf("SVG output is not an SVG document")
		}
	}
}

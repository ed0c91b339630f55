package export_test

import (
	"image/png"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/export"
)

// Issue 16 item 7: PNG and SVG export offer every chart, not only the
// matrix, and "all charts" writes one file each.
func TestExportAnyOrAllCharts(t *testing.T) {
	r := reference(t)
	one := []*rundoc.Run{r}
	if c := export.ChartChoices(one); len(c) != len(chart.Kinds())+1 || c[len(c)-1] != export.AllCharts {
		t.Errorf("chart choices for one run = %q", c)
	}
	dir := t.TempDir()
	path := filepath.Join(dir, export.ChartFileName(one, report.SVG, chart.TTFT))
	if err := export.WriteChart(path, report.SVG, chart.TTFT, one, 1); err != nil {
		t.Fatal(err)
	}
	if b, _ := os.ReadFile(path); !strings.Contains(string(b), "Time to first token") {
		t.Errorf("%s is not the TTFT chart", filepath.Base(path))
	}
	written, err := export.WriteAllCharts(dir, report.PNG, one, 1)
	if err != nil || len(written) != len(chart.Kinds()) {
		t.Fatalf("all charts wrote %d files (%v), want %d", len(written), err, len(chart.Kinds()))
	}
	for _, p := range written {
		f, err := os.Open(p)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := png.Decode(f); err != nil {
			t.Errorf("%s is not a PNG: %v", filepath.Base(p), err)
		}
		f.Close()
	}
	// A comparison has no single matrix but the trade-off: the other
	// charts and it, each once.
	two := []*rundoc.Run{r, r}
	written, err = export.WriteAllCharts(t.TempDir(), report.SVG, two, 1)
	if err != nil || len(written) != len(chart.Kinds()) || !strings.HasSuffix(written[len(written)-1], "-pareto.svg") {
		t.Errorf("comparison wrote %q (%v), want the %d charts but the matrix, and the trade-off", written, err, len(chart.Kinds())-1)
	}
	if c := export.ChartChoices(two); !slices.Contains(c, "Trade-off: total against per-request tok/s") || slices.Contains(c, "Decode matrix") {
		t.Errorf("chart choices for a comparison = %q", c)
	}
}

package export

import (
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
)

// AllCharts is the chart choice that exports every chart, one file each.
const AllCharts = "All charts (one file each)"

// chartLabels name the charts in the export dialog, in chart.KindsFor order.
var chartLabels = map[chart.Kind]string{
	chart.Matrix:      "Decode matrix",
	chart.DecodeTotal: "Decode throughput by concurrency",
	chart.PerRequest:  "Per-request speed by concurrency",
	chart.TTFT:        "Time to first token by concurrency",
	chart.Prefill:     "Prefill speed by context",
	chart.Energy:      "Energy per token by concurrency",
	chart.Pareto:      "Trade-off: total against per-request tok/s",
}

// ChartChoices are the dialog's chart choices for runs: every chart (the
// matrix only for one run: a comparison has no single matrix; the
// trade-off only for a comparison), then all.
func ChartChoices(runs []*rundoc.Run) []string {
	var out []string
	for _, k := range chartKinds(runs) {
		out = append(out, chartLabels[k])
	}
	return append(out, AllCharts)
}

// chartKind is the chart of a dialog label ("" for AllCharts or unknown).
func chartKind(label string) chart.Kind {
	for k, l := range chartLabels {
		if l == label {
			return k
		}
	}
	return ""
}

// ChartFileName suggests the file of one chart: the runs' file name with
// the chart's name before the extension.
func ChartFileName(runs []*rundoc.Run, f report.Format, k chart.Kind) string {
	name := report.FileName(runs, f)
	return strings.TrimSuffix(name, f.Ext()) + "-" + string(k) + f.Ext()
}

// WriteChart writes one chart of runs to path as PNG (at scale: 0 is 1,
// as the CLI's --scale) or SVG, by the same safe-file rules as WriteFile.
func WriteChart(path string, f report.Format, k chart.Kind, runs []*rundoc.Run, scale float64) error {
	o := report.Options{Chart: k}
	if f == report.PNG {
		o.Scale = scale
	}
	return safefile.Write(path, func(w io.Writer) error { return report.Write(w, f, runs, o) })
}

// WriteAllCharts writes every chart of runs into dir, one file each (named
// by ChartFileName; PNG at scale), and returns the files written. A chart that fails
// does not stop the others; the errors are joined.
func WriteAllCharts(dir string, f report.Format, runs []*rundoc.Run, scale float64) ([]string, error) {
	var written []string
	var errs []error
	for _, k := range chartKinds(runs) {
		path := filepath.Join(dir, ChartFileName(runs, f, k))
		if err := WriteChart(path, f, k, runs, scale); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", filepath.Base(path), err))
			continue
		}
		written = append(written, path)
	}
	return written, errors.Join(errs...)
}

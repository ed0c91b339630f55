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

// PNGScale is the pixel density of the app's PNG charts: twice the
// 800×480 a chart is laid out at (issue 41 minor 13: 800×480 was small on
// any screen of today and in a slide). The CLI writes the same bytes with
// --scale 2.
const PNGScale = 2

// PNGSize words the pixel size of a PNG chart at scale ("1600×960
// pixels"), for the export dialog to say before the user saves.
func PNGSize(scale float64) string {
	return fmt.Sprintf("%d×%d pixels", int(float64(chart.DefaultWidth)*scale), int(float64(chart.DefaultHeight)*scale))
}

// everyFormat are the formats an export of everything writes. The
// llm-decode-bench JSON is the other tool's layout, for feeding it, not
// for reading: it is left to its own export (its name would be the
// run's JSON's too).
var everyFormat = []report.Format{report.JSON, report.CSV, report.Markdown, report.HTML}

// WriteEverything writes runs into dir in every format at once (issue 41:
// "export everything"): the JSON and CSV of each run (files that hold one
// run), the Markdown and the HTML report of the run or the comparison, and
// every chart as PNG (at scale; 0 is 1) and SVG. Each file is written by
// the writer behind the single exports and the CLI's, with its options, so
// a file is byte for byte what `rigbench-cli export` (or `compare`) writes
// in that format, chart and --scale. It returns the paths written; a file
// that fails does not stop the others, and the errors are joined.
func WriteEverything(dir string, runs []*rundoc.Run, scale float64) ([]string, error) {
	if len(runs) == 0 {
		return nil, errors.New("choose a run to export first")
	}
	var written []string
	var errs []error
	write := func(name string, f report.Format, rs []*rundoc.Run, o report.Options) {
		path := filepath.Join(dir, name)
		err := safefile.Write(path, func(w io.Writer) error { return report.Write(w, f, rs, o) })
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", name, err))
			return
		}
		written = append(written, path)
	}
	seen := map[string]bool{}
	for _, f := range everyFormat {
		if f == report.JSON || f == report.CSV {
			for _, r := range runs {
				one := []*rundoc.Run{r}
				name := report.FileName(one, f)
				if seen[name] { // two runs of one name: the second by its id
					name = strings.TrimSuffix(name, f.Ext()) + "-" + rundoc.ShortID(r.UUID) + f.Ext()
				}
				seen[name] = true
				write(name, f, one, report.Options{})
			}
			continue
		}
		write(report.FileName(runs, f), f, runs, report.Options{})
	}
	for _, f := range []report.Format{report.PNG, report.SVG} {
		paths, err := WriteAllCharts(dir, f, runs, scale)
		written = append(written, paths...)
		if err != nil {
			errs = append(errs, err)
		}
	}
	return written, errors.Join(errs...)
}

// chartKinds are the charts an export offers for runs: the matrix only
// for one run (a comparison has no single matrix), the trade-off only for
// a comparison (chart.KindsFor).
func chartKinds(runs []*rundoc.Run) []chart.Kind {
	var out []chart.Kind
	for _, k := range chart.KindsFor(len(runs)) {
		if k == chart.Matrix && len(runs) != 1 {
			continue
		}
		out = append(out, k)
	}
	return out
}

package report

import (
	"bufio"
	"fmt"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// The quality check in the reports (METHOD.md: Quality (paired check)):
// every report reads a run's check through QualityRows, so Markdown, HTML,
// the CLI's show and the app say the same thing.

// QualityRows is a run's quality check as label and text rows: the probe
// and what answered, its result, and against a baseline the pairing and
// what qualifies it (token inflation, per-category deltas). nil for a run
// without a check; a section the run's file holds but RigBench cannot read
// is one row saying so.
func QualityRows(r *rundoc.Run) [][2]string {
	c, err := quality.FromRun(r.Quality)
	if err != nil {
		return [][2]string{{"quality", "unreadable: " + err.Error()}}
	}
	if c == nil {
		return nil
	}
	rows := [][2]string{{"probe", c.Probe}}
	if c.Error != "" {
		rows = append(rows, [2]string{"error", c.Error})
	}
	if res := c.Result; res != nil {
		what := res.Profile
		if d := res.Dataset; d != nil {
			what = fmt.Sprintf("%d items of %s (sha256 %.12s…), %s", d.Items, d.Name, d.SHA256, res.Profile)
		}
		rows = append(rows, [2]string{"settings", what}, [2]string{"result", res.Text()})
	}
	p := c.Baseline
	if p == nil {
		return rows
	}
	base := p.Label
	if p.RunID != "" {
		base = strings.TrimSpace(base + " (run " + rundoc.ShortID(p.RunID) + ")")
	}
	rows = append(rows, [2]string{"baseline", base}, [2]string{"against the baseline", p.Text()})
	if t := p.Task; t != nil {
		rows = append(rows, [2]string{"completion tokens", t.TokensText()})
		for _, cat := range t.Categories {
			rows = append(rows, [2]string{"category " + cat.Name, cat.Text()})
		}
	}
	return rows
}

// mdQuality is the Markdown report's quality section, nothing when the
// run has no check.
func mdQuality(b *bufio.Writer, r *rundoc.Run) {
	rows := QualityRows(r)
	if len(rows) == 0 {
		return
	}
	b.WriteString("\n## Quality\n\n| | |\n|---|---|\n")
	for _, row := range rows {
		fmt.Fprintf(b, "| %s | %s |\n", mdText(row[0]), mdText(row[1]))
	}
}

// QualityColumns are the columns a run's CSV adds when it has a quality
// check, each the same on every row (as SimulatedColumn is), so a row
// copied out of a spreadsheet still says how the launch answered. Points
// and percentages are of accuracy (a task probe) or of identical tokens
// (agreement); a figure the probe does not have is an empty field.
var QualityColumns = []string{"quality_probe", "quality_accuracy_pct", "quality_accuracy_ci95_lo_pct", "quality_accuracy_ci95_hi_pct",
	"quality_delta_points", "quality_delta_ci95_lo_points", "quality_delta_ci95_hi_points", "quality_right_only_baseline",
	"quality_right_only_here", "quality_mcnemar_p", "quality_agreement_pct", "quality_agreement_ci95_pct", "quality_kl", "quality_kl_ci95"}

// qualityCSV is the values of QualityColumns for r; nil when r has no
// readable check.
func qualityCSV(r *rundoc.Run) []string {
	c, err := quality.FromRun(r.Quality)
	if err != nil || c == nil {
		return nil
	}
	v := make([]string, len(QualityColumns))
	v[0] = c.Probe
	f := func(x float64, dec int) string { return strconv.FormatFloat(x, 'f', dec, 64) }
	if c.Result != nil && c.Result.Dataset != nil {
		a := c.Result.Accuracy()
		v[1], v[2], v[3] = f(100*a.Share, 1), f(100*a.CI95.Lo, 1), f(100*a.CI95.Hi, 1)
	}
	if p := c.Baseline; p != nil && p.Task != nil {
		t := p.Task
		v[4], v[5], v[6] = f(t.DeltaPoints, 1), f(t.DeltaCI95.Lo, 1), f(t.DeltaCI95.Hi, 1)
		v[7], v[8], v[9] = strconv.Itoa(t.RightOnlyBaseline), strconv.Itoa(t.RightOnlyCandidate), strconv.FormatFloat(t.McNemarP, 'g', 4, 64)
	}
	if p := c.Baseline; p != nil && p.Agreement != nil {
		a := p.Agreement
		v[10], v[11], v[12], v[13] = f(100*a.PrefixShare, 1), f(100*a.PrefixShareCI95, 1), f(a.KL, 4), f(a.KLCI95, 4)
	}
	return v
}

// QualityCompare pairs each run's quality probe with run A's where the two
// pair (the same probe, settings, data and items: quality.Comparable), as
// lines "B against A: …"; a run whose probe cannot pair says why. nil when
// no run has a probe result.
func QualityCompare(runs []*rundoc.Run) []string {
	results := make([]*quality.Result, len(runs))
	found := false
	for i, r := range runs {
		if c, err := quality.FromRun(r.Quality); err == nil && c != nil && c.Result != nil {
			results[i], found = c.Result, true
		}
	}
	if !found || len(runs) < 2 {
		return nil
	}
	var out []string
	for i := 1; i < len(runs); i++ {
		who := chart.Letter(i) + " against " + chart.Letter(0)
		switch {
		case results[0] == nil && results[i] == nil:
			continue
		case results[0] == nil:
			out = append(out, who+": not paired: run A has no quality probe")
		case results[i] == nil:
			out = append(out, who+": not paired: run "+chart.Letter(i)+" has no quality probe")
		default:
			p := quality.Pair(results[0], results[i], runs[0].UUID, chart.Letter(0))
			out = append(out, who+" ("+results[i].Probe+"): "+p.Text())
		}
	}
	return out
}

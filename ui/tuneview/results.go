package tuneview

// A finished sweep: its chart with ± whiskers, its trade-off chart, its
// table, and Apply.

import (
	"bytes"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/chartview"
)

// buildResults makes the table of variants and the chart's box.
func (v *View) buildResults() {
	v.table = widget.NewTable(
		func() (int, int) {
			if len(v.rows) == 0 {
				return 0, 0
			}
			return len(v.rows), len(v.rows[0])
		},
		func() fyne.CanvasObject { return widget.NewLabel("") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			l := o.(*widget.Label)
			l.SetText(v.rows[id.Row][id.Col])
			l.TextStyle.Bold = id.Row == 0
		})
	v.chart = container.NewVBox()

}

// Show displays a sweep document: verdict, chart and table (after a sweep,
// or one imported from an export).
func (v *View) Show(d *tune.Doc) {
	v.doc = d
	// The verdict marks flags as code for Markdown; a label shows them
	// plainly.
	v.verdict.SetText("Verdict: " + strings.ReplaceAll(d.Verdict, "`", ""))
	header, rows := d.Table()
	v.rows = append([][]string{header}, rows...)
	v.table.Refresh()
	for c := range header {
		w := float32(60)
		for _, r := range v.rows {
			w = max(w, widget.NewLabel(r[c]).MinSize().Width)
		}
		v.table.SetColumnWidth(c, w)
	}
	v.drawChart(d)
	if _, ok := d.BestChanges(); ok || bestLink(d) != "" {
		v.applyBtn.Enable()
	} else {
		v.applyBtn.Disable()
	}
	v.exportBtn.Enable()
}

// clearResults takes the last sweep's chart and table off the screen when
// a new one starts: left there, they read as the new sweep's.
func (v *View) clearResults() {
	v.doc, v.rows = nil, nil
	v.chart.RemoveAll()
	v.table.Refresh()
	v.results.Refresh()
	v.exportBtn.Disable()
}

// Chart is the chart's rows as text, the title first: each variant's
// label, then its score and note (tests read it).
func (v *View) Chart() []string {
	var out []string
	for _, o := range v.chart.Objects {
		var texts []string
		collectText(o, &texts)
		out = append(out, strings.Join(texts, " | "))
	}
	return out
}

// Results is the box of the chart and the table (tests check their
// layout).
func (v *View) Results() *fyne.Container { return v.results }

func collectText(o fyne.CanvasObject, out *[]string) {
	switch w := o.(type) {
	case *widget.Label:
		if w.Text != "" {
			*out = append(*out, w.Text)
		}
	case *fyne.Container:
		for _, c := range w.Objects {
			collectText(c, out)
		}
	}
}

// Apply puts the winner's flags in the Launch form.
func (v *View) Apply() {
	if v.doc == nil || v.b.OnApply == nil {
		return
	}
	var applied []string
	if ch, ok := v.doc.BestChanges(); ok {
		v.b.OnApply(ch)
		applied = append(applied, "Applied "+tune.FlagsLabel(ch)+" to the Launch form.")
	}
	if link := bestLink(v.doc); link != "" {
		if v.b.OnApplyLink != nil {
			v.b.OnApplyLink(link)
			applied = append(applied, "Set the cluster's interface to "+link+" on the Launch page.")
		} else {
			applied = append(applied, "Set the cluster's interface to "+link+" on the Launch page: the winner ran over it.")
		}
	}
	if len(applied) > 0 {
		v.status.SetText(strings.Join(applied, " "))
	}
}

// bestLink is the interface the winning variant ran over where the sweep
// varied it and the winner is not the base (whose is the cluster's own),
// else "".
func bestLink(d *tune.Doc) string {
	if d == nil || d.Best == nil || d.Variants[*d.Best].Label == tune.BaseLabel {
		return ""
	}
	return d.Variants[*d.Best].Interface
}

// drawChart draws the objective per variant as bars with their ± as a
// whisker: the base outlined and labelled, the winner and its ties in the
// success colour, each score with its note. Everything comes from
// d.Bars(), the computation the verdict and the table read too.
func (v *View) drawChart(d *tune.Doc) {
	v.chart.RemoveAll()
	bars := d.Bars()
	o, _ := tune.ParseObjective(d.Objective, d.Plan)
	v.chart.Add(widget.NewLabelWithStyle(o.Describe()+" per variant", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}))
	top := 0.0
	for _, b := range bars {
		top = max(top, b.Value+b.CI95)
	}
	const maxBar = 240
	for _, b := range bars {
		name := b.Label
		if b.Base {
			name = "base: " + b.Label
		}
		// Wrapped, never cut: two variants of a grid share their first
		// flags, and cut labels read alike.
		nameLabel := widget.NewLabel(name)
		nameLabel.Wrapping = fyne.TextWrapWord
		text := b.Score
		if b.Note != "" {
			text += " · " + b.Note
		}
		score := widget.NewLabel(text)
		score.Wrapping = fyne.TextWrapWord
		var bar fyne.CanvasObject = layout.NewSpacer()
		if b.OK {
			bar = v.barShape(b, top, maxBar)
		}
		row := container.NewBorder(nil, nil, container.NewGridWrap(fyne.NewSize(maxBar+8, 36), bar), nil, score)
		// The label on its own line above its bar: side by side, two
		// equal columns needed twice the bar's width.
		v.chart.Add(container.NewVBox(nameLabel, row))
	}
	v.addPareto(d)
	v.chart.Refresh()
	v.results.Refresh()
}

// addPareto adds the sweep's trade-off chart below the bars (total
// against per-request tok/s per variant, both ±, the frontier marked;
// engine/report/chart draws it as in the sweep's HTML) and the frontier's
// points as text. A sweep without such cells shows nothing more.
func (v *View) addPareto(d *tune.Doc) {
	png, ok, err := d.ParetoChart(chart.Options{Width: chartview.Width, Height: chartview.Height, Scale: 2, Dark: chartview.IsDark()})
	if !ok || err != nil {
		return
	}
	img := canvas.NewImageFromReader(bytes.NewReader(png), "tune-pareto.png")
	img.FillMode = canvas.ImageFillContain
	// At least 480 wide (a 900 px window has no more beside the form); up
	// to 400 high, so a wide window shows it larger, its aspect kept.
	img.SetMinSize(fyne.NewSize(480, 400))
	front := widget.NewLabel("Pareto frontier: " + strings.Join(d.FrontierText(), "; "))
	front.Wrapping = fyne.TextWrapWord
	v.chart.Add(container.NewVBox(widget.NewLabelWithStyle("Trade-off across variants", fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), img, front))
}

// barShape is one bar and its ± whisker, scaled so the longest bar with
// its whisker is width wide.
func (v *View) barShape(b tune.Bar, top float64, width float32) fyne.CanvasObject {
	scale := float32(0)
	if top > 0 {
		scale = width / float32(top)
	}
	fill := theme.Color(theme.ColorNamePrimary)
	if b.Best || b.Tie {
		fill = theme.Color(theme.ColorNameSuccess)
	}
	r := canvas.NewRectangle(fill)
	if b.Base {
		r.StrokeColor, r.StrokeWidth = theme.Color(theme.ColorNameForeground), 2
	}
	w := max(2, float32(b.Value)*scale)
	r.Resize(fyne.NewSize(w, 18))
	r.Move(fyne.NewPos(0, 9))
	objs := []fyne.CanvasObject{r}
	if b.CI95 > 0 {
		lo, hi := float32(b.Value-b.CI95)*scale, float32(b.Value+b.CI95)*scale
		whisker := canvas.NewLine(theme.Color(theme.ColorNameForeground))
		whisker.StrokeWidth = 2
		whisker.Position1, whisker.Position2 = fyne.NewPos(lo, 18), fyne.NewPos(hi, 18)
		objs = append(objs, whisker)
	}
	return container.NewWithoutLayout(objs...)
}

// Package qualityview shows a quality probe's result (engine/quality) and,
// against a baseline, its paired comparison: the probe and what answered,
// the accuracy with its Wilson 95% interval (or the agreement and the KL
// divergence with their ±), the unparseable and truncated answers, the
// change in points with its interval, the flips both ways, the exact
// McNemar p, the verdict, the per-category changes and the completion-token
// inflation. Every sentence is quality.Report's, the one the CLI prints, so
// the app and `rigbench-cli quality` say the same of the same pair.
package qualityview

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/ui/wording"
)

// Hint is what the view says under an agreement probe shown without a
// baseline: alone it measures nothing, it is the reference of a later
// check.
const Hint = "Token agreement is measured against a baseline: choose this check as the baseline of a later one, or export it for `rigbench-cli quality --baseline`."

// View shows one report. Its methods must be called on the Fyne goroutine.
type View struct {
	title, accuracy, paired, against, verdict, tokens, kl, hint *widget.Label
	categories                                                  *fyne.Container
	content                                                     *fyne.Container
	rep                                                         *quality.Report
}

// New builds an empty view (Set fills it).
func New() *View {
	v := &View{}
	label := func(style fyne.TextStyle) *widget.Label {
		l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, style)
		l.Wrapping = fyne.TextWrapWord
		l.Hide()
		return l
	}
	v.title = label(fyne.TextStyle{Bold: true})
	v.accuracy, v.paired, v.against = label(fyne.TextStyle{}), label(fyne.TextStyle{}), label(fyne.TextStyle{})
	v.verdict = label(fyne.TextStyle{Bold: true})
	v.tokens, v.kl, v.hint = label(fyne.TextStyle{}), label(fyne.TextStyle{}), label(fyne.TextStyle{Italic: true})
	v.categories = container.New(columns{4})
	v.categories.Hide()
	v.content = container.NewVBox(v.title, v.accuracy, v.paired, v.against, v.verdict, v.categories, v.tokens, v.kl, v.hint)
	return v
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Set shows r and, when base is not nil, its comparison with base; the
// comparison's refusal (different probes, settings or data) is the error,
// and the view is then left as it was. A nil r empties the view.
func (v *View) Set(r, base *quality.Result) error {
	if r == nil {
		v.show(&quality.Report{}, false)
		return nil
	}
	rep, err := quality.NewReport(r, base)
	if err != nil {
		return err
	}
	v.show(rep, r.Dataset == nil && base == nil)
	return nil
}

func (v *View) show(rep *quality.Report, hint bool) {
	v.rep = rep
	set := func(l *widget.Label, s string) {
		if l != v.title {
			s = wording.Sentence(s) // the CLI's line as a sentence
		}
		l.SetText(s)
		if s == "" {
			l.Hide()
		} else {
			l.Show()
		}
	}
	set(v.title, rep.Title)
	set(v.accuracy, rep.Accuracy)
	set(v.paired, rep.Paired)
	set(v.against, rep.Against)
	verdict := ""
	if rep.Verdict != "" {
		verdict = "verdict: " + rep.Verdict
	}
	set(v.verdict, verdict)
	v.verdict.Importance = widget.MediumImportance
	if rep.Lost {
		v.verdict.Importance = widget.DangerImportance
	}
	v.verdict.Refresh()
	var cells []fyne.CanvasObject
	for _, c := range rep.Categories {
		for i, s := range []string{c.Name, c.Items, c.Delta, c.Flips} {
			l := widget.NewLabel(s)
			if i == 1 || i == 2 {
				l.Alignment = fyne.TextAlignTrailing
			}
			cells = append(cells, l)
		}
	}
	v.categories.Objects = cells
	v.categories.Refresh()
	if len(cells) == 0 {
		v.categories.Hide()
	} else {
		v.categories.Show()
	}
	set(v.tokens, rep.Tokens)
	set(v.kl, rep.KL)
	h := ""
	if hint {
		h = Hint
	}
	set(v.hint, h)
	// Labels shown or hidden and rewrapped: the box lays them out anew.
	v.content.Refresh()
}

// Report is the report shown (an empty one before Set).
func (v *View) Report() quality.Report {
	if v.rep == nil {
		return quality.Report{}
	}
	return *v.rep
}

// Text is everything the view shows, one line per label or table row, as
// a user reads it top to bottom: the CLI's lines (quality.Report.Lines),
// each but the title as a sentence (wording.Sentence), and the hint.
func (v *View) Text() []string {
	var out []string
	for _, o := range v.content.Objects {
		switch w := o.(type) {
		case *widget.Label:
			if w.Visible() {
				out = append(out, w.Text)
			}
		case *fyne.Container:
			if !w.Visible() {
				continue
			}
			for i := 0; i+3 < len(w.Objects); i += 4 {
				row := quality.CategoryRow{}
				for j, p := range []*string{&row.Name, &row.Items, &row.Delta, &row.Flips} {
					*p = w.Objects[i+j].(*widget.Label).Text
				}
				out = append(out, row.Line())
			}
		}
	}
	return out
}

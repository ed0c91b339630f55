package results

import (
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
)

// diagnosisPane is the Results tab that says what limits each decode cell
// and what to try (engine/diagnose's sentences), with "Tune this" to sweep
// the advised flags.
type diagnosisPane struct {
	text    *widget.Label
	tuneBtn *widget.Button
	spec    *tune.Spec
	content fyne.CanvasObject
}

func newDiagnosisPane(onTune func() func(tune.Spec)) *diagnosisPane {
	p := &diagnosisPane{text: widget.NewLabel("")}
	p.text.Wrapping = fyne.TextWrapWord
	p.tuneBtn = widget.NewButtonWithIcon("Tune this: sweep the advised flags", theme.SearchIcon(), func() {
		if f := onTune(); f != nil && p.spec != nil {
			f(*p.spec)
		}
	})
	p.tuneBtn.Hide()
	p.content = container.NewVScroll(container.NewVBox(p.text, container.NewHBox(p.tuneBtn)))
	return p
}

// set shows r's diagnosis; canTune says whether "Tune this" may show.
func (p *diagnosisPane) set(r *rundoc.Run, canTune bool) {
	p.spec = nil
	p.tuneBtn.Hide()
	if r == nil {
		p.text.SetText("")
		return
	}
	p.text.SetText(DiagnosisText(r))
	if !canTune {
		return
	}
	if s, err := tune.FromAdvice(r, diagnose.Advise(r)); err == nil {
		p.spec = &s
		p.tuneBtn.Show()
	}
}

// DiagnosisText is the Diagnosis tab's text for r: each cell's bottleneck
// with its evidence, the roofline's basis, the advice, and where the
// energy figures come from (each GPU's share on a multi-GPU server).
func DiagnosisText(r *rundoc.Run) string {
	var b strings.Builder
	if basis := r.Server.Roofline.Basis(); basis != "" && r.Server.Roofline.Complete() {
		b.WriteString(rundoc.FigRoofline.Title + " rests on " + basis + ".\n")
	} else if why := r.Server.Roofline.Why(); r.Server.Roofline != nil && why != "" {
		if slices.Contains(r.Server.Roofline.Missing, rundoc.RooflineMissingWeights) {
			why += "; for a server RigBench did not start, give its Model size (GiB) with the Existing endpoint target"
		}
		b.WriteString(rundoc.FigRoofline.Title + " is not known: " + why + ".\n")
	}
	limits, advice := diagnose.Run(r), diagnose.Advise(r)
	if len(limits) > 0 {
		b.WriteString("\nBottlenecks\n")
		for _, l := range limits {
			b.WriteString("• " + l.Text() + "\n")
		}
	}
	if len(advice) > 0 {
		b.WriteString("\nAdvice, as RigBench's capacity model predicts it\n")
		for _, a := range advice {
			b.WriteString("• " + a.Text() + "\n")
		}
	}
	if len(limits) == 0 && len(advice) == 0 {
		b.WriteString("\nNo limit found in this run's evidence, so no advice.\n")
	}
	if energy := rundoc.EnergyLines(r); len(energy) > 0 {
		b.WriteString("\nEnergy\n")
		for _, l := range energy {
			b.WriteString("• " + l + "\n")
		}
	}
	return strings.TrimSpace(b.String())
}

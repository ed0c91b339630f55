//go:build !race

package ui_test

import (
	"image/color"
	"math"
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/ui"
)

// drawn calls f with every text and rectangle under o, hidden ones too (a
// closed accordion's rows show later with the colours they have now), and
// whether it lies inside a button (or a progress bar: text on its own
// colour) or a field.
func drawn(o fyne.CanvasObject, inButton, inField bool, f func(o fyne.CanvasObject, inButton, inField bool)) {
	switch x := o.(type) {
	case *canvas.Text, *canvas.Rectangle:
		f(o, inButton, inField)
	case fyne.Widget:
		switch x.(type) {
		case *widget.Button, *widget.ProgressBar:
			inButton = true
		case *widget.Entry, *widget.SelectEntry, *widget.Select:
			inField = true
		}
		for _, c := range test.WidgetRenderer(x).Objects() {
			drawn(c, inButton, inField, f)
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			drawn(c, inButton, inField, f)
		}
	}
}

// luminance is c's relative luminance (WCAG), over a white page when c is
// translucent.
func luminance(c color.Color) float64 {
	n := color.NRGBAModel.Convert(c).(color.NRGBA)
	a := float64(n.A) / 255
	lin := func(x uint8) float64 {
		v := float64(x)/255*a + (1 - a)
		if v <= 0.03928 {
			return v / 12.92
		}
		return math.Pow((v+0.055)/1.055, 2.4)
	}
	return 0.2126*lin(n.R) + 0.7152*lin(n.G) + 0.0722*lin(n.B)
}

// Issue 41 minor 1: View ▸ Theme ▸ Light while another tab is shown, then
// the Launch tab: every field of the flag form is light and every label
// reads on the light background. Fyne themed only the tab on screen, and
// the Launch tab's own refresh stopped at the flag groups' accordion, so
// its flag rows kept the dark theme's black fields and near-white text
// until a restart.
func TestLaunchFormFollowsARuntimeThemeSwitch(t *testing.T) {
	u, _ := newUI(t)
	fyne.DoAndWait(func() {
		u.SetTheme(ui.ThemeDark)
		u.SelectTab(ui.TabLaunch) // drawn in the dark theme first
		u.SelectTab(ui.TabHardware)
		u.SetTheme(ui.ThemeLight)
		u.SelectTab(ui.TabLaunch)
	})
	bg := luminance(fyne.CurrentApp().Settings().Theme().Color(theme.ColorNameBackground, theme.VariantLight))
	var texts, fields, dark, faint int
	fyne.DoAndWait(func() {
		drawn(u.Tabs().Selected().Content, false, false, func(o fyne.CanvasObject, inButton, inField bool) {
			switch x := o.(type) {
			case *canvas.Text:
				if inButton || strings.TrimSpace(x.Text) == "" {
					return // a button's text reads on the button's own colour
				}
				texts++
				l := luminance(x.Color)
				if ratio := (max(l, bg) + 0.05) / (min(l, bg) + 0.05); ratio < 3 {
					if faint++; faint <= 5 {
						t.Errorf("text %q reads at %.1f:1 on the light background", x.Text, ratio)
					}
				}
			case *canvas.Rectangle:
				if !inField || x.FillColor == nil {
					return
				}
				if _, _, _, a := x.FillColor.RGBA(); a < 0xf000 {
					return // scroll bars and outlines, not the field itself
				}
				fields++
				if luminance(x.FillColor) < 0.5 {
					if dark++; dark <= 5 {
						t.Errorf("a field's background is %v in the light theme", x.FillColor)
					}
				}
			}
		})
	})
	if texts < 50 || fields < 20 {
		t.Fatalf("found %d texts and %d fields in the Launch tab: the walk missed the flag form", texts, fields)
	}
	if dark+faint > 0 {
		t.Errorf("%d dark fields and %d faint texts of %d fields and %d texts", dark, faint, fields, texts)
	}
}

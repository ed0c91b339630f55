package matrix_test

import (
	"image/color"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/matrix"
)

// over is c composited over the background bg, as grey levels (0–255).
func over(c color.Color, bg color.Color) float64 {
	r, g, b, a := c.RGBA()
	br, bgG, bb, _ := bg.RGBA()
	al := float64(a) / 0xffff
	lum := func(x, y, z uint32) float64 {
		return (0.2126*float64(x) + 0.7152*float64(y) + 0.0722*float64(z)) / 0xffff * 255
	}
	// RGBA is alpha-premultiplied: result = c + (1 − α)·bg.
	return lum(r, g, b) + (1-al)*lum(br, bgG, bb)
}

// Issue 16 item 8: in the light theme (and the dark) a cell that will run
// and one predicted over capacity are told apart at a glance.
func TestWillRunAndOverCapacityDiffer(t *testing.T) {
	test.NewTempApp(t)
	for v, variant := range map[string]fyne.ThemeVariant{"light": theme.VariantLight, "dark": theme.VariantDark} {
		bg := theme.DefaultTheme().Color(theme.ColorNameBackground, variant)
		m := matrix.New()
		m.SetPendingText("will run")
		m.SetRun(&rundoc.Run{
			Plan: rundoc.Plan{Contexts: []int{0, 65536}, Concurrency: []int{1, 128}},
			Cells: []rundoc.Cell{
				{Phase: rundoc.PhaseDecode, Context: 65536, Concurrency: 128, Status: rundoc.StatusOverCapacity},
			},
		})
		willRun, overCap := over(m.Fill(0, 1), bg), over(m.Fill(65536, 128), bg)
		if d := willRun - overCap; d < 30 && d > -30 {
			t.Errorf("%s theme: will run reads %.0f, over capacity %.0f: too close to tell apart", v, willRun, overCap)
		}
	}
}

// Issue 41 minor 1: after a theme switch at run time, a cell without
// figures ("Over capacity") reads in the new theme's foreground. Painted
// once at build time, it stayed white on the light theme's grey.
func TestStatusCellFollowsARuntimeThemeSwitch(t *testing.T) {
	a := test.NewTempApp(t)
	a.Settings().SetTheme(theme.DarkTheme())
	m := matrix.New()
	w := test.NewWindow(m)
	t.Cleanup(w.Close)
	m.SetRun(run())
	for _, tc := range []struct {
		name    string
		th      fyne.Theme
		variant fyne.ThemeVariant
	}{{"light", theme.LightTheme(), theme.VariantLight}, {"dark", theme.DarkTheme(), theme.VariantDark}} {
		a.Settings().SetTheme(tc.th)
		bg := theme.DefaultTheme().Color(theme.ColorNameBackground, tc.variant)
		fill, ink := over(m.Fill(32768, 32), bg), over(m.TextColor(32768, 32), bg)
		if d := fill - ink; d < 80 && d > -80 {
			t.Errorf("%s theme after a switch: Over capacity text reads %.0f on a fill of %.0f (grey levels): too faint", tc.name, ink, fill)
		}
	}
}

package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// contrastTheme is the app's theme with a darker warning colour in the
// light variant: Fyne's orange on white is about 2:1, too faint for the
// demo and unsaved-history banners; this amber reads about 5:1 and stays
// the same hue. The dark variant's orange already contrasts well.
type contrastTheme struct{ fyne.Theme }

// lightWarning is the light variant's warning colour.
var lightWarning = color.NRGBA{R: 0xB4, G: 0x53, B: 0x09, A: 0xFF}

// Color is the wrapped theme's colour but for the light warning.
func (t contrastTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if n == theme.ColorNameWarning && v == theme.VariantLight {
		return lightWarning
	}
	return t.Theme.Color(n, v)
}

package ui

import (
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
)

// contrastTheme is the app's theme with a darker warning colour in the
// light variant: Fyne's orange on white is about 2:1, too faint for the
// demo and unsaved-history banners; this amber reads about 5:1 and stays
// the same hue. The dark variant's orange already contrasts well. With
// forced set, every colour is the variant the user chose in View ▸ Theme
// instead of the system's.
type contrastTheme struct {
	fyne.Theme
	forced  bool
	variant fyne.ThemeVariant
}

// lightWarning is the light variant's warning colour.
var lightWarning = color.NRGBA{R: 0xB4, G: 0x53, B: 0x09, A: 0xFF}

// lightDisabled is the light variant's "disabled" grey, which Fyne also
// gives low-importance labels (every flag's line of help, the token note):
// its own #e3e3e3 on white is about 1.3:1, unreadable; this grey is about
// 3.5:1, still plainly fainter than text.
var lightDisabled = color.NRGBA{R: 0x8A, G: 0x8A, B: 0x8A, A: 0xFF}

// darkDisabled is the dark variant's: Fyne's #393939 on its near-black
// background is about 1.6:1, so the help lines were barely readable in
// the dark theme; this grey is about 5:1, still plainly fainter than the
// near-white text.
var darkDisabled = color.NRGBA{R: 0x94, G: 0x94, B: 0x94, A: 0xFF}

// Color is the wrapped theme's colour but for the light warning and the
// greys of low-importance text.
func (t contrastTheme) Color(n fyne.ThemeColorName, v fyne.ThemeVariant) color.Color {
	if t.forced {
		v = t.variant
	}
	if n == theme.ColorNameWarning && v == theme.VariantLight {
		return lightWarning
	}
	if n == theme.ColorNameDisabled && v == theme.VariantLight {
		return lightDisabled
	}
	if n == theme.ColorNameDisabled && v == theme.VariantDark {
		return darkDisabled
	}
	return t.Theme.Color(n, v)
}

// Theme choices of View ▸ Theme, as stored in preferences.
const (
	ThemeSystem = "system"
	ThemeLight  = "light"
	ThemeDark   = "dark"
)

// themeLabels are the menu's words for the choices, in menu order.
var themeLabels = []struct{ choice, label string }{
	{ThemeSystem, "Follow the system"},
	{ThemeLight, "Light"},
	{ThemeDark, "Dark"},
}

// themeFor is the app's theme for a choice (unknown choices follow the
// system).
func themeFor(choice string) fyne.Theme {
	t := contrastTheme{Theme: theme.DefaultTheme()}
	switch choice {
	case ThemeLight:
		t.forced, t.variant = true, theme.VariantLight
	case ThemeDark:
		t.forced, t.variant = true, theme.VariantDark
	}
	return t
}

// SetTheme applies and remembers a theme choice (ThemeSystem, ThemeLight
// or ThemeDark).
func (u *UI) SetTheme(choice string) {
	u.app.Preferences().SetString(prefTheme, choice)
	u.themeGen++
	if u.tabs != nil {
		// Fyne themes what is on screen: the tab shown now.
		u.tabThemed[u.tabs.Selected()] = u.themeGen
	}
	u.app.Settings().SetTheme(themeFor(choice))
	// Charts are pictures drawn in the theme's palette: draw them again.
	if r := u.Results.Run(); r != nil {
		u.Results.SetRun(r, nil)
	}
	if rs := u.Compare.Runs(); len(rs) > 0 {
		u.Compare.SetRuns(rs, nil)
	}
	// So are Tune's charts and bars (their colours read when drawn).
	if d := u.Tune.Doc(); d != nil && !u.Tune.Running() {
		u.Tune.Show(d)
	}
	if u.themeMenu != nil {
		for i, it := range u.themeMenu.Items {
			it.Checked = themeLabels[i].choice == choice
		}
		if m := u.win.MainMenu(); m != nil {
			m.Refresh()
		}
	}
}

// themeTab brings a tab that is being shown up to date with the theme.
// Fyne applies a theme change only to what is on screen, and a tab's own
// Refresh does not reach every widget inside it (an accordion refreshes its
// headers, not the flag rows under them): after View ▸ Theme ▸ Light the
// Launch form, built in the dark theme, kept its black fields and
// near-white labels. So a tab first shown after a switch gets the theme
// applied as Fyne applies it to the screen, by setting it again, now that
// the tab is on screen; otherwise a refresh is enough.
func (u *UI) themeTab(it *container.TabItem) {
	if u.tabThemed[it] == u.themeGen {
		it.Content.Refresh()
		return
	}
	u.tabThemed[it] = u.themeGen
	u.app.Settings().SetTheme(u.app.Settings().Theme())
}

// ThemeChoice is the theme choice in effect.
func (u *UI) ThemeChoice() string {
	return u.app.Preferences().StringWithFallback(prefTheme, ThemeSystem)
}

// newThemeMenu is View ▸ Theme, its items ticked by the choice.
func (u *UI) newThemeMenu() *fyne.Menu {
	m := fyne.NewMenu("Theme")
	for _, tl := range themeLabels {
		choice := tl.choice
		it := fyne.NewMenuItem(tl.label, func() { u.SetTheme(choice) })
		it.Checked = choice == u.ThemeChoice()
		m.Items = append(m.Items, it)
	}
	return m
}

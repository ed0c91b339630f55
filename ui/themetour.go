//go:build tour

package ui

import "time"

// tourThemeSwitch is the screenshot tour's last part: View ▸ Theme switched
// to the other variant at run time (light after a dark tour, dark after a
// light one), then the Launch form and the Run tab's matrix, which must
// take the new theme's colours without a restart (issue 41).
func (u *UI) tourThemeSwitch(step func(func()), shot func(string, time.Duration)) {
	step(func() {
		u.SelectTab(TabHardware)
		if u.ThemeChoice() == ThemeDark {
			u.SetTheme(ThemeLight)
		} else {
			u.SetTheme(ThemeDark)
		}
		u.SelectTab(TabLaunch)
	})
	shot("14-theme-switched-launch", time.Second)
	step(func() { u.SelectTab(TabRun) })
	shot("14b-theme-switched-run", 800*time.Millisecond)
}

//go:build tour

package ui

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/export"
)

// tourAfterTune is the tour's part after the sweep (issue 41): Compare of
// two of the sweep's variants with the launch flags that differ (the
// charts' loading state is too short here to catch: ui/compare's test
// has it); then the export dialog at PNG and the outcome
// of exporting everything into a folder.
func (u *UI) tourAfterTune(dir string, step func(func()), shot func(string, time.Duration)) error {
	listed := make(chan struct{})
	step(func() { u.History.ReloadThen(func() { close(listed) }) })
	<-listed
	// Two of the sweep's variants: runs of one model whose launch flags
	// differ. The list holds summaries; each is read whole.
	var shown []*rundoc.Run
	step(func() { shown = u.History.Shown() })
	var full []*rundoc.Run
	for _, r := range shown {
		g, err := u.History.Source().Get(context.Background(), r.UUID)
		if err != nil {
			return err
		}
		if g.Launch != nil && isSweepRun(g) && len(full) < 2 {
			full = append(full, g)
		}
	}
	if len(full) < 2 {
		return errors.New("the history has fewer than two runs of the sweep to compare their flags")
	}
	compared := make(chan struct{})
	step(func() {
		u.Compare.SetRuns(full, func() { close(compared) })
		u.SelectTab(TabCompare)
	})
	<-compared
	shot("15-compare-flags", time.Second)

	step(func() {
		u.SelectTab(TabResults)
		export.ShowFormat(u.win, u.app, u.Exportable([]*rundoc.Run{u.Results.Run()}), report.PNG)
	})
	shot("16-export-dialog", 800*time.Millisecond)
	step(u.closeDialogs)
	out := filepath.Join(os.Getenv("HOME"), "RigBench export")
	if err := os.MkdirAll(out, 0o755); err != nil {
		return err
	}
	exported := make(chan struct{})
	step(func() {
		export.ExportEverything(u.win, out, u.Exportable([]*rundoc.Run{u.Results.Run()}), func() { close(exported) })
	})
	<-exported
	shot("17-export-everything", 800*time.Millisecond)
	step(u.closeDialogs)
	return nil
}

// closeDialogs removes the dialogs on the window.
func (u *UI) closeDialogs() {
	ov := u.win.Canvas().Overlays()
	for top := ov.Top(); top != nil; top = ov.Top() {
		ov.Remove(top)
	}
}

// isSweepRun reports whether r is a variant of a Tune sweep (tagged
// "sweep:ID").
func isSweepRun(r *rundoc.Run) bool {
	for _, t := range r.Tags {
		if strings.HasPrefix(t, "sweep:") {
			return true
		}
	}
	return false
}

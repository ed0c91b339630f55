package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/dialogkeys"
	"github.com/rigbench/rigbench/ui/export"
	"github.com/rigbench/rigbench/ui/target"
)

// checkQuality is the Run view's QualityFunc: the probe, read by
// session.NewQualityProbe (the CLI's reader), against the chosen target
// read by session.TargetInput.QualityTarget (the demo with the Launch
// page's flags, the endpoint, or the server the Launch page started). A
// baseline that cannot pair is refused before anything is asked.
func (u *UI) checkQuality(ctx context.Context, name string, base *quality.Result, progress func(done, total int)) (*quality.Result, error) {
	var in session.TargetInput
	fyne.DoAndWait(func() { in = u.targetInput() })
	t, err := in.QualityTarget()
	if err != nil {
		return nil, errors.New(strings.TrimSuffix(target.Text(err), "."))
	}
	probe, header, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: name, Demo: t.Demo, Progress: progress,
		DatasetDir: datasetDir})
	if err != nil {
		return nil, forApp(err)
	}
	if base != nil {
		if err := quality.Comparable(base, header); err != nil {
			return nil, fmt.Errorf("the baseline does not pair with this check: %w", err)
		}
	}
	res, err := u.svc.Quality(ctx, t, probe)
	return res, forApp(err)
}

// openQualityBaseline asks for a saved result (the CLI's --json, the
// app's Export, or the seed tool's completion-stats report) and offers it
// as the Quality check's baseline.
func (u *UI) openQualityBaseline() {
	dialogkeys.ShowFileOpen(u.win, []string{".json"}, u.addQualityBaseline)
}

// addQualityBaseline reads path and offers it as the baseline, or says
// in one sentence why it cannot.
func (u *UI) addQualityBaseline(path string) {
	res, err := quality.ReadFile(path)
	if err != nil {
		dialogkeys.ShowError(err, u.win)
		return
	}
	u.Run.AddQualityBaseline(fmt.Sprintf("%s from %s", res.Probe, filepath.Base(path)), res)
}

// exportQuality saves a check's result as rigbench.quality/v1 JSON, the
// file `rigbench-cli quality --baseline` and `quality compare` read.
func (u *UI) exportQuality(r *quality.Result) {
	name := "quality-" + strings.NewReplacer(":", "-", "/", "-").Replace(r.Probe) + ".json"
	export.SaveAs(u.win, name, []string{".json"}, func(path string) error { return safefile.Write(path, r.Write) })
}

// datasetDir is the folder beside the history where the app keeps the
// quality data sets it fetched (session.QualityDatasetDir), as the CLI does.
func datasetDir() (string, error) {
	path, err := store.ResolvePath("", os.Getenv)
	if err != nil {
		return "", err
	}
	return session.QualityDatasetDir(path), nil
}

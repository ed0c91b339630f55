package ui

import (
	"os"
	"path/filepath"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/predicted"
)

// predictSource is what the app's predictions learn from and look models
// up in, as `rigbench-cli predict` does: the history (when it opened; a
// session-only list has no runs worth learning from) and the "models"
// folder beside the history file.
func predictSource(src history.Source) predicted.Source {
	var s predicted.Source
	if h, ok := src.(predict.History); ok {
		s.History = h
	}
	if path, err := store.ResolvePath("", os.Getenv); err == nil {
		s.CacheDir = filepath.Join(filepath.Dir(path), "models")
	}
	return s
}

// runPrediction is the Run view's prediction for the chosen target (nil:
// none), the Launch view's request for it.
func (u *UI) runPrediction() *predict.Request {
	req, ok := u.Launch.RunPredictRequest()
	if !ok {
		return nil
	}
	return &req
}

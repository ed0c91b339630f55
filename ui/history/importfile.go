package history

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// ErrAlreadyInHistory is ImportFile's answer for a run whose UUID the
// history already holds: nothing was changed, and the user should hear so
// rather than see nothing happen.
var ErrAlreadyInHistory = errors.New("the run is already in the history")

// ImportFile reads path (report.OpenRun: the CLI's reader too) and stores the run in src. A run already in the
// history is returned with ErrAlreadyInHistory.
func ImportFile(ctx context.Context, src Source, path string) (*rundoc.Run, error) {
	r, err := report.OpenRun(ctx, path)
	if err != nil {
		return nil, err
	}
	// A reference file's name spells the model with "-" for "/".
	if listed, lerr := src.List(ctx); lerr == nil {
		r.Server.Model = NormaliseModel(r.Server.Model, listed)
	}
	added, err := src.Import(ctx, r)
	if err != nil {
		return nil, fmt.Errorf("the run in %s could not be imported: %w", filepath.Base(path), err)
	}
	if !added {
		return r, ErrAlreadyInHistory
	}
	return r, nil
}

package history

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/report"
)

// ReadFile reads a run from an exported JSON file or a reference CSV
// (told apart by the extension). The document is kept as written (the
// history notes the import itself), so export → import → export gives the
// same file.
func ReadFile(path string) (*bench.Run, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("could not open %s: %w", filepath.Base(path), err)
	}
	defer f.Close()
	var r *bench.Run
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		r, err = report.ReadReferenceCSVNamed(f, filepath.Base(path))
		// A CSV carries no start time: the run is dated at its import, as
		// rigbench-cli import does, so its JSON export reads back
		// (bench.ReadRun requires created_at).
		if err == nil && r.CreatedAt.IsZero() {
			r.CreatedAt = time.Now().UTC().Truncate(time.Second)
		}
	} else {
		r, err = bench.ReadRun(f)
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return r, nil
}

// ImportFile reads path and stores the run in src.
func ImportFile(ctx context.Context, src Source, path string) (*bench.Run, error) {
	r, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := src.Import(ctx, r); err != nil {
		return nil, err
	}
	return r, nil
}

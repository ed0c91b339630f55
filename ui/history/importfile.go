package history

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// ErrAlreadyInHistory is ImportFile's answer for a run whose UUID the
// history already holds: nothing was changed, and the user should hear so
// rather than see nothing happen.
var ErrAlreadyInHistory = errors.New("the run is already in the history")

// schemaFamily is the part of bench.Schema every version of a RigBench run
// file shares ("rigbench.run/"), which tells another version's file from
// a file that is no run at all.
var schemaFamily = rundoc.Schema[:strings.LastIndex(rundoc.Schema, "/")+1]

// ReadFile reads a run from an exported JSON file or a reference CSV
// (told apart by the extension). The document is kept as written (the
// history notes the import itself), so export → import → export gives the
// same file. Its errors are sentences for the import dialog, which
// capitalises the first letter: they start with words, never with the file
// name, and say what to do next.
func ReadFile(path string) (*rundoc.Run, error) {
	name := filepath.Base(path)
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the file %s could not be opened (%v): check that it exists and that you may read it", name, err)
	}
	defer f.Close()
	if strings.EqualFold(filepath.Ext(path), ".csv") {
		r, err := report.ReadReferenceCSVNamed(f, name)
		if err != nil {
			return nil, fmt.Errorf("the file %s could not be imported: %w", name, err)
		}
		// A CSV carries no start time: the run is dated at its import, as
		// rigbench-cli import does, so its JSON export reads back
		// (bench.ReadRun requires created_at).
		if r.CreatedAt.IsZero() {
			r.CreatedAt = time.Now().UTC().Truncate(time.Second)
		}
		return r, nil
	}
	data, err := io.ReadAll(io.LimitReader(f, rundoc.MaxRunJSONBytes+1))
	if err != nil {
		return nil, fmt.Errorf("the file %s could not be read (%v): copy it somewhere local and import it again", name, err)
	}
	if len(data) > rundoc.MaxRunJSONBytes {
		// Read only up to the limit, it would look cut short below.
		return nil, fmt.Errorf("the file %s is larger than %d MiB, more than any RigBench run: it is not a run file", name, rundoc.MaxRunJSONBytes>>20)
	}
	// Some editors start UTF-8 text with a byte-order mark; skipping it
	// costs nothing (rundoc.ReadRun skips it too).
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	if err := checkRunFile(data); err != nil {
		return nil, fmt.Errorf("the file %s %w", name, err)
	}
	r, err := rundoc.ReadRun(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the file %s could not be imported: %w", name, err)
	}
	return r, nil
}

// checkRunFile tells, before bench.ReadRun reads the document, the three
// cases a user can act on: a file cut short, one that is no RigBench run,
// and one from another version of RigBench. Its errors finish the
// sentence "the file NAME …".
func checkRunFile(data []byte) error {
	if len(bytes.TrimSpace(data)) == 0 {
		return errors.New("is empty: export the run again")
	}
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&probe); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("is cut short: export the run again, or copy the whole file")
		}
		return errors.New("is not a RigBench run file (it is not a JSON document): pick a .json file that RigBench exported, or a reference .csv")
	}
	switch {
	case probe.Schema == nil:
		return errors.New(`is not a RigBench run file (it has no "schema" field): pick a .json file that RigBench exported, or a reference .csv`)
	case *probe.Schema == rundoc.Schema:
		return nil
	case strings.HasPrefix(*probe.Schema, schemaFamily):
		return fmt.Errorf("comes from another version of RigBench (%q; this one reads %q): update RigBench, or export the run again with this version", *probe.Schema, rundoc.Schema)
	}
	return fmt.Errorf("is not a RigBench run file (its schema is %q): pick a .json file that RigBench exported, or a reference .csv", *probe.Schema)
}

// ImportFile reads path and stores the run in src. A run already in the
// history is returned with ErrAlreadyInHistory.
func ImportFile(ctx context.Context, src Source, path string) (*rundoc.Run, error) {
	r, err := ReadFile(path)
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

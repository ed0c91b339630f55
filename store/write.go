package store

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"reflect"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// SaveRun stores the whole run, replacing any run with the same UUID and
// all its cells, in one transaction. Name, tags and notes are taken from r.
func (s *DB) SaveRun(ctx context.Context, r *rundoc.Run) error {
	_, err := s.saveRun(ctx, r)
	return err
}

// saveRun is SaveRun, returning the run's row id.
func (s *DB) saveRun(ctx context.Context, r *rundoc.Run) (int64, error) {
	if r == nil || r.UUID == "" {
		return 0, errors.New("the run has no UUID; it cannot be saved")
	}
	var id int64
	return id, s.write(ctx, func(tx *sql.Tx) error {
		var err error
		id, err = upsertRun(ctx, tx, r, runExtras{})
		if err != nil {
			return err
		}
		if _, err := tx.ExecContext(ctx, `DELETE FROM cells WHERE run_id = ?`, id); err != nil {
			return err
		}
		ins, err := prepareCellWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer ins.close()
		for i := range r.Cells {
			if err := ins.insert(ctx, id, i, &r.Cells[i]); err != nil {
				return err
			}
		}
		return refreshHeadline(ctx, tx, id)
	})
}

// Import stores a run that came from a file, validated by
// bench.ValidateRun. It is idempotent by UUID: a run already in the history
// is left as it is and inserted is false. The document is stored unchanged
// (so export → import → export gives the same bytes); the history notes the
// import time for itself (Summary.Imported). A run exported while still
// running arrives interrupted, since nothing here will finish it.
//
// A file whose run the history holds with fewer cells (the copy a run
// writes when the history could not take its cells, a full disk say)
// completes it: see ImportRun, whose outcome Import reports as inserted.
func (s *DB) Import(ctx context.Context, r *rundoc.Run) (inserted bool, err error) {
	res, err := s.ImportRun(ctx, r)
	return res.Outcome != ImportSame, err
}

// ImportOutcome is what an import did.
type ImportOutcome int

// What an import did.
const (
	// ImportSame: the history holds the run already, every cell of the
	// file included; nothing changed.
	ImportSame ImportOutcome = iota
	// ImportInserted: the run was new to the history.
	ImportInserted
	// ImportCompleted: the history held the run with some of the file's
	// cells missing; the file's run replaced it, every cell the history
	// held being the same in the file.
	ImportCompleted
)

// ImportResult is an import's outcome; Added counts the cells a
// completion added.
type ImportResult struct {
	Outcome ImportOutcome
	Added   int
}

// ImportConflictError refuses a file whose run the history holds with
// other content: a cell both have differs, or the history has cells the
// file lacks and the file has cells the history lacks. Nothing is changed:
// which of the two is right is the user's call, not an import's.
type ImportConflictError struct {
	ID string
	// Cell names the first cell that differs ("" when the run's cells
	// agree but each side has cells the other lacks).
	Cell string
}

func (e *ImportConflictError) Error() string {
	what := "cells the history lacks while lacking some it has"
	if e.Cell != "" {
		what = "other figures for cell " + e.Cell
	}
	return fmt.Sprintf("run %s is in the history already, and this file has %s; nothing was imported: delete the run from the history first to replace it, or import the file into another history",
		rundoc.ShortID(e.ID), what)
}

// ImportRun is Import with its outcome told apart: a new run is inserted;
// a run the history holds is left as it is when the file adds nothing,
// completed when the file holds every cell the history has, the same, and
// more (ImportCompleted, with the count), and refused with an
// *ImportConflictError otherwise. "Already in the history" for a file that
// held 13 cells the history had lost made a recovery copy useless (issue
// 36 item 2).
func (s *DB) ImportRun(ctx context.Context, r *rundoc.Run) (ImportResult, error) {
	if err := rundoc.ValidateRun(r); err != nil {
		return ImportResult{}, err
	}
	old, err := s.Get(ctx, r.UUID)
	switch {
	case err == nil:
		return s.complete(ctx, old, r)
	case !errors.Is(err, ErrNotFound):
		return ImportResult{}, err
	}
	inserted, err := s.insertImported(ctx, r)
	if err != nil || !inserted {
		return ImportResult{}, err
	}
	return ImportResult{Outcome: ImportInserted}, nil
}

// complete compares the history's run with a file's copy of it and keeps
// the one that holds the other.
func (s *DB) complete(ctx context.Context, old, r *rundoc.Run) (ImportResult, error) {
	if old.Status == rundoc.RunRunning {
		// Open marks the runs of recorders that died interrupted: this
		// one is being measured now, and its recorder would write over
		// what the import wrote.
		return ImportResult{}, fmt.Errorf("run %s is still being measured by a RigBench: import the file once that run has stopped", rundoc.ShortID(old.UUID))
	}
	key := func(c *rundoc.Cell) string { return c.Label() }
	mine := map[string]string{}
	for i := range old.Cells {
		mine[key(&old.Cells[i])] = cellJSON(&old.Cells[i])
	}
	added, common := 0, 0
	for i := range r.Cells {
		c := &r.Cells[i]
		have, ok := mine[key(c)]
		switch {
		case !ok:
			added++
		case have != cellJSON(c):
			return ImportResult{}, &ImportConflictError{ID: r.UUID, Cell: key(c)}
		default:
			common++
		}
	}
	switch {
	case added == 0:
		return ImportResult{Outcome: ImportSame}, nil // the file adds nothing
	case common < len(old.Cells):
		return ImportResult{}, &ImportConflictError{ID: r.UUID}
	}
	doc := *r
	if doc.Status == rundoc.RunRunning {
		doc.Status = rundoc.RunInterrupted
	}
	// The history's own labels stand: the user may have renamed the run.
	doc.Name, doc.Tags, doc.Notes = old.Name, old.Tags, old.Notes
	if err := s.SaveRun(ctx, &doc); err != nil {
		return ImportResult{}, err
	}
	return ImportResult{Outcome: ImportCompleted, Added: added}, nil
}

// cellJSON is a cell as the run document writes it, for comparing two
// copies of one cell.
func cellJSON(c *rundoc.Cell) string {
	d := *c
	d.StartedAt, d.WindowStart = d.StartedAt.UTC(), d.WindowStart.UTC()
	b, _ := json.Marshal(&d)
	return string(b)
}

// insertImported inserts a run new to the history; false when another
// process inserted it meanwhile.
func (s *DB) insertImported(ctx context.Context, r *rundoc.Run) (inserted bool, err error) {
	err = s.write(ctx, func(tx *sql.Tx) error {
		var one int
		switch err := tx.QueryRowContext(ctx, `SELECT 1 FROM runs WHERE uuid = ?`, r.UUID).Scan(&one); {
		case err == nil:
			return nil
		case !errors.Is(err, sql.ErrNoRows):
			return err
		}
		doc := *r
		if doc.Status == rundoc.RunRunning {
			doc.Status = rundoc.RunInterrupted
		}
		id, err := upsertRun(ctx, tx, &doc, runExtras{importedAt: time.Now()})
		if err != nil {
			return err
		}
		ins, err := prepareCellWriter(ctx, tx)
		if err != nil {
			return err
		}
		defer ins.close()
		for i := range doc.Cells {
			if err := ins.insert(ctx, id, i, &doc.Cells[i]); err != nil {
				return err
			}
		}
		inserted = true
		return refreshHeadline(ctx, tx, id)
	})
	return inserted, err
}

// write runs fn in one write transaction and explains a failure (a full
// disk, a read-only file) in a sentence. On any error the transaction is
// rolled back, so the history keeps its previous state.
func (s *DB) write(ctx context.Context, fn func(*sql.Tx) error) error {
	tx, err := s.sql.BeginTx(ctx, nil)
	if err != nil {
		return explain(err, s.path)
	}
	defer tx.Rollback()
	if err := fn(tx); err != nil {
		return explain(err, s.path)
	}
	return explain(tx.Commit(), s.path)
}

// runExtras are the history's own facts about a run, outside the document.
type runExtras struct {
	importedAt  time.Time
	recorderPID int
}

// upsertRun inserts or updates the run row (not its cells) and returns its
// row id, which stays the same across updates so cells keep pointing at it.
func upsertRun(ctx context.Context, tx *sql.Tx, r *rundoc.Run, x runExtras) (int64, error) {
	plan, err := json.Marshal(r.Plan)
	if err != nil {
		return 0, err
	}
	hw, err := jsonCol(r.Hardware, r.Hardware == nil)
	if err != nil {
		return 0, err
	}
	launch, err := jsonCol(r.Launch, r.Launch == nil)
	if err != nil {
		return 0, err
	}
	tags, err := jsonCol(r.Tags, len(r.Tags) == 0)
	if err != nil {
		return 0, err
	}
	var flags string
	if r.Launch != nil {
		flags = strings.Join(r.Launch.Args, " ")
	}
	var rigKind string
	if r.Rig != nil {
		rigKind = r.Rig.Kind
	}
	var id int64
	err = tx.QueryRowContext(ctx, `
INSERT INTO runs (uuid, name, tags, notes, status, created_at, finished_at, origin, simulated, error,
	model, engine, engine_version, max_model_len, kv_capacity_tokens, kv_capacity_source, has_metrics,
	has_tokenize, gpu_name, flags, rig_kind, rig_name, imported_at, recorder_pid)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
ON CONFLICT (uuid) DO UPDATE SET
	name = excluded.name, tags = excluded.tags, notes = excluded.notes, status = excluded.status,
	created_at = excluded.created_at, finished_at = excluded.finished_at, origin = excluded.origin,
	simulated = excluded.simulated, error = excluded.error, model = excluded.model,
	engine = excluded.engine, engine_version = excluded.engine_version,
	max_model_len = excluded.max_model_len, kv_capacity_tokens = excluded.kv_capacity_tokens,
	kv_capacity_source = excluded.kv_capacity_source, has_metrics = excluded.has_metrics,
	has_tokenize = excluded.has_tokenize, gpu_name = excluded.gpu_name, flags = excluded.flags,
	rig_kind = excluded.rig_kind, rig_name = excluded.rig_name,
	imported_at = COALESCE(runs.imported_at, excluded.imported_at), recorder_pid = excluded.recorder_pid
RETURNING id`,
		r.UUID, r.Name, tags, r.Notes, string(r.Status), nanos(r.CreatedAt), nanos(r.FinishedAt),
		r.Origin, boolInt(r.Simulated), r.Error,
		r.Server.Model, r.Server.Engine, r.Server.Version, r.Server.MaxModelLen, r.Server.KVCapacityTokens,
		r.Server.KVCapacitySource, boolInt(r.Server.HasMetrics), boolInt(r.Server.HasTokenize),
		r.Hardware.GPUNames(), flags, rigKind, r.RigName(), nanos(x.importedAt), x.recorderPID,
	).Scan(&id)
	if err != nil {
		return 0, err
	}
	facts, err := jsonCol(r.Server.ServerFacts, reflect.ValueOf(r.Server.ServerFacts).IsZero())
	if err != nil {
		return 0, err
	}
	source, err := jsonCol(r.Source, r.Source == nil)
	if err != nil {
		return 0, err
	}
	qual, err := jsonCol(r.Quality, r.Quality == nil)
	if err != nil {
		return 0, err
	}
	_, err = tx.ExecContext(ctx, `INSERT OR REPLACE INTO run_documents (run_id, plan, hardware, launch, server_facts, source, quality) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		id, string(plan), hw, launch, facts, source, qual)
	return id, err
}

// refreshHeadline recomputes the list's denormalised figures of one run
// from its cells: the cell count, the best decode total tok/s over Valid
// cells (a queued cell's rate is real but not what the card sustains with
// all N in flight), and prompt tok/s of the 8K prefill cell. The unique
// (run_id, phase, context, concurrency) index makes this a short range scan.
func refreshHeadline(ctx context.Context, tx *sql.Tx, runID int64) error {
	_, err := tx.ExecContext(ctx, `
UPDATE runs SET
	cell_count = (SELECT count(*) FROM cells WHERE run_id = ?1),
	best_decode_tok_s = COALESCE((SELECT max(total_tok_s) FROM cells
		WHERE run_id = ?1 AND phase = 'decode' AND status = 'Valid'), 0),
	prefill_8k_tok_s = COALESCE((SELECT prompt_tok_s FROM cells
		WHERE run_id = ?1 AND phase = 'prefill' AND context = 8192 AND concurrency = 1), 0)
WHERE id = ?1`, runID)
	if err != nil {
		return err
	}
	return refreshSummary(ctx, tx, runID)
}

// currentPID is the recorder_pid written by this process's Recorder.
var currentPID = os.Getpid()

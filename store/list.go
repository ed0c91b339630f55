package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
)

// Filter selects runs for List. Zero fields do not filter.
type Filter struct {
	// GPU and Model match case-insensitively anywhere in the GPU label and
	// the model name ("3060" finds "NVIDIA GeForce RTX 3060").
	GPU, Model string
	// Since and Until bound the creation time: Since ≤ created < Until.
	Since, Until time.Time
	// Tag keeps runs carrying exactly this tag.
	Tag string
	// Limit caps the number of runs returned, newest first; 0 is no cap.
	Limit int
}

// Summary is one line of the history list: what identifies a run and its
// headline figures, without cells.
type Summary struct {
	UUID       string
	Name       string
	Tags       []string
	CreatedAt  time.Time
	FinishedAt time.Time
	Status     bench.RunStatus
	Origin     string
	// Imported is true when the run came into this history by Import.
	Imported  bool
	Simulated bool
	// GPU labels the run's cards ("RTX 3060", "2× RTX 4090").
	GPU           string
	Model         string
	Engine        string
	EngineVersion string
	// Flags are the launch arguments after the model, space-separated.
	Flags string
	// Cells is the number of cells stored.
	Cells int
	// BestDecodeTokS is the highest total tok/s of a Valid decode cell.
	BestDecodeTokS float64
	// Prefill8KTokS is prompt tok/s of the 8K prefill cell, 0 if none.
	Prefill8KTokS float64
}

// List returns the runs matching f, newest first. It reads only the runs
// table (headline figures are kept there as cells are written), so listing
// a large history stays fast.
func (s *DB) List(ctx context.Context, f Filter) ([]Summary, error) {
	var where []string
	var args []any
	if f.GPU != "" {
		where = append(where, "instr(lower(gpu_name), ?) > 0")
		args = append(args, strings.ToLower(f.GPU))
	}
	if f.Model != "" {
		where = append(where, "instr(lower(model), ?) > 0")
		args = append(args, strings.ToLower(f.Model))
	}
	if !f.Since.IsZero() {
		where = append(where, "created_at >= ?")
		args = append(args, f.Since.UnixNano())
	}
	if !f.Until.IsZero() {
		where = append(where, "created_at < ?")
		args = append(args, f.Until.UnixNano())
	}
	if f.Tag != "" {
		where = append(where, "EXISTS (SELECT 1 FROM json_each(runs.tags) WHERE json_each.value = ?)")
		args = append(args, f.Tag)
	}
	q := `SELECT uuid, name, tags, created_at, finished_at, status, origin, imported_at, simulated, gpu_name,
	model, engine, engine_version, flags, cell_count, best_decode_tok_s, prefill_8k_tok_s FROM runs`
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	q += " ORDER BY created_at DESC, id DESC"
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, explain(err, s.path)
	}
	defer rows.Close()
	var out []Summary
	for rows.Next() {
		var (
			m                           Summary
			tags                        sql.NullString
			created, finished, imported sql.NullInt64
			status                      string
			simulated                   int
		)
		if err := rows.Scan(&m.UUID, &m.Name, &tags, &created, &finished, &status, &m.Origin, &imported,
			&simulated, &m.GPU, &m.Model, &m.Engine, &m.EngineVersion, &m.Flags, &m.Cells,
			&m.BestDecodeTokS, &m.Prefill8KTokS); err != nil {
			return nil, explain(err, s.path)
		}
		if err := fromJSONCol("tags", tags, &m.Tags); err != nil {
			return nil, err
		}
		m.CreatedAt, m.FinishedAt = fromNanos(created), fromNanos(finished)
		m.Status, m.Imported, m.Simulated = bench.RunStatus(status), imported.Valid, simulated != 0
		out = append(out, m)
	}
	return out, explain(rows.Err(), s.path)
}

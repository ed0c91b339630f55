package store

import (
	"context"
	"database/sql"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Filter selects runs for List. Zero fields do not filter.
type Filter struct {
	// GPU and Model match case-insensitively anywhere in the GPU label and
	// the model name ("3060" finds "NVIDIA GeForce RTX 3060").
	GPU, Model string
	// Rig matches case-insensitively anywhere in the rig's name ("basement"
	// finds "ssh://basement"; runs that record no rig never match).
	Rig string
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
	Status     rundoc.RunStatus
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
	// Rig is the name of the rig the server ran on ("" when not recorded).
	Rig string
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
	if f.Rig != "" {
		where = append(where, "instr(lower(rig_name), ?) > 0")
		args = append(args, strings.ToLower(f.Rig))
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
	cond := ""
	if len(where) > 0 {
		cond = " WHERE " + strings.Join(where, " AND ")
	}
	// Size the result first: growing a slice of 10,000 summaries by
	// doubling cost more than this count, which reads only an index.
	var n int
	if err := s.sql.QueryRowContext(ctx, `SELECT count(*) FROM runs`+cond, args...).Scan(&n); err != nil {
		return nil, explain(err, s.path)
	}
	if f.Limit > 0 && f.Limit < n {
		n = f.Limit
	}
	q := `SELECT id, summary FROM runs` + cond + ` ORDER BY created_at DESC, id DESC`
	if f.Limit > 0 {
		q += " LIMIT ?"
		args = append(args, f.Limit)
	}
	rows, err := s.sql.QueryContext(ctx, q, args...)
	if err != nil {
		return nil, explain(err, s.path)
	}
	defer rows.Close()
	out := make([]Summary, 0, n)
	var stale []int // positions in out whose line must be rebuilt
	var staleIDs []int64
	in := interner{}
	for rows.Next() {
		var id int64
		var line sql.RawBytes // decoded before the next row, so not copied
		if err := rows.Scan(&id, &line); err != nil {
			return nil, explain(err, s.path)
		}
		m, err := decodeSummary(line, in)
		if err != nil {
			stale, staleIDs = append(stale, len(out)), append(staleIDs, id)
		}
		out = append(out, m)
	}
	if err := rows.Err(); err != nil {
		return nil, explain(err, s.path)
	}
	rows.Close()
	// A line another build encoded differently is read from the columns.
	for i, pos := range stale {
		m, err := summaryFromColumns(ctx, s.sql, staleIDs[i])
		if err != nil {
			return nil, explain(err, s.path)
		}
		out[pos] = m
	}
	return out, nil
}

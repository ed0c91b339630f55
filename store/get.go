package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// minPrefix is the shortest UUID prefix accepted as an ID: 4 hex digits
// tell apart about a hundred runs with rare clashes, and a clash is
// reported rather than guessed.
const minPrefix = 4

// Get returns the run with this UUID, or with the one UUID that starts with
// the given prefix, complete with its cells and their samples. It reads in
// one read transaction, so a run being recorded comes back consistent.
func (s *DB) Get(ctx context.Context, id string) (*rundoc.Run, error) {
	tx, err := s.sql.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil, explain(err, s.path)
	}
	defer tx.Rollback()
	rowID, uuid, err := resolve(ctx, tx, id)
	if err != nil {
		return nil, err
	}
	r, err := loadRun(ctx, tx, rowID, uuid)
	if err != nil {
		return nil, explain(err, s.path)
	}
	return r, nil
}

// resolve finds the row of a full UUID or unique UUID prefix.
func resolve(ctx context.Context, q querier, id string) (int64, string, error) {
	id = strings.ToLower(strings.TrimSpace(id))
	if len(id) < minPrefix || strings.Trim(id, "0123456789abcdef-") != "" {
		return 0, "", notFound(fmt.Sprintf("%q is not a run ID; use the UUID or its first %d or more characters", id, minPrefix))
	}
	// GLOB is case-sensitive and, with a fixed prefix, uses the uuid index.
	rows, err := q.QueryContext(ctx, `SELECT id, uuid FROM runs WHERE uuid GLOB ? ORDER BY uuid LIMIT 2`, id+"*")
	if err != nil {
		return 0, "", err
	}
	defer rows.Close()
	var ids []int64
	var uuids []string
	for rows.Next() {
		var rid int64
		var u string
		if err := rows.Scan(&rid, &u); err != nil {
			return 0, "", err
		}
		if u == id { // an exact match wins over longer ones
			return rid, u, nil
		}
		ids, uuids = append(ids, rid), append(uuids, u)
	}
	if err := rows.Err(); err != nil {
		return 0, "", err
	}
	switch len(ids) {
	case 0:
		return 0, "", notFound("no run has the ID " + id)
	case 1:
		return ids[0], uuids[0], nil
	}
	return 0, "", &userError{msg: fmt.Sprintf("the ID %s matches %s and %s at least; give more characters", id, uuids[0], uuids[1]), errs: []error{ErrAmbiguous}}
}

// notFound is ErrNotFound with a sentence of its own (the sentinel's text
// would only repeat the reason after it) and the hint to list the runs.
func notFound(msg string) error {
	return hinted(msg, "; ", HintListRuns, ErrNotFound)
}

// querier is what resolve needs of a *sql.DB or *sql.Tx.
type querier interface {
	QueryContext(ctx context.Context, query string, args ...any) (*sql.Rows, error)
}

func loadRun(ctx context.Context, tx *sql.Tx, rowID int64, uuid string) (*rundoc.Run, error) {
	r := &rundoc.Run{Schema: rundoc.Schema, UUID: uuid}
	var (
		tags, hw, launch   sql.NullString
		facts, source      sql.NullString
		qual               sql.NullString
		plan               string
		status             string
		created, finished  sql.NullInt64
		simulated, metrics int
		tokenize           int
		rigKind, rigName   string
	)
	err := tx.QueryRowContext(ctx, `
SELECT name, tags, notes, status, created_at, finished_at, origin, simulated, error, d.plan, d.hardware,
	d.launch, model, engine, engine_version, max_model_len, kv_capacity_tokens, kv_capacity_source,
	has_metrics, has_tokenize, d.server_facts, rig_kind, rig_name, d.source, d.quality
FROM runs JOIN run_documents d ON d.run_id = runs.id WHERE runs.id = ?`, rowID).Scan(&r.Name, &tags, &r.Notes, &status, &created, &finished, &r.Origin,
		&simulated, &r.Error, &plan, &hw, &launch, &r.Server.Model, &r.Server.Engine, &r.Server.Version,
		&r.Server.MaxModelLen, &r.Server.KVCapacityTokens, &r.Server.KVCapacitySource, &metrics, &tokenize, &facts, &rigKind, &rigName, &source, &qual)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, notFound("no run has the ID " + uuid)
	}
	if err != nil {
		return nil, err
	}
	r.Status = rundoc.RunStatus(status)
	r.CreatedAt, r.FinishedAt = fromNanos(created), fromNanos(finished)
	r.Simulated, r.Server.HasMetrics, r.Server.HasTokenize = simulated != 0, metrics != 0, tokenize != 0
	if err := fromJSONCol("plan", sql.NullString{String: plan, Valid: true}, &r.Plan); err != nil {
		return nil, err
	}
	if err := fromJSONCol("tags", tags, &r.Tags); err != nil {
		return nil, err
	}
	if err := fromJSONCol("server_facts", facts, &r.Server.ServerFacts); err != nil {
		return nil, err
	}
	if hw.Valid {
		r.Hardware = &hardware.Snapshot{}
		if err := fromJSONCol("hardware", hw, r.Hardware); err != nil {
			return nil, err
		}
	}
	if source.Valid {
		r.Source = &rundoc.Source{}
		if err := fromJSONCol("source", source, r.Source); err != nil {
			return nil, err
		}
	}
	if qual.Valid {
		r.Quality = &rundoc.Quality{}
		if err := fromJSONCol("quality", qual, r.Quality); err != nil {
			return nil, err
		}
	}
	if rigName != "" {
		r.Rig = &rundoc.Rig{Kind: rigKind, Name: rigName}
	}
	if launch.Valid {
		r.Launch = &rundoc.Launch{}
		if err := fromJSONCol("launch", launch, r.Launch); err != nil {
			return nil, err
		}
	}
	cellIDs, err := loadCells(ctx, tx, rowID, r)
	if err != nil {
		return nil, err
	}
	if err := loadServerSamples(ctx, tx, rowID, r, cellIDs); err != nil {
		return nil, err
	}
	return r, loadGPUSamples(ctx, tx, rowID, r, cellIDs)
}

// loadCells reads the run's cells in document order and returns the index
// in r.Cells of each cell row id.
func loadCells(ctx context.Context, tx *sql.Tx, runID int64, r *rundoc.Run) (map[int64]int, error) {
	rows, err := tx.QueryContext(ctx, `
SELECT id, phase, context, concurrency, status, reason, prompt_tok_s, prompt_tokens, total_tok_s,
	per_request_tok_s, ttft_ms, tbt_ms, ttft_p90_ms, ttft_p99_ms, tbt_p90_ms, tbt_p99_ms, avg_active,
	completed_requests, output_tokens, measured_s, token_count_source, chunk_tokens, token_count_mismatch,
	server_stats, gpu_stats, energy_j_per_token, started_at, window_start,
	prompt_tok_s_ci95, total_tok_s_ci95, per_request_tok_s_ci95, ttft_ms_ci95, tbt_ms_ci95, checks, window,
	roofline_pct, burst
FROM cells WHERE run_id = ? ORDER BY seq`, runID)
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	ids := map[int64]int{}
	for rows.Next() {
		var (
			c                rundoc.Cell
			id               int64
			phase, status    string
			mismatch         int
			srv, gpu, checks sql.NullString
			window, burst    sql.NullString
			started, windowS sql.NullInt64
		)
		if err := rows.Scan(&id, &phase, &c.Context, &c.Concurrency, &status, &c.Reason, &c.PromptTokS,
			&c.PromptTokens, &c.TotalTokS, &c.PerRequestTokS, &c.TTFTMs, &c.TBTMs, &c.TTFTP90Ms, &c.TTFTP99Ms,
			&c.TBTP90Ms, &c.TBTP99Ms, &c.AvgActive, &c.CompletedRequests, &c.OutputTokens, &c.MeasuredS,
			&c.TokenCountSource, &c.ChunkTokens, &mismatch, &srv, &gpu, &c.EnergyJPerToken, &started,
			&windowS, &c.PromptTokSCI95, &c.TotalTokSCI95, &c.PerRequestTokSCI95, &c.TTFTMsCI95,
			&c.TBTMsCI95, &checks, &window, &c.RooflinePct, &burst); err != nil {
			return nil, err
		}
		c.Phase, c.Status, c.TokenCountMismatch = rundoc.Phase(phase), rundoc.Status(status), mismatch != 0
		c.StartedAt, c.WindowStart = fromNanos(started), fromNanos(windowS)
		if srv.Valid {
			c.ServerStats = &rundoc.ServerStats{}
			if err := fromJSONCol("server_stats", srv, c.ServerStats); err != nil {
				return nil, err
			}
		}
		col := cellChecksCol{}
		if err := fromJSONCol("checks", checks, &col); err != nil {
			return nil, err
		}
		c.CellChecks, c.CellSpec = col.CellChecks, col.CellSpec
		if err := fromJSONCol("window", window, &c.CellWindow); err != nil {
			return nil, err
		}
		if err := fromJSONCol("burst", burst, &c.CellBurst); err != nil {
			return nil, err
		}
		if gpu.Valid {
			c.GPUStats = &hardware.GPUStats{}
			if err := fromJSONCol("gpu_stats", gpu, c.GPUStats); err != nil {
				return nil, err
			}
		}
		ids[id] = len(r.Cells)
		r.Cells = append(r.Cells, c)
	}
	return ids, rows.Err()
}

func loadServerSamples(ctx context.Context, tx *sql.Tx, runID int64, r *rundoc.Run, cellIDs map[int64]int) error {
	rows, err := tx.QueryContext(ctx, `
SELECT s.cell_id, s.t, s.running, s.waiting, s.kv_usage, s.prefix_cache_queries, s.prefix_cache_hits, s.preemptions
FROM server_samples s JOIN cells c ON c.id = s.cell_id
WHERE c.run_id = ? ORDER BY s.cell_id, s.seq`, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	// The server's facts are loaded before the samples: a figure it does
	// not report was stored as 0 and is absent again (issue 30 item 3).
	facts := r.Server.ServerFacts
	for rows.Next() {
		var id int64
		var s rundoc.ServerSample
		var kv, queries, hits, preempt float64
		if err := rows.Scan(&id, &s.T, &s.Running, &s.Waiting, &kv, &queries, &hits, &preempt); err != nil {
			return err
		}
		s.KVUsage = rundoc.Reported(kv, facts.Reports(rundoc.NotReportedKVUsage))
		s.PrefixCacheQueries = rundoc.Reported(queries, facts.Reports(rundoc.NotReportedPrefixCache))
		s.PrefixCacheHits = rundoc.Reported(hits, facts.Reports(rundoc.NotReportedPrefixCache))
		s.Preemptions = rundoc.Reported(preempt, facts.Reports(rundoc.NotReportedPreemptions))
		c := &r.Cells[cellIDs[id]]
		c.ServerSamples = append(c.ServerSamples, s)
	}
	return rows.Err()
}

func loadGPUSamples(ctx context.Context, tx *sql.Tx, runID int64, r *rundoc.Run, cellIDs map[int64]int) error {
	rows, err := tx.QueryContext(ctx, `
SELECT s.cell_id, s.t, s.gpu, s.power_w, s.sm_clock_mhz, s.mem_clock_mhz, s.temp_c, s.util_gpu,
	s.util_mem, s.vram_used_bytes, s.throttle, s.energy_j
FROM gpu_samples s JOIN cells c ON c.id = s.cell_id
WHERE c.run_id = ? ORDER BY s.cell_id, s.seq`, runID)
	if err != nil {
		return err
	}
	defer rows.Close()
	for rows.Next() {
		var id, vram int64
		var s hardware.GPUSample
		var throttle sql.NullString
		if err := rows.Scan(&id, &s.T, &s.GPU, &s.PowerW, &s.SMClockMHz, &s.MemClockMHz, &s.TempC,
			&s.UtilGPU, &s.UtilMem, &vram, &throttle, &s.EnergyJ); err != nil {
			return err
		}
		s.VRAMUsedBytes = uint64(vram)
		if err := fromJSONCol("throttle", throttle, &s.Throttle); err != nil {
			return err
		}
		c := &r.Cells[cellIDs[id]]
		c.GPUSamples = append(c.GPUSamples, s)
	}
	return rows.Err()
}

package store

import (
	"context"
	"database/sql"
	"errors"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// cellWriter inserts cells with their samples through statements prepared
// once per transaction, which keeps a cell with a minute of samples near a
// millisecond.
type cellWriter struct {
	cell, server, gpu *sql.Stmt
}

func prepareCellWriter(ctx context.Context, tx *sql.Tx) (*cellWriter, error) {
	w := &cellWriter{}
	var err error
	if w.cell, err = tx.PrepareContext(ctx, `
INSERT INTO cells (run_id, seq, phase, context, concurrency, status, reason, prompt_tok_s, prompt_tokens,
	total_tok_s, per_request_tok_s, ttft_ms, tbt_ms, ttft_p90_ms, ttft_p99_ms, tbt_p90_ms, tbt_p99_ms,
	avg_active, completed_requests, output_tokens, measured_s, token_count_source, chunk_tokens,
	token_count_mismatch, server_stats, gpu_stats, energy_j_per_token, started_at, window_start,
	prompt_tok_s_ci95, total_tok_s_ci95, per_request_tok_s_ci95, ttft_ms_ci95, tbt_ms_ci95, checks, window,
	roofline_pct, burst)
VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
RETURNING id`); err != nil {
		return nil, err
	}
	if w.server, err = tx.PrepareContext(ctx, `
INSERT INTO server_samples (cell_id, seq, t, running, waiting, kv_usage, prefix_cache_queries,
	prefix_cache_hits, preemptions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		w.close()
		return nil, err
	}
	if w.gpu, err = tx.PrepareContext(ctx, `
INSERT INTO gpu_samples (cell_id, seq, t, gpu, power_w, sm_clock_mhz, mem_clock_mhz, temp_c, util_gpu,
	util_mem, vram_used_bytes, throttle, energy_j) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`); err != nil {
		w.close()
		return nil, err
	}
	return w, nil
}

func (w *cellWriter) close() {
	for _, s := range []*sql.Stmt{w.cell, w.server, w.gpu} {
		if s != nil {
			s.Close()
		}
	}
}

// insert writes one cell at position seq of run runID, with its samples.
func (w *cellWriter) insert(ctx context.Context, runID int64, seq int, c *rundoc.Cell) error {
	srv, err := jsonCol(c.ServerStats, c.ServerStats == nil)
	if err != nil {
		return err
	}
	gpu, err := jsonCol(c.GPUStats, c.GPUStats == nil)
	if err != nil {
		return err
	}
	checks, err := jsonCol(cellChecksCol{c.CellChecks, c.CellSpec}, c.CellChecks == rundoc.CellChecks{} && c.CellSpec.IsZero())
	if err != nil {
		return err
	}
	window, err := jsonCol(c.CellWindow, c.CellWindow == rundoc.CellWindow{})
	if err != nil {
		return err
	}
	burst, err := jsonCol(c.CellBurst, c.CellBurst == rundoc.CellBurst{})
	if err != nil {
		return err
	}
	var id int64
	err = w.cell.QueryRowContext(ctx,
		runID, seq, string(c.Phase), c.Context, c.Concurrency, string(c.Status), c.Reason, c.PromptTokS,
		c.PromptTokens, c.TotalTokS, c.PerRequestTokS, c.TTFTMs, c.TBTMs, c.TTFTP90Ms, c.TTFTP99Ms,
		c.TBTP90Ms, c.TBTP99Ms, c.AvgActive, c.CompletedRequests, c.OutputTokens, c.MeasuredS,
		c.TokenCountSource, c.ChunkTokens, boolInt(c.TokenCountMismatch), srv, gpu, c.EnergyJPerToken,
		nanos(c.StartedAt), nanos(c.WindowStart),
		c.PromptTokSCI95, c.TotalTokSCI95, c.PerRequestTokSCI95, c.TTFTMsCI95, c.TBTMsCI95, checks, window, c.RooflinePct, burst,
	).Scan(&id)
	if err != nil {
		return err
	}
	for i, s := range c.ServerSamples {
		// The columns are NOT NULL (schema 1): a figure the server does
		// not report is written as 0 and read back absent by the run's
		// not_reported (loadServerSamples).
		if _, err := w.server.ExecContext(ctx, id, i, s.T, s.Running, s.Waiting, rundoc.Value(s.KVUsage),
			rundoc.Value(s.PrefixCacheQueries), rundoc.Value(s.PrefixCacheHits), rundoc.Value(s.Preemptions)); err != nil {
			return err
		}
	}
	for i, s := range c.GPUSamples {
		throttle, err := jsonCol(s.Throttle, len(s.Throttle) == 0)
		if err != nil {
			return err
		}
		if _, err := w.gpu.ExecContext(ctx, id, i, s.T, s.GPU, s.PowerW, s.SMClockMHz, s.MemClockMHz,
			s.TempC, s.UtilGPU, s.UtilMem, int64(s.VRAMUsedBytes), throttle, s.EnergyJ); err != nil {
			return err
		}
	}
	return nil
}

// putCell writes one finished cell of a run that is being recorded,
// replacing an earlier version of the same (phase, context, concurrency)
// cell and keeping its position; a new cell goes last.
func putCell(ctx context.Context, tx *sql.Tx, runID int64, c *rundoc.Cell) error {
	var oldID int64
	var seq int
	err := tx.QueryRowContext(ctx, `SELECT id, seq FROM cells WHERE run_id = ? AND phase = ? AND context = ? AND concurrency = ?`,
		runID, string(c.Phase), c.Context, c.Concurrency).Scan(&oldID, &seq)
	switch {
	case errors.Is(err, sql.ErrNoRows):
		if err := tx.QueryRowContext(ctx, `SELECT COALESCE(max(seq) + 1, 0) FROM cells WHERE run_id = ?`, runID).Scan(&seq); err != nil {
			return err
		}
	case err != nil:
		return err
	default:
		if _, err := tx.ExecContext(ctx, `DELETE FROM cells WHERE id = ?`, oldID); err != nil {
			return err
		}
	}
	w, err := prepareCellWriter(ctx, tx)
	if err != nil {
		return err
	}
	defer w.close()
	if err := w.insert(ctx, runID, seq, c); err != nil {
		return err
	}
	return refreshHeadline(ctx, tx, runID)
}

// cellChecksCol is what the checks column holds: the cross-checks and a
// speculative cell's drafting figures, whose JSON fields sit side by side
// at the top level as in the run document (so the column needs no
// migration, and a history written before issue 39 reads as it was).
type cellChecksCol struct {
	rundoc.CellChecks
	rundoc.CellSpec
}

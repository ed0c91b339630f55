-- Version 11: burst cells (docs/METHOD.md: Burst cells, issue 39).
--
-- A burst cell is a phase of its own, 'burst', which version 1's CHECK on
-- cells.phase refuses; SQLite cannot change a CHECK in place, so cells is
-- rebuilt (the procedure of SQLite's ALTER TABLE page) with the phase
-- allowed and a column burst: rundoc.CellBurst as JSON (K, warm-up
-- requests, end-to-end latencies, requests/s), NULL for every other cell.
--
-- The migration runs in a transaction with foreign keys on, so dropping
-- the old table cascades to its samples: they are kept aside and put back
-- under the same cell ids, which the copy keeps.
CREATE TEMP TABLE burst_keep_server AS SELECT * FROM server_samples;
CREATE TEMP TABLE burst_keep_gpu AS SELECT * FROM gpu_samples;

CREATE TABLE cells_v11 (
	id                   INTEGER PRIMARY KEY,
	run_id               INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq                  INTEGER NOT NULL, -- position in the run document
	phase                TEXT    NOT NULL CHECK (phase IN ('prefill', 'decode', 'burst')),
	context              INTEGER NOT NULL,
	concurrency          INTEGER NOT NULL,
	status               TEXT    NOT NULL,
	reason               TEXT    NOT NULL DEFAULT '',
	prompt_tok_s         REAL    NOT NULL DEFAULT 0,
	prompt_tokens        INTEGER NOT NULL DEFAULT 0,
	total_tok_s          REAL    NOT NULL DEFAULT 0,
	per_request_tok_s    REAL    NOT NULL DEFAULT 0,
	ttft_ms              REAL    NOT NULL DEFAULT 0,
	tbt_ms               REAL    NOT NULL DEFAULT 0,
	ttft_p90_ms          REAL    NOT NULL DEFAULT 0,
	ttft_p99_ms          REAL    NOT NULL DEFAULT 0,
	tbt_p90_ms           REAL    NOT NULL DEFAULT 0,
	tbt_p99_ms           REAL    NOT NULL DEFAULT 0,
	avg_active           REAL    NOT NULL DEFAULT 0,
	completed_requests   INTEGER NOT NULL DEFAULT 0,
	output_tokens        INTEGER NOT NULL DEFAULT 0,
	measured_s           REAL    NOT NULL DEFAULT 0,
	token_count_source   TEXT    NOT NULL DEFAULT '',
	chunk_tokens         INTEGER NOT NULL DEFAULT 0,
	token_count_mismatch INTEGER NOT NULL DEFAULT 0,
	server_stats         TEXT,  -- JSON bench.ServerStats, NULL without metrics
	gpu_stats            TEXT,  -- JSON hardware.GPUStats, NULL without a GPU
	energy_j_per_token   REAL    NOT NULL DEFAULT 0,
	started_at           INTEGER,
	window_start         INTEGER,
	prompt_tok_s_ci95      REAL NOT NULL DEFAULT 0,
	total_tok_s_ci95       REAL NOT NULL DEFAULT 0,
	per_request_tok_s_ci95 REAL NOT NULL DEFAULT 0,
	ttft_ms_ci95           REAL NOT NULL DEFAULT 0,
	tbt_ms_ci95            REAL NOT NULL DEFAULT 0,
	checks               TEXT,
	window               TEXT,
	roofline_pct         REAL NOT NULL DEFAULT 0,
	burst                TEXT,  -- JSON rundoc.CellBurst, NULL for a prefill or decode cell
	UNIQUE (run_id, phase, context, concurrency)
);
INSERT INTO cells_v11 (id, run_id, seq, phase, context, concurrency, status, reason, prompt_tok_s, prompt_tokens,
	total_tok_s, per_request_tok_s, ttft_ms, tbt_ms, ttft_p90_ms, ttft_p99_ms, tbt_p90_ms, tbt_p99_ms,
	avg_active, completed_requests, output_tokens, measured_s, token_count_source, chunk_tokens,
	token_count_mismatch, server_stats, gpu_stats, energy_j_per_token, started_at, window_start,
	prompt_tok_s_ci95, total_tok_s_ci95, per_request_tok_s_ci95, ttft_ms_ci95, tbt_ms_ci95, checks, window,
	roofline_pct)
SELECT id, run_id, seq, phase, context, concurrency, status, reason, prompt_tok_s, prompt_tokens,
	total_tok_s, per_request_tok_s, ttft_ms, tbt_ms, ttft_p90_ms, ttft_p99_ms, tbt_p90_ms, tbt_p99_ms,
	avg_active, completed_requests, output_tokens, measured_s, token_count_source, chunk_tokens,
	token_count_mismatch, server_stats, gpu_stats, energy_j_per_token, started_at, window_start,
	prompt_tok_s_ci95, total_tok_s_ci95, per_request_tok_s_ci95, ttft_ms_ci95, tbt_ms_ci95, checks, window,
	roofline_pct
FROM cells;
DROP TABLE cells;
ALTER TABLE cells_v11 RENAME TO cells;

INSERT INTO server_samples SELECT * FROM burst_keep_server;
INSERT INTO gpu_samples SELECT * FROM burst_keep_gpu;
DROP TABLE burst_keep_server;
DROP TABLE burst_keep_gpu;

-- Version 1 of the RigBench history. Frozen: once released, a migration
-- file is never edited; later changes are new files.
--
-- Times are Unix nanoseconds (UTC), NULL when unknown. Figures that were not
-- measured are 0, as in the run document. JSON columns hold the parts of the
-- run document that are read whole (plan, hardware snapshot, launch).

CREATE TABLE runs (
	id                 INTEGER PRIMARY KEY,
	uuid               TEXT    NOT NULL UNIQUE,
	name               TEXT    NOT NULL DEFAULT '',
	tags               TEXT,            -- JSON array of strings, NULL when none
	notes              TEXT    NOT NULL DEFAULT '',
	status             TEXT    NOT NULL CHECK (status IN ('running', 'complete', 'cancelled', 'interrupted', 'failed')),
	created_at         INTEGER,
	finished_at        INTEGER,
	origin             TEXT    NOT NULL DEFAULT '',
	simulated          INTEGER NOT NULL DEFAULT 0,
	error              TEXT    NOT NULL DEFAULT '',
	plan               TEXT    NOT NULL, -- JSON bench.Plan
	hardware           TEXT,             -- JSON hardware.Snapshot
	launch             TEXT,             -- JSON bench.Launch (no secrets)
	-- Server facts (bench.Server).
	model              TEXT    NOT NULL DEFAULT '',
	engine             TEXT    NOT NULL DEFAULT '',
	engine_version     TEXT    NOT NULL DEFAULT '',
	max_model_len      INTEGER NOT NULL DEFAULT 0,
	kv_capacity_tokens INTEGER NOT NULL DEFAULT 0,
	kv_capacity_source TEXT    NOT NULL DEFAULT '',
	has_metrics        INTEGER NOT NULL DEFAULT 0,
	has_tokenize       INTEGER NOT NULL DEFAULT 0,
	-- Denormalised for the history list, kept current on every cell write.
	gpu_name           TEXT    NOT NULL DEFAULT '',
	flags              TEXT    NOT NULL DEFAULT '',
	cell_count         INTEGER NOT NULL DEFAULT 0,
	best_decode_tok_s  REAL    NOT NULL DEFAULT 0,
	prefill_8k_tok_s   REAL    NOT NULL DEFAULT 0,
	-- Bookkeeping of this history, not part of the run document.
	imported_at        INTEGER,          -- set when the run came in by Import
	recorder_pid       INTEGER NOT NULL DEFAULT 0 -- process recording a running run
);
CREATE INDEX runs_created ON runs (created_at DESC, id DESC);
CREATE INDEX runs_status ON runs (status);

CREATE TABLE cells (
	id                   INTEGER PRIMARY KEY,
	run_id               INTEGER NOT NULL REFERENCES runs (id) ON DELETE CASCADE,
	seq                  INTEGER NOT NULL, -- position in the run document
	phase                TEXT    NOT NULL CHECK (phase IN ('prefill', 'decode')),
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
	UNIQUE (run_id, phase, context, concurrency)
);

CREATE TABLE server_samples (
	cell_id              INTEGER NOT NULL REFERENCES cells (id) ON DELETE CASCADE,
	seq                  INTEGER NOT NULL,
	t                    REAL    NOT NULL,
	running              REAL    NOT NULL,
	waiting              REAL    NOT NULL,
	kv_usage             REAL    NOT NULL,
	prefix_cache_queries REAL    NOT NULL,
	prefix_cache_hits    REAL    NOT NULL,
	preemptions          REAL    NOT NULL,
	PRIMARY KEY (cell_id, seq)
) WITHOUT ROWID;

CREATE TABLE gpu_samples (
	cell_id         INTEGER NOT NULL REFERENCES cells (id) ON DELETE CASCADE,
	seq             INTEGER NOT NULL,
	t               REAL    NOT NULL,
	gpu             INTEGER NOT NULL,
	power_w         REAL    NOT NULL,
	sm_clock_mhz    REAL    NOT NULL,
	mem_clock_mhz   REAL    NOT NULL,
	temp_c          REAL    NOT NULL,
	util_gpu        REAL    NOT NULL,
	util_mem        REAL    NOT NULL,
	vram_used_bytes INTEGER NOT NULL,
	throttle        TEXT,  -- JSON array, NULL when none
	PRIMARY KEY (cell_id, seq)
) WITHOUT ROWID;

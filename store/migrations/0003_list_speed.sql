-- Version 3: make listing a large history fast.
--
-- The plan, hardware snapshot and launch move out of the runs table into
-- run_documents: inline, these JSON texts made each runs row over a
-- kilobyte, so rows spilled into overflow pages and a list read the whole
-- history. And each run gets its list line pre-encoded in one column
-- (summary, written by the store on every change; NULL means "recompute",
-- which Open does), because decoding seventeen columns per row cost more
-- than the 50 ms a 10,000-run list may take.
CREATE TABLE run_documents (
	run_id   INTEGER PRIMARY KEY REFERENCES runs (id) ON DELETE CASCADE,
	plan     TEXT NOT NULL, -- JSON bench.Plan
	hardware TEXT,          -- JSON hardware.Snapshot
	launch   TEXT           -- JSON bench.Launch (no secrets)
);
INSERT INTO run_documents (run_id, plan, hardware, launch) SELECT id, plan, hardware, launch FROM runs;
ALTER TABLE runs DROP COLUMN plan;
ALTER TABLE runs DROP COLUMN hardware;
ALTER TABLE runs DROP COLUMN launch;
ALTER TABLE runs ADD COLUMN summary BLOB;
CREATE INDEX runs_stale_summary ON runs (id) WHERE summary IS NULL;
-- The list's order with its line: List reads this index alone.
DROP INDEX runs_created;
CREATE INDEX runs_list ON runs (created_at DESC, id DESC, summary);

-- Version 6: steady-state windows (issue 22).
--
-- How each decode cell's window opened (ramp, readiness, warmup_timed_out)
-- and its chunk-gap figure, as JSON text of rundoc.CellWindow: NULL when
-- empty (older runs, prefill cells). The plan's window_opens and prompts
-- live in the plan's JSON column already.
ALTER TABLE cells ADD COLUMN window TEXT;

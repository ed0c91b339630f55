-- Version 2: bench.Cell gained WindowStart (when the decode window opened).
ALTER TABLE cells ADD COLUMN window_start INTEGER;

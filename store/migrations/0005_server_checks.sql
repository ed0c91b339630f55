-- Version 5: what RigBench learned about other servers (issue 17).
--
-- The server's personality, slots and the figures it does not report, and
-- each cell's request counts (retried, never started, ended by length), idle
-- wait and cross-check against the server's counters, as JSON texts of
-- rundoc.ServerFacts and rundoc.CellChecks: NULL when empty (older runs).
ALTER TABLE run_documents ADD COLUMN server_facts TEXT;
ALTER TABLE cells ADD COLUMN checks TEXT;

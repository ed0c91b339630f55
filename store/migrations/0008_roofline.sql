-- Version 8: each decode cell's share of the memory-bandwidth roofline
-- (docs/METHOD.md: Roofline), 0 when not known, as in the run document.
-- What it rests on (weights, KV bytes per token, peak bandwidth) is part of
-- the server facts' JSON column already.
ALTER TABLE cells ADD COLUMN roofline_pct REAL NOT NULL DEFAULT 0;

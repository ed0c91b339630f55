-- Version 4: the half-widths of the 95% confidence intervals of a cell's
-- figures (docs/METHOD.md: Uncertainty), 0 when not measured, as in the
-- run document.
ALTER TABLE cells ADD COLUMN prompt_tok_s_ci95 REAL NOT NULL DEFAULT 0;
ALTER TABLE cells ADD COLUMN total_tok_s_ci95 REAL NOT NULL DEFAULT 0;
ALTER TABLE cells ADD COLUMN per_request_tok_s_ci95 REAL NOT NULL DEFAULT 0;
ALTER TABLE cells ADD COLUMN ttft_ms_ci95 REAL NOT NULL DEFAULT 0;
ALTER TABLE cells ADD COLUMN tbt_ms_ci95 REAL NOT NULL DEFAULT 0;

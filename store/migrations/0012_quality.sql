-- Version 12: a run's quality check (issue 37).
--
-- rundoc.Quality as JSON: the quality probe asked of the run's server
-- after its matrix (a rigbench.quality/v1 result, every item's answer) and,
-- for a Tune variant, its paired comparison with the base launch's probe.
-- NULL for a run without one (every run before this version).
ALTER TABLE run_documents ADD COLUMN quality TEXT;

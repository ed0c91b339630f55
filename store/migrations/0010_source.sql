-- Version 10: what an imported file said about itself (issue 35 item 7).
--
-- rundoc.Source as JSON: the file's layout, its writer, whether it says
-- what served the run, and an llm_decode_bench file itself, so an export
-- in that layout gives back every field the file came with. NULL for a
-- run measured here.
ALTER TABLE run_documents ADD COLUMN source TEXT;

-- Version 9: the rig a run's server ran on (issue 25).
--
-- Its kind (local, ssh, context) and its name without the user name, as
-- rundoc.Rig holds them: '' for runs that record none (demos, endpoints,
-- runs from before rigs). Plain columns, since the list shows the name and
-- filters on it. Every list line is recomputed to carry the name.
ALTER TABLE runs ADD COLUMN rig_kind TEXT NOT NULL DEFAULT '';
ALTER TABLE runs ADD COLUMN rig_name TEXT NOT NULL DEFAULT '';
UPDATE runs SET summary = NULL;

package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"path"
	"sort"
	"strconv"
	"strings"
)

// migrationFiles are the schema steps, NNNN_name.sql, applied in order. A
// released file is frozen: changes are new files, so every older history
// reaches the current schema by the same path.
//
//go:embed migrations/*.sql
var migrationFiles embed.FS

// migration is one schema step; applying it takes the history from
// version-1 to version.
type migration struct {
	version int
	name    string
	sql     string
}

// migrations lists the embedded steps, checked to be numbered 1, 2, 3, …
var migrations = mustLoadMigrations()

// SchemaVersion is the history schema this build writes (PRAGMA user_version
// after migration).
var SchemaVersion = len(migrations)

func mustLoadMigrations() []migration {
	entries, err := migrationFiles.ReadDir("migrations")
	if err != nil {
		panic(err)
	}
	sort.Slice(entries, func(i, j int) bool { return entries[i].Name() < entries[j].Name() })
	var out []migration
	for i, e := range entries {
		num, _, ok := strings.Cut(e.Name(), "_")
		if n, err := strconv.Atoi(num); !ok || err != nil || n != i+1 {
			panic(fmt.Sprintf("store: migration %s is out of sequence (want number %d)", e.Name(), i+1))
		}
		b, err := migrationFiles.ReadFile(path.Join("migrations", e.Name()))
		if err != nil {
			panic(err)
		}
		out = append(out, migration{version: i + 1, name: e.Name(), sql: string(b)})
	}
	return out
}

// userVersion reads PRAGMA user_version, the schema version of the file.
func userVersion(ctx context.Context, db *sql.DB) (int, error) {
	var v int
	err := db.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v)
	return v, err
}

// migrate brings the history up to target, one transaction per step: the
// step's SQL and the new user_version commit together, so a crash or a
// full disk leaves the file at the previous version, never half-migrated.
// A history newer than target is refused and left untouched.
//
// Each step reads the version inside its own write transaction (BEGIN
// IMMEDIATE, from the DSN's _txlock), so two processes opening a new
// history at once take turns: the second waits on busy_timeout, then finds
// the step done and moves on, instead of applying it again.
func migrate(ctx context.Context, db *sql.DB, target int) error {
	cur, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if cur > SchemaVersion {
		return errNewer(cur)
	}
	for cur < target {
		m := migrations[cur]
		if cur, err = applyMigration(ctx, db, m); err != nil {
			return fmt.Errorf("upgrade the history to version %d (%s): %w", m.version, m.name, err)
		}
		if cur > SchemaVersion {
			return errNewer(cur)
		}
	}
	return nil
}

// applyMigration applies m unless the history, read inside the
// transaction, is already at or past m's version (another process
// migrated it meanwhile), and returns the version the history is at.
func applyMigration(ctx context.Context, db *sql.DB, m migration) (int, error) {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return 0, err
	}
	defer tx.Rollback()
	var v int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&v); err != nil {
		return 0, err
	}
	if v >= m.version {
		return v, tx.Commit()
	}
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return 0, err
	}
	// PRAGMA takes no bound parameters; the version is our own integer.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return 0, err
	}
	return m.version, tx.Commit()
}

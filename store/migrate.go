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
func migrate(ctx context.Context, db *sql.DB, target int) error {
	cur, err := userVersion(ctx, db)
	if err != nil {
		return err
	}
	if cur > SchemaVersion {
		return errNewer(cur)
	}
	for _, m := range migrations[cur:target] {
		if err := applyMigration(ctx, db, m); err != nil {
			return fmt.Errorf("upgrade the history to version %d (%s): %w", m.version, m.name, err)
		}
	}
	return nil
}

func applyMigration(ctx context.Context, db *sql.DB, m migration) error {
	tx, err := db.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, m.sql); err != nil {
		return err
	}
	// PRAGMA takes no bound parameters; the version is our own integer.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(m.version)); err != nil {
		return err
	}
	return tx.Commit()
}

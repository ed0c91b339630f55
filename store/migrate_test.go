package store

import (
	"bytes"
	"context"
	"database/sql"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// seedAtVersion writes one run with one cell using only the columns that
// exist at schema version v, the way a RigBench of that version would have.
var seedAtVersion = map[int]func(ctx context.Context, db *sql.DB) error{
	1: func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, `
INSERT INTO runs (id, uuid, name, status, created_at, plan, model, gpu_name, cell_count, best_decode_tok_s)
VALUES (1, 'c0ffee00-0000-4000-8000-000000000001', 'old run', 'running', 1700000000000000000,
	'{"contexts":[0],"concurrency":[1],"prefill_contexts":null,"duration_s":30,"max_output":8192}', 'm', 'RTX 3060', 1, 49.6);
INSERT INTO cells (id, run_id, seq, phase, context, concurrency, status, total_tok_s, output_tokens, measured_s)
VALUES (1, 1, 0, 'decode', 0, 1, 'Valid', 49.6, 1488, 30);
INSERT INTO server_samples (cell_id, seq, t, running, waiting, kv_usage, prefix_cache_queries, prefix_cache_hits, preemptions)
VALUES (1, 0, 1, 1, 0, 0.01, 10, 9, 0);`)
		return err
	},
	// Version 3 moved the plan into run_documents.
	3: func(ctx context.Context, db *sql.DB) error {
		_, err := db.ExecContext(ctx, `
INSERT INTO runs (id, uuid, name, status, created_at, model, gpu_name, cell_count, best_decode_tok_s)
VALUES (1, 'c0ffee00-0000-4000-8000-000000000001', 'old run', 'running', 1700000000000000000, 'm', 'RTX 3060', 1, 49.6);
INSERT INTO run_documents (run_id, plan)
VALUES (1, '{"contexts":[0],"concurrency":[1],"prefill_contexts":null,"duration_s":30,"max_output":8192}');
INSERT INTO cells (id, run_id, seq, phase, context, concurrency, status, total_tok_s, output_tokens, measured_s)
VALUES (1, 1, 0, 'decode', 0, 1, 'Valid', 49.6, 1488, 30);
INSERT INTO server_samples (cell_id, seq, t, running, waiting, kv_usage, prefix_cache_queries, prefix_cache_hits, preemptions)
VALUES (1, 0, 1, 1, 0, 0.01, 10, 9, 0);`)
		return err
	},
}

// TestMigrateFromEveryVersion creates a history at each earlier schema
// version (0 = an empty file), writes data as that version would, and
// checks that Open upgrades it in place with the data intact.
func TestMigrateFromEveryVersion(t *testing.T) {
	t.Parallel()
	for v := 0; v < SchemaVersion; v++ {
		t.Run("from_v"+string(rune('0'+v)), func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "h.db")
			if v == 0 {
				if err := os.WriteFile(path, nil, 0o600); err != nil {
					t.Fatal(err)
				}
			} else {
				raw, err := sql.Open("sqlite", dsn(path))
				if err != nil {
					t.Fatal(err)
				}
				if err := migrate(ctx, raw, v); err != nil {
					t.Fatal(err)
				}
				// The newest seed that fits this version.
				for sv := v; sv >= 1; sv-- {
					if seed := seedAtVersion[sv]; seed != nil {
						if err := seed(ctx, raw); err != nil {
							t.Fatalf("seed v%d: %v", sv, err)
						}
						break
					}
				}
				raw.Close()
			}
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			defer db.Close()
			if got, _ := userVersion(ctx, db.sql); got != SchemaVersion {
				t.Errorf("user_version = %d, want %d", got, SchemaVersion)
			}
			if v == 0 {
				return
			}
			r, err := db.Get(ctx, "c0ffee00")
			if err != nil {
				t.Fatal(err)
			}
			// A run left running by the old version is interrupted now.
			if r.Status != rundoc.RunInterrupted || len(r.Cells) != 1 || r.Cells[0].OutputTokens != 1488 ||
				len(r.Cells[0].ServerSamples) != 1 || r.Plan.DurationS != 30 || r.Name != "old run" {
				t.Errorf("migrated run = %+v", r)
			}
			// And the upgraded history takes new writes.
			if err := db.SaveRun(ctx, fullRun(t, 50)); err != nil {
				t.Errorf("SaveRun after migration: %v", err)
			}
		})
	}
}

func TestMigrationsAreFrozenAndOrdered(t *testing.T) {
	t.Parallel()
	if SchemaVersion < 1 || migrations[0].name != "0001_history.sql" {
		t.Fatalf("migrations = %v", migrations)
	}
	// Version 1 is released: its text is pinned by the frozen copy in
	// testdata, so an edit (instead of a new migration) fails here.
	frozen, err := os.ReadFile("testdata/0001_history.sql")
	if err != nil {
		t.Fatal(err)
	}
	if migrations[0].sql != string(frozen) {
		t.Error("migrations/0001_history.sql changed; add a new migration instead of editing a released one")
	}
}

// A history from a newer RigBench is refused and not changed by one byte,
// whether it was left in WAL mode or rollback mode.
func TestNewerVersionRefusedUntouched(t *testing.T) {
	t.Parallel()
	for _, mode := range []string{"WAL", "DELETE"} {
		t.Run(mode, func(t *testing.T) {
			ctx := context.Background()
			path := filepath.Join(t.TempDir(), "h.db")
			db, err := Open(ctx, path)
			if err != nil {
				t.Fatal(err)
			}
			if err := db.SaveRun(ctx, fullRun(t, 60)); err != nil {
				t.Fatal(err)
			}
			if _, err := db.sql.ExecContext(ctx, "PRAGMA user_version = 999"); err != nil {
				t.Fatal(err)
			}
			if mode == "DELETE" {
				if _, err := db.sql.ExecContext(ctx, "PRAGMA journal_mode = DELETE"); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			before, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			_, err = Open(ctx, path)
			if !errors.Is(err, ErrNewerVersion) || !strings.Contains(err.Error(), "update RigBench") {
				t.Fatalf("Open = %v, want the newer-version refusal", err)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("the refused history was modified")
			}
			if _, err := os.Stat(path + "-wal"); mode == "DELETE" && err == nil {
				t.Error("the refused history got a WAL file")
			}
		})
	}
}

func TestOpenRejectsNonDatabase(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "notes.txt")
	content := []byte(strings.Repeat("not a database\n", 20))
	if err := os.WriteFile(path, content, 0o600); err != nil {
		t.Fatal(err)
	}
	_, err := Open(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "is not a RigBench history") {
		t.Errorf("Open = %v", err)
	}
	if after, _ := os.ReadFile(path); !bytes.Equal(after, content) {
		t.Error("the file was modified")
	}
}

// Two processes opening a new history at once both get it: the second
// waits for the first's migration and finds the schema in place, instead
// of applying the first step again ("table runs already exists").
func TestConcurrentOpensOfANewHistory(t *testing.T) {
	ctx := context.Background()
	for i := 0; i < 10; i++ {
		path := filepath.Join(t.TempDir(), "new.db")
		const n = 4
		errs := make(chan error, n)
		start := make(chan struct{})
		for j := 0; j < n; j++ {
			go func() {
				<-start
				db, err := Open(ctx, path)
				if err == nil {
					_, err = db.List(ctx, Filter{})
					db.Close()
				}
				errs <- err
			}()
		}
		close(start)
		for j := 0; j < n; j++ {
			if err := <-errs; err != nil {
				t.Fatalf("try %d: an Open of a new history failed: %v", i, err)
			}
		}
	}
}

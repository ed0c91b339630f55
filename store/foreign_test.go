package store

import (
	"bytes"
	"context"
	"database/sql"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestOpenRefusesAnotherApplicationsDatabase: `runs --db other.db` on
// another application's SQLite file said "No runs yet" and took it over
// (RigBench's tables, user_version 9, WAL mode); one at user_version 3 got
// "upgrade the history to version 4 … no such table: cells" (issue 36 item
// 4). Such a file is refused in one sentence and left byte for byte as it
// was, with no -wal or -shm beside it. An empty SQLite file is still a new
// history.
func TestOpenRefusesAnotherApplicationsDatabase(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		version int
	}{{"no version", 0}, {"version 3", 3}, {"current version", SchemaVersion}} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "other.db")
			db, err := sql.Open("sqlite", path)
			if err != nil {
				t.Fatal(err)
			}
			for _, q := range []string{"CREATE TABLE notes (id INTEGER PRIMARY KEY, body TEXT)",
				"INSERT INTO notes (body) VALUES ('keep me')", "CREATE TABLE runs (x)",
				"PRAGMA user_version = " + strconv.Itoa(tc.version)} {
				if _, err := db.Exec(q); err != nil {
					t.Fatal(err)
				}
			}
			db.Close()
			before, _ := os.ReadFile(path)
			h, err := Open(ctx, path)
			if err == nil {
				h.Close()
				t.Fatal("another application's database opened as a history")
			}
			if msg := err.Error(); !strings.Contains(msg, "not a RigBench history") || !strings.Contains(msg, "notes") ||
				!strings.Contains(msg, "unchanged") {
				t.Errorf("refusal %q does not say what the file is", msg)
			}
			after, _ := os.ReadFile(path)
			if !bytes.Equal(before, after) {
				t.Error("the refused database was changed")
			}
			for _, suffix := range []string{"-wal", "-shm"} {
				if _, err := os.Stat(path + suffix); err == nil {
					t.Errorf("%s left beside the refused database", suffix)
				}
			}
		})
	}
	t.Run("empty database", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "empty.db")
		db, _ := sql.Open("sqlite", path)
		if _, err := db.Exec("PRAGMA user_version = 0; VACUUM"); err != nil {
			t.Fatal(err)
		}
		db.Close()
		h, err := Open(ctx, path)
		if err != nil {
			t.Fatalf("an empty SQLite file is a new history: %v", err)
		}
		h.Close()
	})
}

// TestOpenRefusesAFolderOrADevice: `--db DIR` said "check that its folder
// exists" and `--db /dev/null` "busy" (issue 36 item 10); each is said as
// what it is.
func TestOpenRefusesAFolderOrADevice(t *testing.T) {
	dir := t.TempDir()
	for path, want := range map[string]string{dir: "is a folder, not a history file", os.DevNull: "is not a regular file"} {
		h, err := Open(context.Background(), path)
		if err == nil {
			h.Close()
			t.Fatalf("Open(%s) opened", path)
		}
		if !strings.Contains(err.Error(), want) {
			t.Errorf("Open(%s) = %v, want %q", path, err, want)
		}
	}
}

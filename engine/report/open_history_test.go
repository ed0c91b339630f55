package report

import (
	"context"
	"database/sql"
	"path/filepath"
	"strings"
	"testing"

	_ "modernc.org/sqlite"
)

// TestOpenRunOfAHistorySaysSo: `import history.db` complained about a
// missing CSV "phase" column (issue 36 item 10); an SQLite file is said to
// be one, with how to open it as a history.
func TestOpenRunOfAHistorySaysSo(t *testing.T) {
	path := filepath.Join(t.TempDir(), "history.db")
	db, err := sql.Open("sqlite", path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.Exec("CREATE TABLE runs (id INTEGER)"); err != nil {
		t.Fatal(err)
	}
	db.Close()
	_, err = OpenRun(context.Background(), path)
	if err == nil || !strings.Contains(err.Error(), "is an SQLite database") || !strings.Contains(err.Error(), "--db history.db") {
		t.Errorf("OpenRun of a history: %v", err)
	}
}

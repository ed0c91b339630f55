package ui

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/store"
)

// Errors written for the CLI name its flags; the app names its own field
// or the environment variable instead.
func TestUserTextNamesTheAppsControls(t *testing.T) {
	key := userText(fmt.Errorf("discover: %w", client.ErrUnauthorized))
	if strings.Contains(key, "--api-key") || !strings.Contains(key, "API key field") {
		t.Errorf("wrong key: %q", key)
	}
	notDB := filepath.Join(t.TempDir(), "h.db")
	if err := os.WriteFile(notDB, []byte("not a database, longer than the SQLite header of one hundred bytes "+strings.Repeat("x", 100)), 0o600); err != nil {
		t.Fatal(err)
	}
	db, err := store.Open(context.Background(), notDB)
	if err == nil {
		db.Close()
		t.Fatal("a text file opened as a history")
	}
	for _, err := range []error{err, fmt.Errorf("opening the history: %w", err)} {
		got := userText(err)
		if strings.Contains(got, "--db") || !strings.Contains(got, "set the "+store.EnvDB+" environment variable to another file and restart RigBench") {
			t.Errorf("%q → %q, want the environment variable and no --db", err, got)
		}
	}
	// "Nothing can run" names the Run view's fields, never a flag.
	for why := session.NoPrefillFits; why <= session.CacheTooSmall; why++ {
		got := userText(&session.NothingRunsError{Why: why, MaxModelLen: 2048, KVCapacity: 3264, MaxOutput: 8192, Context: 1024, Concurrency: 4, Suggest: 1024})
		if strings.Contains(got, "--") || !strings.HasPrefix(got, "No cell of this plan can run on this server. ") ||
			!strings.Contains(got, "Max output") && !strings.Contains(got, "Contexts") && !strings.Contains(got, "Concurrency") && !strings.Contains(got, "Prefill contexts") {
			t.Errorf("why %d → %q, want the plan's field named and no flag", why, got)
		}
	}
	if got := userText(errors.New("the disk is full")); got != "The disk is full." {
		t.Errorf("plain error → %q", got)
	}
}

// A history that cannot be opened gives the Run view's warning: where it
// tried, why, and that runs are lost unless exported.
func TestOpenHistoryWarnsWhenNotSaving(t *testing.T) {
	_, _, warn, closeFn := openHistory(func(k string) string { return map[string]string{store.EnvDB: "/dev/null/x/h.db"}[k] })
	defer closeFn()
	if !strings.Contains(warn, "/dev/null/x/h.db") || !strings.Contains(warn, "xport") || strings.Contains(warn, "--db") {
		t.Errorf("warning = %q", warn)
	}
}

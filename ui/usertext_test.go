package ui

import (
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/store"
)

// Errors written for the CLI name its flags; the app names its own field
// or the environment variable instead.
func TestUserTextNamesTheAppsControls(t *testing.T) {
	key := userText(fmt.Errorf("discover: %w", client.ErrUnauthorized))
	if strings.Contains(key, "--api-key") || !strings.Contains(key, "API key field") {
		t.Errorf("wrong key: %q", key)
	}
	for _, msg := range []string{
		"cannot open the history /x/h.db; check that its folder exists and is writable, or set RIGBENCH_DB (or the CLI's --db) to another file",
		"the history has schema version 9 but this RigBench knows only up to 3; update RigBench or set RIGBENCH_DB (or the CLI's --db) to another file (the history was not changed)",
		"cannot find your home folder to keep the history in; set " + store.EnvDB + " (or the CLI's --db) to a file path",
	} {
		got := userText(errors.New(msg))
		if strings.Contains(got, "--db") || !strings.Contains(got, store.EnvDB) {
			t.Errorf("%q → %q, want RIGBENCH_DB and no --db", msg, got)
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

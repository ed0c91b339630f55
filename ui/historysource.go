package ui

import "github.com/rigbench/rigbench/ui/history"

// openHistory opens the history the History view shows, with a note for
// the user when runs will not be kept. The SQLite store (package store)
// replaces the session-only list here once it lands.
func openHistory() (history.Source, string) {
	return &history.Memory{}, "This history lasts until RigBench closes: the history database is not available in this build."
}

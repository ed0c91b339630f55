package ui

import (
	"context"
	"strings"
	"time"

	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/history"
	"github.com/rigbench/rigbench/ui/wording"
)

// openHistory opens the SQLite history the CLI shares ($RIGBENCH_DB, else
// the user data folder) for the History view, with the line the view shows
// above the table and a function that closes it. When the database cannot
// be opened (a history from a newer RigBench, a read-only disk) the app
// keeps working on a session-only list, the line says why, and unsaved is
// the warning the Run view shows while runs are not being saved ("" when
// the history is open).
func openHistory(getenv func(string) string) (src history.Source, note, unsaved string, closeFn func()) {
	path, err := store.ResolvePath("", getenv)
	if err == nil {
		// Opening migrates an old schema and marks crashed runs
		// interrupted: quick, but bounded so a stuck disk cannot hang
		// start-up.
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		var db *store.DB
		db, err = store.Open(ctx, path)
		cancel()
		if err == nil {
			return history.NewDB(db), "History: " + db.Path(), "", func() { db.Close() }
		}
	}
	why := userText(err)
	unsaved = "Runs are not being saved, so export each one you want to keep: " + wording.LowerFirst(why)
	if path != "" && !strings.Contains(why, path) {
		unsaved = strings.TrimSuffix(unsaved, ".") + " (history: " + path + ")."
	}
	return &history.Memory{}, why + " Runs are kept only until RigBench closes.", unsaved, func() {}
}

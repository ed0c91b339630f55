package store

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// A history error carries its remedy apart from its message: by default
// the environment variable (which every front end reads), and in a front
// end's own words through Advice, also when wrapped.
func TestAdviceWordsTheHint(t *testing.T) {
	t.Parallel()
	notDB := filepath.Join(t.TempDir(), "h.db")
	if err := os.WriteFile(notDB, []byte(strings.Repeat("not SQLite ", 20)), 0o600); err != nil {
		t.Fatal(err)
	}
	_, openErr := Open(context.Background(), notDB)
	_, homeErr := defaultPath(func(string) string { return "" }, func() (string, error) { return "", fmt.Errorf("no home") })
	db, err := Open(context.Background(), filepath.Join(t.TempDir(), "ok.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	_, getErr := db.Get(context.Background(), "deadbeef")
	words := func(h Hint) string {
		return map[Hint]string{HintOtherFile: "USE ANOTHER", HintSetPath: "GIVE A PATH", HintListRuns: "LIST THEM"}[h]
	}
	cases := []struct {
		err         error
		def, worded string
	}{
		{openErr, notDB + " is not a RigBench history; set RIGBENCH_DB to another file", notDB + " is not a RigBench history; USE ANOTHER"},
		{fmt.Errorf("opening: %w", openErr), "opening: " + notDB + " is not a RigBench history; set RIGBENCH_DB to another file",
			"opening: " + notDB + " is not a RigBench history; USE ANOTHER"},
		{homeErr, "cannot find your home folder to keep the history in; set RIGBENCH_DB to a file path",
			"cannot find your home folder to keep the history in; GIVE A PATH"},
		{errNewer(9), fmt.Sprintf("the history has schema version 9 but this RigBench knows only up to %d; update RigBench or set RIGBENCH_DB to another file (the history was not changed)", SchemaVersion),
			fmt.Sprintf("the history has schema version 9 but this RigBench knows only up to %d; update RigBench or USE ANOTHER (the history was not changed)", SchemaVersion)},
		{getErr, "no run has the ID deadbeef; the history lists every run with its ID", "no run has the ID deadbeef; LIST THEM"},
		{fmt.Errorf("plain"), "plain", "plain"},
	}
	for _, tc := range cases {
		if tc.err == nil {
			t.Fatal("the case's error did not happen")
		}
		if got := tc.err.Error(); got != tc.def {
			t.Errorf("default:\n got %q\nwant %q", got, tc.def)
		}
		if got := Advice(tc.err, words); got != tc.worded {
			t.Errorf("worded:\n got %q\nwant %q", got, tc.worded)
		}
	}
}

package safefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rigbench/rigbench/internal/safefile"
)

// A Guard refuses every spelling of a kept file, and passes any other.
func TestGuardRefusesKeptFilesBySpelling(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "history.db")
	if err := os.WriteFile(hist, []byte("db"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(hist, filepath.Join(dir, "hard.db")); err != nil {
		t.Fatal(err)
	}
	// Removed before TempDir's own clean-up, which Wine cannot do for a hard
	// link ("Invalid function").
	t.Cleanup(func() { os.Remove(filepath.Join(dir, "hard.db")) })
	spellings := []string{hist, filepath.Join(dir, "sub", "..", "history.db"), filepath.Join(dir, "hard.db"), hist + "-wal",
		filepath.Join(dir, "sweeps", "0123abcd.json")}
	// Windows lets only administrators (or Developer Mode) make symbolic
	// links, and Wine makes Unix ones that its Windows calls do not follow:
	// there the link spellings are not tried.
	if runtime.GOOS != "windows" {
		for name, to := range map[string]string{"soft.db": "history.db", "dangling": "history.db-wal"} {
			if err := os.Symlink(to, filepath.Join(dir, name)); err != nil {
				t.Fatal(err)
			}
			spellings = append(spellings, filepath.Join(dir, name))
		}
	}
	if err := os.Mkdir(filepath.Join(dir, "sub"), 0o700); err != nil {
		t.Fatal(err)
	}
	var g safefile.Guard
	g.Keep(hist, "the history")
	g.Keep(hist+"-wal", "the history's log")
	g.KeepDir(filepath.Join(dir, "sweeps"), "a sweep spec")
	for _, p := range spellings {
		err := g.Check(p)
		if !errors.Is(err, safefile.ErrKept) {
			t.Errorf("Check(%s) = %v, want a refusal", p, err)
		}
		if werr := g.Write(p, nil); !errors.Is(werr, safefile.ErrKept) {
			t.Errorf("Write(%s) = %v, want a refusal", p, werr)
		}
	}
	for _, p := range []string{filepath.Join(dir, "run.json"), "-", "", filepath.Join(dir, "sub", "history.db")} {
		if err := g.Check(p); err != nil {
			t.Errorf("Check(%s) = %v, want nil", p, err)
		}
	}
	var none *safefile.Guard
	if err := none.Check(hist); err != nil {
		t.Errorf("a nil Guard refused %s: %v", hist, err)
	}
	if b, _ := os.ReadFile(hist); string(b) != "db" {
		t.Errorf("the kept file now holds %q", b)
	}
}

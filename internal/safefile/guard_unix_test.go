//go:build unix

package safefile_test

import (
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"testing"

	"github.com/rigbench/rigbench/internal/safefile"
)

// TestGuardRefusesKeptFilesByDescriptor: `export ID -o /dev/fd/5`, where
// fd 5 is the open history, overwrote the history (issue 36 item 3): names
// in /proc skipped the guard. Every descriptor spelling of a kept file the
// process holds open is refused, and the file keeps its bytes; a
// descriptor of any other file still passes.
func TestGuardRefusesKeptFilesByDescriptor(t *testing.T) {
	dir := t.TempDir()
	hist := filepath.Join(dir, "history.db")
	other := filepath.Join(dir, "other.json")
	spec := filepath.Join(dir, "sweeps", "0123abcd.json")
	if err := os.Mkdir(filepath.Dir(spec), 0o700); err != nil {
		t.Fatal(err)
	}
	for _, p := range []string{hist, hist + "-wal", other, spec} {
		if err := os.WriteFile(p, []byte("db"), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	var g safefile.Guard
	g.Keep(hist, "the history")
	g.Keep(hist+"-wal", "the history's log")
	g.KeepDir(filepath.Dir(spec), "a sweep spec")
	open := func(p string) int {
		f, err := os.OpenFile(p, os.O_RDWR, 0)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { f.Close() })
		return int(f.Fd())
	}
	for _, p := range []string{hist, hist + "-wal", spec} {
		fd := open(p)
		for _, name := range []string{fmt.Sprintf("/dev/fd/%d", fd), fmt.Sprintf("/proc/self/fd/%d", fd)} {
			if err := g.Check(name); !errors.Is(err, safefile.ErrKept) {
				t.Errorf("Check(%s) for %s = %v, want a refusal", name, filepath.Base(p), err)
			}
			if err := g.Write(name, func(w io.Writer) error { _, err := w.Write([]byte("export")); return err }); !errors.Is(err, safefile.ErrKept) {
				t.Errorf("Write(%s) = %v, want a refusal", name, err)
			}
		}
		if b, _ := os.ReadFile(p); string(b) != "db" {
			t.Errorf("%s now holds %q", filepath.Base(p), b)
		}
	}
	if fd := open(other); g.Check(fmt.Sprintf("/dev/fd/%d", fd)) != nil {
		t.Errorf("a descriptor of another file was refused")
	}
}

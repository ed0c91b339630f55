package safefile_test

import (
	"errors"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/internal/safefile"
)

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// leftovers lists files in dir other than want, so a test sees a temporary
// file that was not cleaned up.
func leftovers(t *testing.T, dir string, want ...string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
next:
	for _, e := range ents {
		for _, w := range want {
			if e.Name() == w {
				continue next
			}
		}
		out = append(out, e.Name())
	}
	return out
}

func TestFailedRenderLeavesOldFile(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "export.csv")
	if err := os.WriteFile(path, []byte("good"), 0o644); err != nil {
		t.Fatal(err)
	}
	boom := errors.New("render failed")
	err := safefile.Write(path, func(w io.Writer) error {
		io.WriteString(w, strings.Repeat("half", 10000))
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("err = %v, want the render error unchanged", err)
	}
	if got := readFile(t, path); got != "good" {
		t.Errorf("content = %q, want the old file untouched", got)
	}
	if l := leftovers(t, dir, "export.csv"); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

func TestFolderIsRefused(t *testing.T) {
	dir := t.TempDir()
	err := safefile.WriteBytes(dir, []byte("x"))
	var se *safefile.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "not a folder") {
		t.Fatalf("err = %v, want a refusal saying to name a file", err)
	}
}

func TestReadOnlyFileIsRefused(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("root may write a read-only file, as a shell redirect would")
	}
	path := filepath.Join(t.TempDir(), "keep.json")
	if err := os.WriteFile(path, []byte("keep"), 0o444); err != nil {
		t.Fatal(err)
	}
	if err := safefile.WriteBytes(path, []byte("x")); err == nil || !strings.Contains(err.Error(), "read-only") {
		t.Fatalf("err = %v, want read-only refusal", err)
	}
	if got := readFile(t, path); got != "keep" {
		t.Errorf("content = %q", got)
	}
}

func TestMissingFolderNamesThePath(t *testing.T) {
	path := filepath.Join(t.TempDir(), "no", "such", "out.csv")
	err := safefile.WriteBytes(path, []byte("x"))
	if err == nil || !strings.Contains(err.Error(), path) || strings.Contains(err.Error(), ".rigbench-tmp") ||
		!strings.Contains(err.Error(), "folder exists") {
		t.Fatalf("err = %v, want it to name %s and say to check the folder", err, path)
	}
	if !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("errors.Is(err, fs.ErrNotExist) = false")
	}
}

func TestCheck(t *testing.T) {
	dir := t.TempDir()
	if err := safefile.Check(filepath.Join(dir, "new.json")); err != nil {
		t.Errorf("Check(new file) = %v", err)
	}
	if l := leftovers(t, dir); len(l) != 0 {
		t.Errorf("Check left behind %v", l)
	}
	if err := safefile.Check(os.DevNull); err != nil {
		t.Errorf("Check(%s) = %v", os.DevNull, err)
	}
	if err := safefile.Check(filepath.Join(dir, "no", "x.json")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("Check(missing folder) = %v, want not exist", err)
	}
	if err := safefile.Check(dir); err == nil {
		t.Error("Check(folder) = nil, want a refusal")
	}
}

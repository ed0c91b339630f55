//go:build windows

package safefile_test

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/sys/windows"

	"github.com/rigbench/rigbench/internal/safefile"
)

// A file another program holds open without sharing it (as a spreadsheet
// holds a CSV it shows) cannot be replaced; the refusal says what to do
// and the file keeps its content.
func TestSharedFileIsWorded(t *testing.T) {
	path := filepath.Join(t.TempDir(), "export.csv")
	if err := os.WriteFile(path, []byte("old"), 0o644); err != nil {
		t.Fatal(err)
	}
	name, err := windows.UTF16PtrFromString(path)
	if err != nil {
		t.Fatal(err)
	}
	h, err := windows.CreateFile(name, windows.GENERIC_READ, 0 /* no sharing */, nil, windows.OPEN_EXISTING, windows.FILE_ATTRIBUTE_NORMAL, 0)
	if err != nil {
		t.Fatal(err)
	}
	held := true
	defer func() {
		if held {
			windows.CloseHandle(h)
		}
	}()
	err = safefile.WriteBytes(path, []byte("new"))
	var se *safefile.Error
	if !errors.As(err, &se) || !strings.Contains(err.Error(), "has the file open") {
		t.Fatalf("err = %v, want a sentence saying another program has the file open", err)
	}
	windows.CloseHandle(h)
	held = false
	if b, _ := os.ReadFile(path); string(b) != "old" {
		t.Errorf("content = %q, want the old file untouched", b)
	}
}

// A regular file is replaced in place, leaving no temporary file behind;
// NUL, the Windows null device, is written through rather than replaced.
func TestReplaceAndNullDevice(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	for _, content := range []string{"one", "two"} {
		if err := safefile.WriteBytes(path, []byte(content)); err != nil {
			t.Fatal(err)
		}
		if b, _ := os.ReadFile(path); string(b) != content {
			t.Errorf("content = %q, want %q", b, content)
		}
	}
	if l := leftovers(t, dir, "run.json"); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
	if err := safefile.WriteBytes(os.DevNull, []byte("gone")); err != nil {
		t.Fatalf("writing %s: %v", os.DevNull, err)
	}
}

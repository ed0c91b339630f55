//go:build unix

package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// fifo makes a named pipe with a reader draining it, and returns its path
// and a function that stops the reader and returns what it read. The test
// holds the pipe open for reading and writing, so a writer never waits.
func fifo(t *testing.T, dir string) (string, func() string) {
	t.Helper()
	path := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	f, err := os.OpenFile(path, os.O_RDWR, 0)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	done := make(chan struct{})
	go func() { io.Copy(&buf, f); close(done) }()
	// The writer has finished when read is called, but the copy may not
	// have drained the pipe yet: closing at once lost the data now and
	// then. A read deadline ends the copy once the pipe stays empty.
	return path, func() string {
		f.SetReadDeadline(time.Now().Add(300 * time.Millisecond))
		<-done
		f.Close()
		return buf.String()
	}
}

func wantMode(t *testing.T, path string, want fs.FileMode) {
	t.Helper()
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Type() != want {
		t.Errorf("%s is now %v, want type %v kept", path, fi.Mode(), want)
	}
}

// export -o and compare -o follow a symbolic link and keep it a link, and
// write through to a FIFO instead of replacing it with a regular file.
func TestOutputFilesKeepLinksAndPipes(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	ref := refCopy(t, dir)
	mustCLI(t, "import", ref, "--db", db)
	var list []runsJSON
	if err := json.Unmarshal([]byte(mustCLI(t, "runs", "--json", "--db", db)), &list); err != nil || len(list) != 1 {
		t.Fatalf("runs --json: %v, %d runs", err, len(list))
	}
	id := list[0].UUID

	real := filepath.Join(dir, "real.csv")
	if err := os.WriteFile(real, nil, 0o640); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest.csv")
	if err := os.Symlink("real.csv", link); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "export", "--db", db, "--format", "csv", "-o", link, id)
	wantMode(t, link, fs.ModeSymlink)
	if b, _ := os.ReadFile(real); string(b) != mustCLI(t, "export", "--db", db, "--format", "csv", id) {
		t.Errorf("the link's target holds %q, want the CSV", b)
	}
	if fi, _ := os.Stat(real); fi.Mode().Perm() != 0o640 {
		t.Errorf("target mode %v, want 0640 kept", fi.Mode().Perm())
	}

	pipe, read := fifo(t, dir)
	mustCLI(t, "export", "--db", db, "--format", "md", "-o", pipe, id)
	wantMode(t, pipe, fs.ModeNamedPipe)
	if got := read(); !strings.Contains(got, "Decode") {
		t.Errorf("the pipe got %q, want the Markdown", got)
	}

	a, b := refCopies(t)
	cmpLink := filepath.Join(dir, "cmp.md")
	if err := os.Symlink(filepath.Join(dir, "cmp-real.md"), cmpLink); err != nil {
		t.Fatal(err)
	}
	mustCLI(t, "compare", a, b, "--format", "md", "-o", cmpLink)
	wantMode(t, cmpLink, fs.ModeSymlink)
	if b, err := os.ReadFile(filepath.Join(dir, "cmp-real.md")); err != nil || !bytes.Contains(b, []byte("890.6")) {
		t.Errorf("compare through a dangling link: %v, %q", err, b)
	}
}

// run --json gives a new file the documented mode (0644 less the umask,
// like an export) and writes through to a character device (root only: a
// null device made in a temporary folder, never the real /dev/null).
func TestRunJSONFileModeAndDevice(t *testing.T) {
	dir := t.TempDir()
	demo := []string{"run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20", "--contexts", "0",
		"--concurrency", "1", "--prefill", "none", "--duration", "2s", "--max-output", "64", "--no-save", "--no-telemetry"}
	out := filepath.Join(dir, "run.json")
	mustCLI(t, append(demo, "--json", out)...)
	old := syscall.Umask(0)
	syscall.Umask(old)
	if fi, err := os.Stat(out); err != nil || fi.Mode().Perm() != 0o644&^fs.FileMode(old) {
		t.Errorf("run --json made %v (%v), want %v", fi.Mode().Perm(), err, 0o644&^fs.FileMode(old))
	}

	if os.Geteuid() != 0 {
		t.Skip("making a device node needs root")
	}
	null := filepath.Join(dir, "null")
	if err := syscall.Mknod(null, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v", err)
	}
	mustCLI(t, append(demo, "--json", null)...)
	wantMode(t, null, fs.ModeCharDevice|fs.ModeDevice)
}

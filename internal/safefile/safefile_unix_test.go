//go:build unix

package safefile_test

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/rigbench/rigbench/internal/safefile"
)

func umask(t *testing.T) fs.FileMode {
	t.Helper()
	old := syscall.Umask(0)
	syscall.Umask(old)
	return fs.FileMode(old)
}

func TestNewFileGetsDocumentedMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "run.json")
	if err := safefile.WriteBytes(path, []byte("{}\n")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if got, want := fi.Mode().Perm(), safefile.Mode&^umask(t); got != want {
		t.Errorf("mode = %v, want %v", got, want)
	}
	if got := readFile(t, path); got != "{}\n" {
		t.Errorf("content = %q", got)
	}
	if l := leftovers(t, dir, "run.json"); len(l) != 0 {
		t.Errorf("left behind: %v", l)
	}
}

func TestRegularFileKeepsItsMode(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "private.json")
	if err := os.WriteFile(path, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, 0o640); err != nil {
		t.Fatal(err)
	}
	if err := safefile.WriteBytes(path, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !fi.Mode().IsRegular() || fi.Mode().Perm() != 0o640 {
		t.Errorf("mode = %v, want a regular file with -rw-r-----", fi.Mode())
	}
	if got := readFile(t, path); got != "new" {
		t.Errorf("content = %q, want new", got)
	}
}

func TestSymlinkIsFollowedAndStaysALink(t *testing.T) {
	dir := t.TempDir()
	target := filepath.Join(dir, "runs", "a.json")
	if err := os.MkdirAll(filepath.Dir(target), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(target, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "latest.json")
	if err := os.Symlink("runs/a.json", link); err != nil {
		t.Fatal(err)
	}
	if err := safefile.WriteBytes(link, []byte("new")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(link)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode()&fs.ModeSymlink == 0 {
		t.Fatalf("latest.json is now %v, want it still a symbolic link", fi.Mode())
	}
	if got := readFile(t, target); got != "new" {
		t.Errorf("target content = %q, want new", got)
	}
	if fi, _ := os.Stat(target); fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode = %v, want it kept at 0600", fi.Mode().Perm())
	}
}

func TestDanglingSymlinkCreatesItsTarget(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(dir, "out.md")
	if err := os.Symlink(filepath.Join(dir, "real.md"), link); err != nil {
		t.Fatal(err)
	}
	if err := safefile.WriteBytes(link, []byte("# hi")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, filepath.Join(dir, "real.md")); got != "# hi" {
		t.Errorf("target = %q", got)
	}
	if fi, _ := os.Lstat(link); fi.Mode()&fs.ModeSymlink == 0 {
		t.Errorf("link replaced by %v", fi.Mode())
	}
}

func TestSymlinkLoopIsRefused(t *testing.T) {
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	os.Symlink(b, a)
	os.Symlink(a, b)
	err := safefile.WriteBytes(a, []byte("x"))
	var se *safefile.Error
	if !errors.As(err, &se) || !errors.Is(err, syscall.ELOOP) || se.Path != a {
		t.Fatalf("err = %v, want a loop error naming %s", err, a)
	}
}

func TestFIFOIsWrittenThrough(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "pipe")
	if err := syscall.Mkfifo(path, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	got := make(chan string, 1)
	go func() {
		f, err := os.Open(path)
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(f)
		f.Close()
		got <- string(b)
	}()
	if err := safefile.WriteBytes(path, []byte("through")); err != nil {
		t.Fatal(err)
	}
	if s := <-got; s != "through" {
		t.Errorf("reader got %q", s)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeNamedPipe == 0 {
		t.Errorf("pipe is now %v (%v), want still a FIFO", fi.Mode(), err)
	}
}

func TestDevNullStaysADevice(t *testing.T) {
	if err := safefile.WriteBytes("/dev/null", []byte("gone")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat("/dev/null")
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("/dev/null is now %v (%v)", fi.Mode(), err)
	}
}

// TestCharDeviceOutsideDevIsWrittenThrough makes a null device in a temporary
// folder (root only), so the rule holds by file type, not only by the /dev/
// prefix.
func TestCharDeviceOutsideDevIsWrittenThrough(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("making a device node needs root")
	}
	path := filepath.Join(t.TempDir(), "null")
	if err := syscall.Mknod(path, syscall.S_IFCHR|0o666, 1<<8|3); err != nil {
		t.Skipf("mknod: %v", err)
	}
	if err := safefile.WriteBytes(path, []byte("gone")); err != nil {
		t.Fatal(err)
	}
	fi, err := os.Lstat(path)
	if err != nil || fi.Mode()&fs.ModeCharDevice == 0 {
		t.Fatalf("device is now %v (%v), want still a character device", fi.Mode(), err)
	}
}

// /dev/fd/N (a link into /proc/self/fd) names an open descriptor: a pipe
// there is written through, not replaced by a file.
func TestOpenDescriptorIsWrittenThrough(t *testing.T) {
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	path := fmt.Sprintf("/dev/fd/%d", w.Fd())
	if _, err := os.Stat(path); err != nil {
		t.Skipf("no /dev/fd here: %v", err)
	}
	if err := safefile.WriteBytes(path, []byte("through a pipe")); err != nil {
		t.Fatal(err)
	}
	w.Close()
	if b, _ := io.ReadAll(r); string(b) != "through a pipe" {
		t.Errorf("the pipe got %q", b)
	}
}

// Under /dev, a plain file system (/dev/shm, a tmpfs) holds plain files:
// the type decides, not the prefix, so a new file is created there.
func TestDevShmFileIsAFile(t *testing.T) {
	if fi, err := os.Stat("/dev/shm"); err != nil || !fi.IsDir() {
		t.Skip("no /dev/shm here")
	}
	path := filepath.Join("/dev/shm", fmt.Sprintf("rigbench-safefile-%d", os.Getpid()))
	defer os.Remove(path)
	if err := safefile.WriteBytes(path, []byte("x")); err != nil {
		t.Fatal(err)
	}
	if got := readFile(t, path); got != "x" {
		t.Errorf("content %q", got)
	}
}

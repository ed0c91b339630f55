// Package safefile writes a file the user named (an export, a run's JSON)
// without clobbering what is at that path: every CLI and app path that writes
// a user's file goes through Write.
//
// The rules, by what the path names:
//
//   - a regular file: the new content goes to a temporary file in the same
//     folder, is synced, then renamed over the old one, so a reader, a crash or
//     a full disk never leaves half a file. The file keeps its permission bits
//     (and, where the process may, its owner). A read-only file is refused, as a
//     shell's ">" would refuse it, instead of being replaced behind its back.
//   - nothing yet: the same temporary-file-and-rename, and the new file gets
//     [Mode] (0644) less the process umask: exports and run documents are
//     meant to be read by other tools and people on the box, and hold no
//     secret (secrets never reach exports).
//   - a character device or a FIFO (/dev/null, /dev/stdout on a terminal, a
//     named pipe): written through in place; a device cannot be renamed over,
//     and replacing it with a regular file is what this package exists to
//     prevent. A name in /proc (also reached as /dev/stdout or /dev/fd/N) is
//     always written through, since it stands for an open descriptor: a
//     pipe, a terminal or a file the shell opened.
//   - a symbolic link: followed, knowingly. The link stays a link and the
//     file it points to is replaced by the rules above, as a shell redirect
//     or an editor would do; a link to a missing file creates that file. A
//     link chain deeper than [maxLinks] is refused.
//   - a folder, a socket or anything else: refused with a sentence.
//
// A hard-linked regular file is replaced atomically like any other, so its
// other names keep the old content; that trade keeps the no-half-file rule.
package safefile

import (
	"bufio"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// Mode is the permission a new file is created with, before the umask.
const Mode fs.FileMode = 0o644

// maxLinks bounds how many symbolic links Write follows, as the kernel's
// own limit (40) does, so a loop is an error rather than a hang.
const maxLinks = 40

// Error is a failure to write Path: Err is the operating system's reason and
// Hint what the user can do about it. Its message names Path, never the
// temporary file beside it.
type Error struct {
	Path string
	Err  error
	Hint string
}

func (e *Error) Error() string {
	if e.Hint == "" {
		return fmt.Sprintf("cannot write %s (%v)", e.Path, e.Err)
	}
	return fmt.Sprintf("cannot write %s (%v); %s", e.Path, e.Err, e.Hint)
}

// Unwrap returns the operating system's reason, so errors.Is(err,
// syscall.ENOSPC) and the like hold.
func (e *Error) Unwrap() error { return e.Err }

// Write writes the output of write to path by the package rules. An error
// from write itself is returned unchanged and leaves a regular file or a new
// path untouched; errors of the file system are *Error.
func Write(path string, write func(io.Writer) error) error {
	return writeAt(path, path, write)
}

// WriteBytes writes data to path by the package rules.
func WriteBytes(path string, data []byte) error {
	return Write(path, func(w io.Writer) error {
		_, err := w.Write(data)
		return err
	})
}

// kind is what a path names once its links are followed.
type kind int

const (
	kindNew     kind = iota // nothing yet: create
	kindRegular             // a regular file: replace atomically
	kindThrough             // a device, a FIFO, or a name in /proc: write in place
)

// target is where a write lands: the path after following links, what is
// there, and the file being replaced (nil unless kindRegular).
type target struct {
	path string
	kind kind
	old  fs.FileInfo
}

// resolve follows path's links and classifies what is at the end; shown is
// the path the user gave, which every error names.
func resolve(shown, path string) (target, error) {
	for depth := 0; ; depth++ {
		if inProc(path) {
			return target{path: path, kind: kindThrough}, nil
		}
		fi, err := os.Lstat(path)
		switch {
		case errors.Is(err, fs.ErrNotExist):
			return target{path: path, kind: kindNew}, nil
		case err != nil:
			return target{}, fail(shown, err)
		}
		switch m := fi.Mode(); {
		case m&fs.ModeSymlink != 0:
			if depth >= maxLinks {
				return target{}, &Error{Path: shown, Err: syscall.ELOOP, Hint: "the symbolic links form a loop or a chain too long to follow"}
			}
			link, err := os.Readlink(path)
			if err != nil {
				return target{}, fail(shown, err)
			}
			if !filepath.IsAbs(link) {
				link = filepath.Join(filepath.Dir(path), link)
			}
			path = link
		case m.IsRegular():
			if err := writable(path); err != nil {
				return target{}, &Error{Path: shown, Err: err, Hint: "the file is read-only; make it writable or choose another name"}
			}
			return target{path: path, kind: kindRegular, old: fi}, nil
		case m&fs.ModeCharDevice != 0, m&fs.ModeNamedPipe != 0:
			return target{path: path, kind: kindThrough}, nil
		case m.IsDir():
			return target{}, &Error{Path: shown, Err: syscall.EISDIR, Hint: "name a file, not a folder"}
		default:
			return target{}, &Error{Path: shown, Err: errors.New("not a regular file, device or pipe"), Hint: "choose another name"}
		}
	}
}

// writeAt resolves path and writes to it by its kind.
func writeAt(shown, path string, write func(io.Writer) error) error {
	t, err := resolve(shown, path)
	if err != nil {
		return err
	}
	switch t.kind {
	case kindThrough:
		return writeThrough(shown, t.path, write)
	case kindRegular:
		return replace(shown, t.path, t.old.Mode().Perm(), t.old, write)
	default:
		return replace(shown, t.path, Mode, nil, write)
	}
}

// Check tells, without writing anything the user would see, whether Write
// could write path now: a run that lasts hours checks its output file
// before it starts, so a typo is not found at the end. A device or FIFO is
// checked for write permission only (opening a FIFO would wait for a
// reader); a new or regular file by creating and removing a temporary file
// beside it.
func Check(path string) error {
	t, err := resolve(path, path)
	if err != nil {
		return err
	}
	if t.kind == kindThrough {
		if err := writable(t.path); err != nil {
			return fail(path, &fs.PathError{Op: "open", Path: t.path, Err: err})
		}
		return nil
	}
	f, err := createTemp(filepath.Dir(t.path), Mode)
	if err != nil {
		return fail(path, err)
	}
	f.Close()
	os.Remove(f.Name())
	return nil
}

// inProc reports whether path names an entry of /proc, directly or
// through the links of its folder (/dev/stdout and /dev/fd/N lead to
// /proc/self/fd): such a name stands for an open descriptor, which may be a
// pipe or a file the shell opened, so it is written through, never
// replaced. Elsewhere under /dev (say /dev/shm) the file's type decides.
func inProc(path string) bool {
	abs, err := filepath.Abs(path)
	if err != nil {
		return false
	}
	if strings.HasPrefix(abs, "/proc/") {
		return true
	}
	dir, err := filepath.EvalSymlinks(filepath.Dir(abs))
	return err == nil && (dir == "/proc" || strings.HasPrefix(dir, "/proc/"))
}

// writeThrough opens path for writing without creating or renaming anything
// and streams into it.
func writeThrough(shown, path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return fail(shown, err)
	}
	bw := bufio.NewWriter(f)
	if err := write(bw); err != nil {
		f.Close()
		if isOSError(err) {
			return fail(shown, err)
		}
		return err
	}
	if err := bw.Flush(); err != nil {
		f.Close()
		return fail(shown, err)
	}
	if err := f.Close(); err != nil {
		return fail(shown, err)
	}
	return nil
}

// replace writes to a temporary file beside path and renames it over path.
// old is the file being replaced (nil when there is none): its owner is
// carried over where the process may change it.
func replace(shown, path string, perm fs.FileMode, old fs.FileInfo, write func(io.Writer) error) error {
	dir := filepath.Dir(path)
	tmp, err := createTemp(dir, perm)
	if err != nil {
		return fail(shown, err)
	}
	name := tmp.Name()
	done := false
	defer func() {
		if !done {
			tmp.Close()
			os.Remove(name)
		}
	}()
	bw := bufio.NewWriter(tmp)
	if err := write(bw); err != nil {
		if isOSError(err) {
			return fail(shown, err)
		}
		return err
	}
	if err := bw.Flush(); err != nil {
		return fail(shown, err)
	}
	if old != nil {
		// The umask applied at creation; the old file's bits are what the
		// user chose, so they are set exactly.
		if err := tmp.Chmod(perm); err != nil {
			return fail(shown, err)
		}
		keepOwner(tmp, old)
	}
	// Sync before the rename: otherwise a crash can leave the new name
	// pointing at an empty file on some file systems.
	if err := tmp.Sync(); err != nil {
		return fail(shown, err)
	}
	if err := tmp.Close(); err != nil {
		return fail(shown, err)
	}
	if err := os.Rename(name, path); err != nil {
		return fail(shown, err)
	}
	done = true
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the rename itself durable; best effort
		d.Close()
	}
	return nil
}

// createTemp creates a new hidden file in dir with perm (less
// the umask, which os.CreateTemp's fixed 0600 would not honour).
func createTemp(dir string, perm fs.FileMode) (*os.File, error) {
	for i := 0; ; i++ {
		var b [6]byte
		_, _ = rand.Read(b[:])
		name := filepath.Join(dir, ".rigbench-tmp-"+hex.EncodeToString(b[:]))
		f, err := os.OpenFile(name, os.O_WRONLY|os.O_CREATE|os.O_EXCL, perm)
		if errors.Is(err, fs.ErrExist) && i < 100 {
			continue
		}
		return f, err
	}
}

// isOSError reports whether err came from the file (a write error surfaced
// through the callback) rather than from rendering.
func isOSError(err error) bool {
	var pe *fs.PathError
	var errno syscall.Errno
	return errors.As(err, &pe) || errors.As(err, &errno)
}

// fail turns an operating-system error into an *Error naming shown, with a
// hint for the reasons a user can act on.
func fail(shown string, err error) error {
	reason := err
	var pe *fs.PathError
	if errors.As(err, &pe) {
		reason = pe.Err
	}
	var le *os.LinkError
	if errors.As(err, &le) {
		reason = le.Err
	}
	e := &Error{Path: shown, Err: reason, Hint: platformHint(reason)}
	switch {
	case e.Hint != "":
	case errors.Is(reason, syscall.ENOSPC), errors.Is(reason, syscall.EDQUOT):
		e.Hint = "free some disk space or choose another folder"
	case errors.Is(reason, fs.ErrNotExist):
		e.Hint = "check that its folder exists"
	case errors.Is(reason, fs.ErrPermission), errors.Is(reason, syscall.EROFS):
		e.Hint = "check that the folder is writable or choose another one"
	case errors.Is(reason, syscall.ENOTDIR):
		e.Hint = "a part of the path is a file, not a folder"
	}
	return e
}

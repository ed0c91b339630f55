package safefile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// ErrKept is the reason a Guard gives for refusing a path: the command
// keeps, reads or owns the file there, and an output written onto it would
// replace it.
var ErrKept = errors.New("the command itself uses this file")

// Guard is the set of files one command must never write an output onto:
// the open history and its -wal and -shm files, the folder of sweep specs
// beside it, and every file the command reads (a compared run, a resumed
// spec). An output path that names one of them, by any spelling (a
// relative path, "..", a symbolic link, a hard link), is refused before
// anything is written, with a sentence saying what the file is.
//
// Both front ends build one Guard per command from what that command opens;
// the zero Guard and a nil *Guard keep nothing.
type Guard struct {
	kept []kept
}

// kept is one protected file, or every file in a folder when dir is set;
// what names it for the user ("the history (--db)").
type kept struct {
	path string
	dir  bool
	what string
}

// Keep protects the file at path; what says what it is, in the front end's
// words, for the refusal ("the history the run is saved in (--db)").
func (g *Guard) Keep(path, what string) {
	if path != "" {
		g.kept = append(g.kept, kept{path: path, what: what})
	}
}

// KeepDir protects every file in the folder dir (not its subfolders' own
// files, which no command writes).
func (g *Guard) KeepDir(dir, what string) {
	if dir != "" {
		g.kept = append(g.kept, kept{path: dir, dir: true, what: what})
	}
}

// Check refuses out when it names a kept file. A path that cannot be
// resolved is left to Write, which reports the file system's reason; ""
// and "-" (standard output) pass.
func (g *Guard) Check(out string) error {
	if g == nil || len(g.kept) == 0 || out == "" || out == "-" {
		return nil
	}
	if inProc(out) {
		return g.checkDescriptor(out)
	}
	o := canonical(out)
	oi, oerr := os.Stat(out)
	for _, k := range g.kept {
		p := canonical(k.path)
		if k.dir {
			if filepath.Dir(o) == p {
				return refuse(out, k.what)
			}
			continue
		}
		if o == p {
			return refuse(out, k.what)
		}
		if oerr == nil && oi.Mode().IsRegular() {
			if ki, err := os.Stat(k.path); err == nil && os.SameFile(oi, ki) {
				return refuse(out, k.what)
			}
		}
	}
	return nil
}

// checkDescriptor refuses a name in /proc (/dev/fd/5, /proc/self/fd/5,
// /dev/stdout) that stands for a kept file the process holds open: the
// history is open on some descriptor while a command runs, and writing
// through that name would overwrite it in place. The kernel resolves such
// a name to the open file itself, so os.Stat's file is compared with each
// kept file, and the link's target (the file's path, as /proc tells it)
// with each kept folder. A pipe, a terminal or any other file passes.
func (g *Guard) checkDescriptor(out string) error {
	oi, err := os.Stat(out)
	if err != nil || !oi.Mode().IsRegular() {
		return nil
	}
	target, _ := filepath.EvalSymlinks(out)
	for _, k := range g.kept {
		if k.dir {
			if target != "" && filepath.Dir(target) == canonical(k.path) {
				return refuse(out, k.what)
			}
			continue
		}
		if ki, err := os.Stat(k.path); err == nil && os.SameFile(oi, ki) {
			return refuse(out, k.what)
		}
	}
	return nil
}

// Write checks path against the guard, then writes it by the package
// rules (see [Write]).
func (g *Guard) Write(path string, write func(io.Writer) error) error {
	if err := g.Check(path); err != nil {
		return err
	}
	return Write(path, write)
}

func refuse(out, what string) error {
	return &Error{Path: out, Err: ErrKept, Hint: "it is " + what + ", and writing there would replace it; choose another file name"}
}

// canonical is path made absolute with every symbolic link resolved: of
// the whole path when it exists, else of its folder (a new file's name is
// its own).
func canonical(path string) string {
	abs, err := filepath.Abs(path)
	if err != nil {
		return filepath.Clean(path)
	}
	if r, err := filepath.EvalSymlinks(abs); err == nil {
		return r
	}
	// A dangling link: follow it to the file it would create.
	if link, err := os.Readlink(abs); err == nil {
		if !filepath.IsAbs(link) {
			link = filepath.Join(filepath.Dir(abs), link)
		}
		if link != abs && !strings.HasPrefix(link, abs+string(filepath.Separator)) {
			return canonicalNew(link)
		}
	}
	return canonicalNew(abs)
}

// canonicalNew resolves the folder of a path that does not exist yet.
func canonicalNew(abs string) string {
	if d, err := filepath.EvalSymlinks(filepath.Dir(abs)); err == nil {
		return filepath.Join(d, filepath.Base(abs))
	}
	return abs
}

package store

import (
	"errors"
	"fmt"
	"strings"
	"syscall"

	"modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// Errors callers can test for with errors.Is.
var (
	// ErrNotFound: no run has the given UUID or UUID prefix.
	ErrNotFound = errors.New("no run with that ID")
	// ErrAmbiguous: a UUID prefix matches more than one run.
	ErrAmbiguous = errors.New("the ID prefix matches more than one run")
	// ErrNewerVersion: the history was written by a newer RigBench.
	ErrNewerVersion = errors.New("the history is from a newer RigBench")
	// ErrFull: the disk (or the database's size limit) is full.
	ErrFull = errors.New("the disk is full")
	// ErrReadOnly: the history file or its folder cannot be written.
	ErrReadOnly = errors.New("the history is read-only")
	// ErrBusy: another process held the history's write lock longer than
	// the busy timeout.
	ErrBusy = errors.New("the history is busy")
)

// Hint is what a user can do about a history error beyond what its message
// says, in terms that differ between the front ends (a flag in the CLI, an
// environment variable and a restart in the app). Errors carry it apart
// from their message; Advice words it.
type Hint int

// The hints.
const (
	NoHint Hint = iota
	// HintOtherFile: use another history file.
	HintOtherFile
	// HintSetPath: give the history a file path (there is no home folder
	// to keep it in).
	HintSetPath
	// HintListRuns: the list of runs shows every run's ID.
	HintListRuns
)

// defaultAdvice words each hint for any front end: the environment
// variable works for all of them.
var defaultAdvice = map[Hint]string{
	HintOtherFile: "set " + EnvDB + " to another file",
	HintSetPath:   "set " + EnvDB + " to a file path",
	HintListRuns:  "the history lists every run with its ID",
}

// userError is an error whose message is one plain sentence for the user
// and which still unwraps to the sentinel and the driver's error. The hint,
// when set, follows the message after sep, and then tail.
type userError struct {
	msg  string
	errs []error
	hint Hint
	sep  string
	tail string
}

func (e *userError) Error() string   { return e.worded(defaultAdvice[e.hint]) }
func (e *userError) Unwrap() []error { return e.errs }

func (e *userError) worded(advice string) string {
	if e.hint == NoHint {
		return e.msg
	}
	return e.msg + e.sep + advice + e.tail
}

// hinted is a userError that ends with advice for hint after sep.
func hinted(msg, sep string, hint Hint, errs ...error) *userError {
	return &userError{msg: msg, sep: sep, hint: hint, errs: errs}
}

// Advice is err's text with the advice of the history error in its chain
// worded by words, which returns a front end's words for a hint ("" keeps
// the default). Errors without a hint read as err.Error().
func Advice(err error, words func(Hint) string) string {
	var ue *userError
	if !errors.As(err, &ue) || ue.hint == NoHint {
		return err.Error()
	}
	w := words(ue.hint)
	if w == "" {
		return err.Error()
	}
	return strings.Replace(err.Error(), ue.Error(), ue.worded(w), 1)
}

func errNewer(v int) error {
	e := hinted(fmt.Sprintf("the history has schema version %d but this RigBench knows only up to %d; update RigBench", v, SchemaVersion),
		" or ", HintOtherFile, ErrNewerVersion)
	e.tail = " (the history was not changed)"
	return e
}

// explain turns a driver or file-system error about the history at path
// into one sentence that says what to do next; other errors pass through.
func explain(err error, path string) error {
	if err == nil {
		return nil
	}
	var ue *userError
	if errors.As(err, &ue) {
		return err
	}
	code := 0
	var se *sqlite.Error
	if errors.As(err, &se) {
		code = se.Code() & 0xff // primary result code of an extended one
	}
	switch {
	case code == sqlite3.SQLITE_FULL || errors.Is(err, syscall.ENOSPC):
		// What a full disk cost is for the caller to say: a failed import
		// or edit changed nothing, a recorded run may have lost cells
		// (SaveError).
		return &userError{msg: fmt.Sprintf("the disk holding the history %s is full; free some space and try again", path), errs: []error{ErrFull, err}}
	case code == sqlite3.SQLITE_READONLY || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES):
		return hinted(fmt.Sprintf("the history %s is read-only; make it and its folder writable", path), ", or ", HintOtherFile, ErrReadOnly, err)
	case code == sqlite3.SQLITE_CANTOPEN || errors.Is(err, syscall.ENOTDIR):
		return hinted(fmt.Sprintf("cannot open the history %s; check that its folder exists and is writable", path), ", or ", HintOtherFile, err)
	case code == sqlite3.SQLITE_NOTADB:
		return hinted(path+" is not a RigBench history", "; ", HintOtherFile, err)
	case code == sqlite3.SQLITE_CORRUPT:
		return &userError{msg: fmt.Sprintf("the history %s is damaged; move it aside (RigBench then starts a new one) or restore a backup", path), errs: []error{err}}
	case code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED:
		return &userError{msg: fmt.Sprintf("the history %s is busy (another RigBench is writing it); try again in a moment", path), errs: []error{ErrBusy, err}}
	case code == sqlite3.SQLITE_IOERR:
		return &userError{msg: fmt.Sprintf("a disk error stopped RigBench writing the history %s; check the disk and try again", path), errs: []error{err}}
	}
	return err
}

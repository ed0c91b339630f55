package store

import (
	"errors"
	"fmt"
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

// userError is an error whose message is one plain sentence for the user
// and which still unwraps to the sentinel and the driver's error.
type userError struct {
	msg  string
	errs []error
}

func (e *userError) Error() string   { return e.msg }
func (e *userError) Unwrap() []error { return e.errs }

func errNewer(v int) error {
	return &userError{
		msg:  fmt.Sprintf("the history has schema version %d but this RigBench knows only up to %d; update RigBench or set RIGBENCH_DB (or the CLI's --db) to another file (the history was not changed)", v, SchemaVersion),
		errs: []error{ErrNewerVersion},
	}
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
		return &userError{fmt.Sprintf("the disk holding the history %s is full; free some space and try again", path), []error{ErrFull, err}}
	case code == sqlite3.SQLITE_READONLY || errors.Is(err, syscall.EROFS) || errors.Is(err, syscall.EACCES):
		return &userError{fmt.Sprintf("the history %s is read-only; make it and its folder writable, or set RIGBENCH_DB (or the CLI's --db) to another file", path), []error{ErrReadOnly, err}}
	case code == sqlite3.SQLITE_CANTOPEN || errors.Is(err, syscall.ENOTDIR):
		return &userError{fmt.Sprintf("cannot open the history %s; check that its folder exists and is writable, or set RIGBENCH_DB (or the CLI's --db) to another file", path), []error{err}}
	case code == sqlite3.SQLITE_NOTADB:
		return &userError{fmt.Sprintf("%s is not a RigBench history; set RIGBENCH_DB (or the CLI's --db) to another file", path), []error{err}}
	case code == sqlite3.SQLITE_CORRUPT:
		return &userError{fmt.Sprintf("the history %s is damaged; move it aside (RigBench then starts a new one) or restore a backup", path), []error{err}}
	case code == sqlite3.SQLITE_BUSY || code == sqlite3.SQLITE_LOCKED:
		return &userError{fmt.Sprintf("the history %s is busy (another RigBench is writing it); try again in a moment", path), []error{ErrBusy, err}}
	case code == sqlite3.SQLITE_IOERR:
		return &userError{fmt.Sprintf("a disk error stopped RigBench writing the history %s; check the disk and try again", path), []error{err}}
	}
	return err
}

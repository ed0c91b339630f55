package tune

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
)

// errLocked is lockFile's answer when another process (or another open of
// the file in this one) holds the lock.
var errLocked = errors.New("locked")

// lockSweep holds dir/ID.lock with an exclusive lock for as long as one
// process runs sweep id, so two resumes of one sweep at once (two
// terminals, or the app and the CLI) cannot both measure every variant
// not yet in the history. The operating system drops the lock when the
// process ends, even by kill -9 or Task Manager, so a crash never leaves
// the sweep locked. The returned function releases it. The lock itself is
// the platform's (lockFile): flock(2) on Unix, LockFileEx on Windows.
func lockSweep(dir, id string) (unlock func(), err error) {
	if err := CheckID(id); err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("keeping the sweep's spec for --resume: %w", err)
	}
	path := filepath.Join(dir, id+".lock")
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("locking sweep %s: %w", id, err)
	}
	if err := lockFile(f); err != nil {
		f.Close()
		if errors.Is(err, errLocked) {
			return nil, fmt.Errorf("sweep %s is already running in another RigBench window or terminal: let it finish, or stop it, then resume", id)
		}
		return nil, fmt.Errorf("locking sweep %s: %w", id, err)
	}
	return func() { f.Close() }, nil
}

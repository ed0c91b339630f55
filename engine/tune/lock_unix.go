//go:build unix

package tune

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
)

// lockSweep holds dir/ID.lock with an exclusive flock(2) for as long as
// one process runs sweep id, so two resumes of one sweep at once (two
// terminals, or the app and the CLI) cannot both measure every variant
// not yet in the history. The kernel drops the lock when the process
// ends, even by kill -9, so a crash never leaves the sweep locked. The
// returned function releases it.
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
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, fmt.Errorf("sweep %s is already running in another RigBench window or terminal: let it finish, or stop it, then resume", id)
		}
		return nil, fmt.Errorf("locking sweep %s: %w", id, err)
	}
	return func() { f.Close() }, nil
}

//go:build windows

package store

import (
	"errors"

	"golang.org/x/sys/windows"
)

// processAlive reports whether a process with this pid is running.
// OpenProcess fails with ERROR_INVALID_PARAMETER for a pid that names no
// process, and with ERROR_ACCESS_DENIED for another user's (which exists);
// a process that has exited but whose handle someone still holds answers
// an exit code other than STILL_ACTIVE. A pid of 0 or less never names a
// recorder.
func processAlive(pid int) bool {
	if pid <= 0 {
		return false
	}
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if err != nil {
		return errors.Is(err, windows.ERROR_ACCESS_DENIED)
	}
	defer windows.CloseHandle(h)
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err != nil {
		return true // it exists; its state is unknown, so it is not marked interrupted
	}
	const stillActive = 259 // STILL_ACTIVE: the process has not exited
	return code == stillActive
}

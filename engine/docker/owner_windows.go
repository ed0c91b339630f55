//go:build windows

package docker

import (
	"errors"
	"os"

	"golang.org/x/sys/windows"
)

// WindowsBoot is the boot field of a Windows owner: a creation time is a
// date, not ticks since boot, so no boot id is needed to tell a process of
// an earlier boot from a new one with the same id.
const WindowsBoot = "windows"

func bootID() (string, error) { return WindowsBoot, nil }

// processStart is pid's creation time in 100 ns since 1601. A pid that
// names no process (OpenProcess's ERROR_INVALID_PARAMETER), or one that
// has exited while a handle keeps its record, is os.ErrNotExist.
func processStart(pid int) (uint64, error) {
	h, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(pid))
	if errors.Is(err, windows.ERROR_INVALID_PARAMETER) {
		return 0, os.ErrNotExist
	}
	if err != nil {
		return 0, err
	}
	defer windows.CloseHandle(h)
	const stillActive = 259 // STILL_ACTIVE
	var code uint32
	if err := windows.GetExitCodeProcess(h, &code); err == nil && code != stillActive {
		return 0, os.ErrNotExist
	}
	var creation, exit, kernel, user windows.Filetime
	if err := windows.GetProcessTimes(h, &creation, &exit, &kernel, &user); err != nil {
		return 0, err
	}
	return uint64(creation.HighDateTime)<<32 | uint64(creation.LowDateTime), nil
}

//go:build windows

package safefile

import (
	"errors"
	"io/fs"
	"os"
	"syscall"

	"golang.org/x/sys/windows"
)

// writable refuses a file with the read-only attribute, which is what
// Windows means by a read-only file (Go reports it as a mode without write
// bits). ACLs are left to the rename, whose failure fail words. Devices
// (NUL, CON) are always writable.
func writable(path string) error {
	fi, err := os.Stat(path)
	if err != nil {
		return err
	}
	if fi.Mode().IsRegular() && fi.Mode().Perm()&0o200 == 0 {
		return syscall.ERROR_ACCESS_DENIED
	}
	return nil
}

// keepOwner does nothing: a file's owner on Windows is in its security
// descriptor, and a new file in the same folder inherits the folder's ACL,
// which is what Explorer's own saves do.
func keepOwner(*os.File, fs.FileInfo) {}

// platformHint words the Windows reasons a user can act on that have no
// errno twin: another program holding the file open without sharing it (an
// editor, a spreadsheet, a virus scanner mid-scan), which makes the
// replace fail, and a full disk.
func platformHint(reason error) string {
	switch {
	case errors.Is(reason, windows.ERROR_SHARING_VIOLATION), errors.Is(reason, windows.ERROR_LOCK_VIOLATION):
		return "another program (an editor, a spreadsheet or a virus scanner) has the file open; close it there and try again, or choose another name"
	case errors.Is(reason, windows.ERROR_DISK_FULL), errors.Is(reason, windows.ERROR_HANDLE_DISK_FULL):
		return "free some disk space or choose another folder"
	case errors.Is(reason, windows.ERROR_ACCESS_DENIED):
		return "check that the folder is writable and that no other program has the file open, or choose another folder"
	}
	return ""
}

//go:build unix

package safefile

import (
	"io/fs"
	"os"
	"syscall"
)

// writable asks the kernel whether this process may write path, by its
// mode bits, owner and ACL-less permissions, as a shell's ">" would.
func writable(path string) error {
	return syscall.Access(path, 2 /* W_OK */)
}

// keepOwner gives the replacement file old's owner and group: only root may
// give a file away, so for everyone else this silently keeps their own.
func keepOwner(tmp *os.File, old fs.FileInfo) {
	if st, ok := old.Sys().(*syscall.Stat_t); ok {
		_ = tmp.Chown(int(st.Uid), int(st.Gid))
	}
}

// platformHint has nothing to add on Unix: fail's own cases cover errno.
func platformHint(error) string { return "" }

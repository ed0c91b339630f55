//go:build linux

package docker

import (
	"os"
	"strconv"
	"strings"
)

// bootID is this boot's id: the kernel makes a new one at every start.
func bootID() (string, error) {
	b, err := os.ReadFile("/proc/sys/kernel/random/boot_id")
	if err != nil {
		return "", err
	}
	return strings.TrimSpace(string(b)), nil
}

// processStart reads the start time of pid from /proc/PID/stat; an error
// wrapping os.ErrNotExist means no such process.
func processStart(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	return parseStatStart(string(b))
}

package docker

import (
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Owner is the process that started a container, named so that another
// process can tell, without asking it, whether it still runs: a process id
// alone is reused, but a process id with the process's start time names
// one process for the life of a boot, and the boot id and the host name
// say which boot of which machine that was. On Linux the start time is in
// clock ticks after boot (/proc/PID/stat field 22) and the boot id is
// /proc/sys/kernel/random/boot_id; on Windows the start time is the
// process's creation time (GetProcessTimes, 100 ns since 1601), which
// already tells boots apart, and the boot id is WindowsBoot.
type Owner struct {
	Host  string
	Boot  string
	PID   int
	Start uint64
}

// OwnerState is what a process can tell about a container's owner.
type OwnerState int

// Owner states. Only OwnerGone makes a container a leftover: a live
// owner's container is measured by it, and an owner on another machine
// (a shared Docker daemon) or with no record cannot be judged, so its
// container is left alone.
const (
	OwnerAlive OwnerState = iota
	OwnerGone
	OwnerUnknown
)

func (s OwnerState) String() string {
	switch s {
	case OwnerAlive:
		return "alive"
	case OwnerGone:
		return "gone"
	}
	return "unknown"
}

// String is the owner as the io.rigbench.owner label holds it:
// host/boot/pid/start.
func (o Owner) String() string {
	return fmt.Sprintf("%s/%s/%d/%d", o.Host, o.Boot, o.PID, o.Start)
}

// ParseOwner reads an io.rigbench.owner label; ok is false for anything
// that is not one (the label comes from the daemon, so from anyone who can
// start a container).
func ParseOwner(s string) (o Owner, ok bool) {
	f := strings.Split(s, "/")
	if len(f) != 4 || f[0] == "" || f[1] == "" {
		return Owner{}, false
	}
	pid, err := strconv.Atoi(f[2])
	if err != nil || pid <= 0 {
		return Owner{}, false
	}
	start, err := strconv.ParseUint(f[3], 10, 64)
	if err != nil {
		return Owner{}, false
	}
	return Owner{Host: f[0], Boot: f[1], PID: pid, Start: start}, true
}

var (
	selfOnce sync.Once
	self     Owner
	selfErr  error
)

// Self is this process as an Owner; err says why it cannot be named (as on
// macOS, which has neither /proc nor a Windows process's creation time), in which case its containers carry no owner and
// are never judged left over while they run.
func Self() (Owner, error) {
	selfOnce.Do(func() { self, selfErr = ProcessOwner(os.Getpid()) })
	return self, selfErr
}

// ProcessOwner names process pid on this machine as an Owner.
func ProcessOwner(pid int) (Owner, error) {
	host, err := os.Hostname()
	if err != nil {
		return Owner{}, err
	}
	boot, err := bootID()
	if err != nil {
		return Owner{}, err
	}
	start, err := processStart(pid)
	if err != nil {
		return Owner{}, err
	}
	return Owner{Host: host, Boot: boot, PID: pid, Start: start}, nil
}

// State tells whether o still runs, judged from this process: alive when
// the same process (same id and start time) runs in this boot of this
// machine, gone when it does not, unknown when o is on another machine or
// this one cannot be named.
func (o Owner) State() OwnerState {
	me, err := Self()
	if err != nil || o.Host != me.Host {
		return OwnerUnknown
	}
	if o.Boot != me.Boot {
		return OwnerGone // the machine restarted since: every process of that boot is gone
	}
	start, err := processStart(o.PID)
	switch {
	case errors.Is(err, os.ErrNotExist), errors.Is(err, syscall.ESRCH):
		return OwnerGone
	case err != nil:
		return OwnerUnknown
	case start != o.Start:
		return OwnerGone // the id was reused by a later process
	}
	return OwnerAlive
}

// parseStatStart returns field 22 (starttime) of a /proc/PID/stat line. The
// second field, the command name in parentheses, may hold spaces and ')',
// so the fields are counted from the last ')'.
func parseStatStart(stat string) (uint64, error) {
	i := strings.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, errors.New("malformed /proc stat line")
	}
	f := strings.Fields(stat[i+1:])
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return 0, errors.New("short /proc stat line")
	}
	return strconv.ParseUint(f[19], 10, 64)
}

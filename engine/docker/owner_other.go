//go:build !linux && !windows

package docker

import "errors"

// errNoOwner is why a process cannot be named here (macOS and the BSDs have
// no /proc): containers then carry no owner and are never judged left over
// while they run.
var errNoOwner = errors.New("this platform cannot name a process by its start time")

func bootID() (string, error) { return "", errNoOwner }

func processStart(int) (uint64, error) { return 0, errNoOwner }

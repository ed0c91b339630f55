package cluster

import (
	"bufio"
	"errors"
	"strconv"
	"strings"
)

// Status is what `ray status` says of the cluster.
type Status struct {
	// Nodes is how many nodes are active.
	Nodes int
	// GPUs is the cluster's total GPUs (the "x/N GPU" line's N).
	GPUs float64
}

// ErrNoStatus is `ray status` output with no "Active:" section.
var ErrNoStatus = errors.New("not the output of ray status")

// ParseStatus reads `ray status` (Ray's own and the simulator's stand-in
// print the same layout): the lines between "Active:" and "Pending:" are
// the active nodes ("  1 node_…"), and " 0.0/2.0 GPU" under "Usage:" the
// GPUs in use of all.
func ParseStatus(out string) (Status, error) {
	var s Status
	section, seen := "", false
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "Active:":
			section, seen = "active", true
			continue
		case strings.HasSuffix(line, ":") && !strings.Contains(line, " "):
			section = line
			continue
		}
		if section == "active" && strings.Contains(line, "node_") {
			s.Nodes++
		}
		if used, total, ok := strings.Cut(line, "/"); ok && strings.HasSuffix(total, " GPU") {
			if _, err := strconv.ParseFloat(used, 64); err == nil {
				if n, err := strconv.ParseFloat(strings.TrimSuffix(total, " GPU"), 64); err == nil && n >= 0 {
					s.GPUs = n
				}
			}
		}
	}
	if !seen {
		return s, ErrNoStatus
	}
	return s, nil
}

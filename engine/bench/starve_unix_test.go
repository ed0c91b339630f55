//go:build unix

package bench

import (
	"os"
	"os/exec"
	"strconv"
	"testing"
	"time"
)

// TestLagMeterSeesAStoppedProcess: a child stops this process (SIGSTOP, as
// a machine that gives it no core would) for 400 ms and lets it go on
// (SIGCONT). The lag meter counts at least the stop, less a tick and its
// slack: the time the stall check must not blame on the server.
func TestLagMeterSeesAStoppedProcess(t *testing.T) {
	const stopped = 400 * time.Millisecond
	m := startLagMeter()
	defer m.stop()
	time.Sleep(5 * lagTick) // the meter runs
	before := m.starved()
	pid := strconv.Itoa(os.Getpid())
	cmd := exec.Command("sh", "-c", "kill -STOP "+pid+"; sleep 0.4; kill -CONT "+pid)
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	// The meter reads the stop at its first wake-up after SIGCONT.
	time.Sleep(5 * lagTick)
	lost := m.starved() - before
	if want := stopped - lagTick - lagSlack; lost < want {
		t.Errorf("the lag meter counted %v of a %v stop, want at least %v", lost, stopped, want)
	}
	t.Logf("a %v stop counted as %v lost", stopped, lost)
}

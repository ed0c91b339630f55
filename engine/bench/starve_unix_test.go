//go:build unix

package bench

import (
	"os"
	"os/exec"
	"strconv"
	"sync"
	"testing"
	"time"
)

// TestLagMeterSeesAStoppedProcess: a child stops this process (SIGSTOP, as
// a machine that gives it no core would) for 400 ms and lets it go on
// (SIGCONT). The lag meter counts at least the stop, less a tick and its
// slack: the time the stall check must not blame on the server; and it
// reports the freeze as an interval at least that long, ending at a
// wake-up that its reported time then covers.
func TestLagMeterSeesAStoppedProcess(t *testing.T) {
	const stopped = 400 * time.Millisecond
	var mu sync.Mutex
	var longest time.Duration
	var end time.Time
	m := startLagMeter(func(from, to time.Time) {
		mu.Lock()
		defer mu.Unlock()
		if to.Sub(from) > longest {
			longest, end = to.Sub(from), to
		}
	})
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
	mu.Lock()
	defer mu.Unlock()
	if want := stopped - lagTick - lagSlack; longest < want {
		t.Errorf("the longest freeze reported was %v, want at least %v", longest, want)
	}
	if m.reported().Before(end) {
		t.Errorf("reported up to %v, before the freeze's end %v", m.reported(), end)
	}
	t.Logf("a %v stop counted as %v lost, reported as a freeze of %v", stopped, lost, longest)
}

package bench

import (
	"testing"
	"time"
)

// The client's share is its CPU time over the window's wall time and the
// machine's cores, read through the Runner's clocks: 3 CPU-seconds in a
// 2-second window on 2 cores is 75%; no reading without ClientCPU; never
// above 100.
func TestClientCPUShare(t *testing.T) {
	now, cpu := time.Unix(1000, 0), 10*time.Second
	r := &Runner{Now: func() time.Time { return now }, ClientCPU: func() time.Duration { return cpu }, Cores: 2}
	var c cpuShare
	c.start(r)
	now, cpu = now.Add(2*time.Second), cpu+3*time.Second
	if got := c.pct(r); got != 75 {
		t.Errorf("share %v%%, want 75", got)
	}
	cpu += 10 * time.Second // a reading that outran the wall clock
	if got := c.pct(r); got != 100 {
		t.Errorf("share %v%%, want at most 100", got)
	}
	var off cpuShare
	off.start(&Runner{Now: r.Now})
	if got := off.pct(r); got != 0 {
		t.Errorf("share without ClientCPU %v%%, want 0 (not measured)", got)
	}
	if ProcessCPU() < 0 {
		t.Error("negative process CPU time")
	}
}

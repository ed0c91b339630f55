package bench_test

import (
	"context"
	"errors"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// A server behind a tunnel that drops: the probe finds it gone, the
// runner asks LinkLost, and the run ends with the rig's sentence as the
// evidence, keeping the finished cells. While the tunnel is up LinkLost
// is not what ends a run: the server's own death is reported as before.
func TestDroppedTunnelEndsTheRunWithTheRigsSentence(t *testing.T) {
	_, hs, c := startSimServer(t, tinyConfig(t, 10))
	var (
		once    sync.Once
		dropped atomic.Bool
	)
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, PrefillContexts: []int{512}, DurationS: 20, MaxOutput: 64}
	r := &bench.Runner{Client: c, Plan: plan,
		LinkLost: func() error {
			if dropped.Load() {
				return errors.New("rig ssh://me@box: the SSH connection to me@box:22 dropped (EOF)")
			}
			return nil
		},
		Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
			if e.Kind == rundoc.EventCellProgress && e.Index == 1 && e.LiveTokS > 0 {
				once.Do(func() {
					dropped.Store(true)
					hs.Listener.Close()
					hs.CloseClientConnections()
				})
			}
		})}
	run, err := r.Run(context.Background())
	var (
		gone *bench.ServerGoneError
		ll   *bench.LinkLostError
	)
	if !errors.As(err, &gone) || !errors.As(err, &ll) {
		t.Fatalf("err = %v, want a ServerGoneError with a LinkLostError", err)
	}
	if !strings.Contains(gone.Stopped(), "stopped answering during cell decode 0×1") ||
		!strings.Contains(gone.Stopped(), ": rig ssh://me@box: the SSH connection to me@box:22 dropped (EOF); 1 of 3 cells were measured and kept") {
		t.Errorf("sentence %q", gone.Stopped())
	}
	if len(run.Cells) != 2 || !run.Cells[0].Status.Ran() || run.Cells[1].Status != rundoc.StatusFailed {
		t.Errorf("cells %+v", run.Cells)
	}
}

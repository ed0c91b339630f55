package bench_test

import (
	"context"
	"sync"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCancelledBeforeAnyCellSaysSoInItsName is issue 41 item 9: a run
// cancelled before any of its cells came to an outcome is named so
// (History listed it under the same name as the runs that measured), and
// one cancelled after a cell keeps its name, its mark from an earlier
// attempt dropped.
func TestCancelledBeforeAnyCellSaysSoInItsName(t *testing.T) {
	for _, tc := range []struct {
		name   string
		after  int // cancel once this many cells are done
		marked bool
	}{
		{"a1-4b-fp8 · Dec 4 12:40", 0, true},
		{"a1-4b-fp8 · Dec 4 12:41" + rundoc.NothingMeasured, 1, false},
	} {
		_, c := startSim(t, tinyConfig(t, 10))
		ctx, cancel := context.WithCancel(context.Background())
		var once sync.Once
		plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 2, Window: rundoc.WindowFixed, MaxOutput: 64}
		done := 0
		r := &bench.Runner{Client: c, Plan: plan, Doc: &rundoc.Run{Name: tc.name}, Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
			if e.Kind == rundoc.EventCellDone {
				done++
			}
			if (e.Kind == rundoc.EventRunStarted || e.Kind == rundoc.EventCellDone) && done == tc.after {
				once.Do(cancel)
			}
		})}
		run, _ := r.Run(ctx)
		cancel()
		if run.Status != rundoc.RunCancelled {
			t.Fatalf("%q: run %s, want cancelled", tc.name, run.Status)
		}
		base := tc.name[:len("a1-4b-fp8 · Dec 4 12:4x")]
		want := base
		if tc.marked {
			want = base + rundoc.NothingMeasured
		}
		if run.Name != want {
			t.Errorf("cancelled after %d cell(s): named %q, want %q", tc.after, run.Name, want)
		}
	}
}

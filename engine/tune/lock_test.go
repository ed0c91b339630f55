package tune_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/tune"
)

// TestSweepRunsOnceAtATime: while a sweep runs, a second runner of the
// same sweep id (a resume in another terminal, or the app beside the CLI)
// is refused before it measures anything; once the first has ended, the
// sweep can be resumed again.
func TestSweepRunsOnceAtATime(t *testing.T) {
	spec := demoSpec(t)
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var second error
	var secondMeasured int
	asked := false
	first := &tune.Runner{Spec: spec, Target: demoTarget(50), Hardware: noGPU, SpecDir: dir,
		Progress: func(p tune.Progress) {
			if p.Stage != "measuring" || asked {
				return
			}
			asked = true
			twin := &tune.Runner{Spec: spec, Target: demoTarget(50), Hardware: noGPU, SpecDir: dir,
				Progress: func(p tune.Progress) {
					if p.Stage == "launching" || p.Stage == "measuring" {
						secondMeasured++
					}
				}}
			_, second = twin.Run(context.Background())
			cancel()
		}}
	if _, err := first.Run(ctx); !errors.Is(err, context.Canceled) {
		t.Fatalf("first runner: %v", err)
	}
	if !asked {
		t.Fatal("the first runner never measured")
	}
	if second == nil || !strings.Contains(second.Error(), "already running") || secondMeasured != 0 {
		t.Fatalf("second runner of the same sweep: err %v, %d progress reports of measuring", second, secondMeasured)
	}
	done, stop := context.WithCancel(context.Background())
	stop()
	again := &tune.Runner{Spec: spec, Target: demoTarget(50), Hardware: noGPU, SpecDir: dir}
	if _, err := again.Run(done); !errors.Is(err, context.Canceled) {
		t.Fatalf("after the first runner ended, the sweep is still locked: %v", err)
	}
}

package probe_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
)

func TestSamplerWithReadingsStampsAnotherSource(t *testing.T) {
	t.Parallel()
	n := 0
	read := func() ([]hardware.GPUSample, error) {
		n++
		if n == 3 {
			return nil, errors.New("the exec failed")
		}
		return []hardware.GPUSample{{GPU: 0, PowerW: float64(100 * n)}, {GPU: 1, PowerW: 50}}, nil
	}
	clock := newFakeClock()
	s := probe.NewSampler(probe.WithReadings(read), probe.WithClock(clock))
	if err := s.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer s.Stop()
	stop := s.StartWindow()
	clock.Tick() // reading 2
	clock.Tick() // reading 3 fails: this tick has no samples
	clock.Tick() // reading 4
	got := stop()
	if len(got) != 4 || got[0].T != 1 || got[0].PowerW != 200 || got[1].GPU != 1 || got[2].T != 3 || got[2].PowerW != 400 {
		t.Fatalf("samples %+v, want readings 2 and 4 at 1 s and 3 s, two GPUs each", got)
	}
}

func TestSamplerWithReadingsFailsStartWhenNothingReads(t *testing.T) {
	t.Parallel()
	s := probe.NewSampler(probe.WithReadings(func() ([]hardware.GPUSample, error) {
		return nil, errors.New("nvidia-smi exited with code 9")
	}))
	err := s.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "nvidia-smi exited with code 9") {
		t.Fatalf("Start = %v, want the reading's error", err)
	}
	if w := s.StartWindow()(); w != nil {
		t.Errorf("a sampler that did not start collected %v", w)
	}
}

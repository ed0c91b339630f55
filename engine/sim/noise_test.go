package sim

import (
	"math"
	"math/rand/v2"
	"testing"
	"time"
)

// TestStepNoise: the step-time factor has mean 1 (so rates keep their
// expected value) and the configured relative spread; without noise it is
// exactly 1.
func TestStepNoise(t *testing.T) {
	n := &stepNoise{sigma: 0.2, rng: rand.New(rand.NewPCG(1, 2))}
	const draws = 200000
	var sum, sq float64
	for range draws {
		f := n.factor()
		sum += f
		sq += f * f
	}
	mean := sum / draws
	sd := math.Sqrt(sq/draws - mean*mean)
	if math.Abs(mean-1) > 0.003 || math.Abs(sd-0.2) > 0.005 {
		t.Errorf("factor mean %.4f, sd %.4f; want 1 and 0.2", mean, sd)
	}
	var none *stepNoise
	if f := none.factor(); f != 1 {
		t.Errorf("no noise: factor %v, want 1", f)
	}
}

// TestTrueRateWithoutNoise: a server without noise keeps no step log and
// reports no true rate.
func TestTrueRateWithoutNoise(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Speed = 100
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if r := s.TrueRate(time.Now().Add(-time.Second), time.Now()); r != 0 {
		t.Errorf("TrueRate = %v, want 0 without noise", r)
	}
}

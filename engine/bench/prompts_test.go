package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
)

// TestPromptsExactWithPadding: with a tokenizer that gives words of over
// four letters two tokens (as the simulator's does), whole filler words
// step over some targets; one-token pad words make every verified length
// exact.
func TestPromptsExactWithPadding(t *testing.T) {
	count := func(_ context.Context, s string) (int, error) {
		n := 1 // BOS
		for _, w := range strings.Fields(s) {
			n += (len(w) + 3) / 4
		}
		return n, nil
	}
	p := bench.NewPrompts("abcd", count, true)
	ctx := context.Background()
	if err := p.Calibrate(ctx); err != nil {
		t.Fatal(err)
	}
	for target := 1000; target <= 1100; target++ {
		s, err := p.Prompt(ctx, target, 7)
		if err != nil {
			t.Fatal(err)
		}
		if n, _ := count(ctx, s); n != target {
			t.Errorf("prompt for %d tokens has %d", target, n)
		}
	}
}

package bench_test

import (
	"context"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/rundoc"
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

// TestContextZeroIsTheGenerationRequest (issue 35 item 5): context 0's
// prompt has the length of the seed tool's request at context 0 (its
// generation prompt as a chat), not the marker's few tokens, and a server's
// count of it corrects the same entry a context-0 cell asks for.
func TestContextZeroIsTheGenerationRequest(t *testing.T) {
	count := func(_ context.Context, s string) (int, error) {
		n := 1 // BOS
		for _, w := range strings.Fields(s) {
			n += (len(w) + 3) / 4
		}
		return n, nil
	}
	ctx := context.Background()
	for _, exact := range []bool{true, false} {
		p := bench.NewPrompts("abcd", count, exact)
		if err := p.Calibrate(ctx); err != nil {
			t.Fatal(err)
		}
		s, err := p.Prompt(ctx, 0, 3)
		if err != nil {
			t.Fatal(err)
		}
		n, _ := count(ctx, s)
		if exact && n != rundoc.ContextZeroTokens || abs(n-rundoc.ContextZeroTokens) > bench.Tolerance(rundoc.ContextZeroTokens) {
			t.Errorf("exact %v: the context-0 prompt has %d tokens, want %d", exact, n, rundoc.ContextZeroTokens)
		}
		// A server that counts it 30 tokens short is off beyond the
		// tolerance of its real length, 112, which a count against 0
		// would not say.
		if !p.Correct(0, rundoc.ContextZeroTokens-30) {
			t.Errorf("exact %v: a context-0 prompt counted 30 tokens short is not reported off", exact)
		}
	}
}

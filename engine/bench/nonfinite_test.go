package bench_test

import (
	"bytes"
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// nanMetrics is a ResponseWriter that turns the values of the simulator's
// generated-token counter and request gauges on /metrics into NaN.
type nanMetrics struct{ http.ResponseWriter }

var nanSeriesRE = regexp.MustCompile(`(?m)^(vllm:(?:generation_tokens_total|num_requests_running|num_requests_waiting)(?:\{[^}]*\})?) \S+$`)

func (w nanMetrics) Write(p []byte) (int, error) {
	if _, err := w.ResponseWriter.Write(nanSeriesRE.ReplaceAll(p, []byte("$1 NaN"))); err != nil {
		return 0, err
	}
	return len(p), nil
}

// TestNaNCountersKeepTheRun: a server whose /metrics says NaN for its
// generated-token counter and request gauges (issue 36 item 1) printed a
// Valid cell whose server had "counted -9223372036854775808 generated
// tokens", cost the idle wait's whole limit before each cell, and then lost
// the run at its save ("json: unsupported value: NaN"). Now the NaN series
// are not reported: the cell is measured, has no cross-check, waited for
// nothing, and the run writes as JSON.
func TestNaNCountersKeepTheRun(t *testing.T) {
	if testing.Short() {
		t.Skip("runs the simulator through whole cells in real time (5 s or more): skipped with -short (make test runs it)")
	}
	s, err := sim.New(tinyConfig(t, 10))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" {
			w = nanMetrics{w}
		}
		s.Handler().ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, _ := client.New(hs.URL)
	defer c.CloseIdle()
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 5, MaxOutput: 64}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, cell := range run.Cells {
		if !cell.Status.Ran() || cell.TotalTokS <= 0 {
			t.Errorf("%s: %s (%s), %.1f tok/s", cell.Label(), cell.Status, cell.Reason, cell.TotalTokS)
		}
		if cell.ServerOutputTokens != 0 || cell.ServerTokenDiffPct != nil {
			t.Errorf("%s: cross-checked against a NaN counter: server %d tokens", cell.Label(), cell.ServerOutputTokens)
		}
		// The idle wait's limit is 60 s of the card's time; a gauge that
		// is not reported is not waited for at all.
		if cell.IdleWaitS > 1 {
			t.Errorf("%s: waited %.1f s for a NaN gauge to read 0", cell.Label(), cell.IdleWaitS)
		}
		// Nor does the ramp wait for a NaN running gauge to reach N: the
		// ramp limit is 60 s of card time, a ramp here a few seconds.
		if cell.RampS >= 30 {
			t.Errorf("%s: the ramp took %.1f s, held by a NaN running gauge", cell.Label(), cell.RampS)
		}
	}
	var buf bytes.Buffer
	if err := rundoc.WriteRun(&buf, run); err != nil {
		t.Fatalf("the run cannot be kept: %v", err)
	}
	if _, err := rundoc.ReadRun(&buf); err != nil {
		t.Fatalf("the run does not read back: %v", err)
	}
}

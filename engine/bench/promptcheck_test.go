package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// lyingTokenize serves the simulator with a /tokenize whose count is the
// real one × scale: RigBench sizes its prompts by it, and the requests'
// usage.prompt_tokens tell the truth.
func lyingTokenize(t *testing.T, scale float64) *client.Client {
	t.Helper()
	s, err := sim.New(tinyConfig(t, 20))
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/tokenize" {
			h.ServeHTTP(w, r)
			return
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, r)
		var v struct {
			Count int `json:"count"`
		}
		if err := json.NewDecoder(bytes.NewReader(rec.Body.Bytes())).Decode(&v); err != nil {
			t.Errorf("simulator's /tokenize: %v", err)
		}
		json.NewEncoder(w).Encode(map[string]int{"count": int(float64(v.Count) * scale)})
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdle)
	return c
}

// TestLyingTokenizeIsCaught is issue 23 item 6: a /tokenize that counts
// twice the tokens makes every prompt half its label; the server's usage
// says so, and the cells are Failed with the reason instead of Valid at
// the wrong context. One that counts 3% high is noted, not failed; an
// honest one gives neither.
func TestLyingTokenizeIsCaught(t *testing.T) {
	for _, tc := range []struct {
		scale        float64
		failed, note bool
	}{{2, true, true}, {1.03, false, true}, {1, false, false}} {
		c := lyingTokenize(t, tc.scale)
		plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{1}, PrefillContexts: []int{1024}, DurationS: 5, MaxOutput: 32}
		run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
		if err != nil && !tc.failed {
			t.Fatalf("scale %g: %v", tc.scale, err)
		}
		for _, cell := range run.Cells {
			noted := strings.Contains(cell.Reason, "its /tokenize and its usage disagree")
			if (cell.Status == rundoc.StatusFailed) != tc.failed || noted != tc.note {
				t.Errorf("scale %g: %s %d×%d is %s (%q); want failed %v, noted %v", tc.scale, cell.Phase, cell.Context, cell.Concurrency,
					cell.Status, cell.Reason, tc.failed, tc.note)
			}
		}
	}
}

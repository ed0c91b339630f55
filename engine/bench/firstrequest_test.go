package bench_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// TestFirstRequestThatNeverEnds: a server that streams past max_tokens=2,
// or sends a token and then trickles a byte now and then, kept `run` at
// "waiting for the server to answer a first 2-token request (gives up as
// stuck after 10m0s)" for the whole ten minutes (issue 36 item 9). A third
// token proves the server ignores the limit, so the run fails at once; a
// response that does not end within AfterFirstToken of its first token
// stalled. Both say which, long before the first-token budget.
func TestFirstRequestThatNeverEnds(t *testing.T) {
	const speed = 20 // the 10-minute budget is 30 s of real time, AfterFirstToken 3 s
	for _, tc := range []struct {
		name, want string
		trickle    bool
	}{
		{"streams past max_tokens", "sent 3 pieces of text, each at least a token, for a request of at most 2 tokens", false},
		{"trickles after a token", "then nothing that ended the response within 1 min", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := sim.New(tinyConfig(t, speed))
			if err != nil {
				t.Fatal(err)
			}
			hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
				if req.URL.Path == "/v1/completions" {
					body, _ := io.ReadAll(req.Body)
					var r struct {
						MaxTokens int `json:"max_tokens"`
					}
					if json.Unmarshal(body, &r) == nil && r.MaxTokens == 2 {
						w.Header().Set("Content-Type", "text/event-stream")
						for i := 0; ; i++ {
							if i == 0 || !tc.trickle {
								io.WriteString(w, `data: {"choices":[{"index":0,"text":" x","finish_reason":null}]}`+"\n\n")
							} else {
								io.WriteString(w, ":\n") // an SSE comment: a byte, no token
							}
							w.(http.Flusher).Flush()
							select {
							case <-req.Context().Done():
								return
							case <-time.After(20 * time.Millisecond):
							}
						}
					}
					req.Body = io.NopCloser(bytes.NewReader(body))
				}
				s.Handler().ServeHTTP(w, req)
			}))
			t.Cleanup(func() { hs.Close(); s.Close() })
			c, _ := client.New(hs.URL)
			defer c.CloseIdle()
			plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 5, MaxOutput: 16}
			// The test's own limit, shorter than the first-token budget, so
			// the code before the fix fails instead of waiting it out.
			ctx, cancel := context.WithTimeout(context.Background(), 25*time.Second)
			defer cancel()
			run, err := (&bench.Runner{Client: c, Plan: plan}).Run(ctx)
			var stuck *bench.StuckError
			if !errors.As(err, &stuck) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("run error %v, want one saying %q", err, tc.want)
			}
			if run.Status != rundoc.RunFailed || len(run.Cells) != 0 {
				t.Errorf("run %s with %d cells, want failed before any cell", run.Status, len(run.Cells))
			}
		})
	}
}

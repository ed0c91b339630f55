package client

import (
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"
)

// A server that finishes the choice (finish_reason) but never sends [DONE]
// and keeps the connection open: the request ends after the grace for the
// usage chunk, finished, with the missing [DONE] noted, instead of waiting
// for the stuck detector. The grace's timer is the test's, fired at once.
func TestFinishReasonWithoutDoneEndsTheRequest(t *testing.T) {
	t.Parallel()
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, content("a", 1)+content("b", 2))
		io.WriteString(w, `data: {"choices":[{"index":0,"text":"","finish_reason":"length"}],"usage":{"prompt_tokens":9,"completion_tokens":2}}`+"\n\n")
		w.(http.Flusher).Flush()
		select { // kept open: no [DONE], no EOF
		case <-r.Context().Done():
		case <-release:
		}
	}))
	t.Cleanup(func() { close(release); srv.Close() })
	var graces []time.Duration
	c, err := New(srv.URL, withAfterFunc(func(d time.Duration, f func()) func() bool {
		graces = append(graces, d)
		go f()
		return func() bool { return true }
	}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // only a bound on a broken build
	defer cancel()
	res, err := c.Stream(ctx, CompletionRequest{Model: "m", Prompt: "x", MaxTokens: 2}, nil)
	if err != nil {
		t.Fatalf("Stream: %v", err)
	}
	if !res.Finished || !res.FinishLength || !res.MissingDone || res.Tokens != 2 {
		t.Errorf("result %+v: want finished at length, 2 tokens, the missing [DONE] noted", res)
	}
	if len(graces) != 1 || graces[0] != FinishGrace {
		t.Errorf("graces %v, want one of %v", graces, FinishGrace)
	}
}

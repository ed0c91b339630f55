package client

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// TestRedirectsAreRefused: on a 302 or 307 the client followed to another
// port and sent the API key there, a 307 measured the other server under
// the first one's address, and a 302 turned POST /tokenize into a GET that
// failed as "cannot calibrate prompt length" (issue 36 item 8). Every
// request now stops at the redirect with a sentence naming where it leads,
// and the other server is never asked.
func TestRedirectsAreRefused(t *testing.T) {
	var reached atomic.Int32
	other := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reached.Add(1)
		w.WriteHeader(http.StatusOK)
	}))
	defer other.Close()
	for _, status := range []int{http.StatusFound, http.StatusTemporaryRedirect, http.StatusPermanentRedirect} {
		first := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			http.Redirect(w, r, other.URL+r.URL.Path+"?token=secret", status)
		}))
		c, err := New(first.URL, WithAPIKey("sk-redirect-test"))
		if err != nil {
			t.Fatal(err)
		}
		ctx := context.Background()
		_, merr := c.Models(ctx)
		_, terr := c.Tokenize(ctx, "m", "hello")
		_, serr := c.Stream(ctx, CompletionRequest{Model: "m", Prompt: "hi", MaxTokens: 2}, nil)
		for what, err := range map[string]error{"models": merr, "tokenize": terr, "stream": serr} {
			var re *RedirectError
			if !errors.As(err, &re) {
				t.Errorf("HTTP %d, %s: err = %v, want a *RedirectError", status, what, err)
				continue
			}
			msg := err.Error()
			if !strings.Contains(msg, other.URL) || !strings.Contains(msg, first.URL) || strings.Contains(msg, "secret") ||
				strings.Contains(msg, "sk-redirect-test") {
				t.Errorf("HTTP %d, %s: %q does not name both servers, or shows a secret", status, what, msg)
			}
		}
		if err := c.Probe(ctx); err != nil {
			t.Errorf("HTTP %d: a server that answers with a redirect is alive, Probe says %v", status, err)
		}
		first.Close()
	}
	if n := reached.Load(); n != 0 {
		t.Errorf("the server a redirect pointed to was asked %d times", n)
	}
}

// TestBusyServerIsAskedAgainAndWorded: a 429 or 503 with Retry-After was
// ignored and the run asked "is the server still running?" (issue 36 item
// 10). A short Retry-After is waited out and the request sent again; a long
// one, or a server busy for good, fails with its answer worded, the wait it
// asked for included.
func TestBusyServerIsAskedAgainAndWorded(t *testing.T) {
	var calls atomic.Int32
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n := calls.Add(1)
		switch r.URL.Query().Get("case") {
		case "brief":
			if n == 1 {
				w.Header().Set("Retry-After", "1")
				http.Error(w, `{"error":{"message":"busy"}}`, http.StatusServiceUnavailable)
				return
			}
			w.Write([]byte(`{"data":[{"id":"m"}]}`))
		case "long":
			w.Header().Set("Retry-After", "120")
			http.Error(w, `{"error":{"message":"rate limited"}}`, http.StatusTooManyRequests)
		default:
			http.Error(w, `{"error":{"message":"boom"}}`, http.StatusInternalServerError)
		}
	}))
	defer hs.Close()
	ctx := context.Background()
	c, _ := New(hs.URL)
	var got struct {
		Data []struct{ ID string } `json:"data"`
	}
	start := time.Now()
	if err := c.getJSON(ctx, "/v1/models?case=brief", &got); err != nil || len(got.Data) != 1 || calls.Load() != 2 {
		t.Errorf("a 503 with Retry-After 1: %v after %d calls, want answered on the second", err, calls.Load())
	}
	if took := time.Since(start); took < time.Second {
		t.Errorf("asked again after %v, before the second the server asked for", took)
	}
	calls.Store(0)
	err := c.getJSON(ctx, "/v1/models?case=long", &got)
	var he *HTTPError
	if !errors.As(err, &he) || he.Status != 429 || calls.Load() != 1 ||
		!strings.Contains(err.Error(), "too many requests") || !strings.Contains(err.Error(), "again after 2m0s") {
		t.Errorf("a 429 asking for 2 minutes: %v after %d calls, want it worded at once", err, calls.Load())
	}
	err = c.getJSON(ctx, "/v1/models?case=error", &got)
	if !strings.Contains(fmt.Sprint(err), "HTTP 500 (an error of its own: its log says why): boom") {
		t.Errorf("a 500: %v", err)
	}
}

// TestOversizeAndResetAnswersAreSentences: /v1/models over the cap read
// "unexpected end of JSON input" and a connection reset was a raw Go error
// (issue 36 item 10); each is a sentence saying what the server did.
func TestOversizeAndResetAnswersAreSentences(t *testing.T) {
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Query().Get("case") == "reset" {
			conn, _, err := w.(http.Hijacker).Hijack()
			if err == nil {
				if tc, ok := conn.(interface{ SetLinger(int) error }); ok {
					tc.SetLinger(0) // an RST, not a FIN
				}
				conn.Close()
			}
			return
		}
		w.Write([]byte(`{"data":[{"id":"`))
		w.Write([]byte(strings.Repeat("m", maxInfoBody)))
		w.Write([]byte(`"}]}`))
	}))
	defer hs.Close()
	c, _ := New(hs.URL)
	var v any
	if err := c.getJSON(context.Background(), "/v1/models?case=big", &v); err == nil || !strings.Contains(err.Error(), "answered more than 8 MiB") {
		t.Errorf("an oversize answer: %v", err)
	}
	if err := c.getJSON(context.Background(), "/v1/models?case=reset", &v); err == nil || !strings.Contains(err.Error(), "closed the connection without an answer") {
		t.Errorf("a reset: %v", err)
	}
}

package client

import (
	"bufio"
	"context"
	"errors"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestProbe tells a server that answers (whatever the status) from one
// that refuses connections and one that closes them unanswered.
func TestProbe(t *testing.T) {
	alive := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, "loading", http.StatusServiceUnavailable) // an answer all the same
	}))
	t.Cleanup(alive.Close)

	closing, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { closing.Close() })
	go func() {
		for {
			conn, err := closing.Accept()
			if err != nil {
				return
			}
			conn.Close() // a dead process behind a port something still holds
		}
	}()

	refused, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	refusedURL := "http://" + refused.Addr().String()
	refused.Close()

	for _, tc := range []struct {
		name, url   string
		gone        bool
		wantRefused bool
	}{
		{"answers 503", alive.URL, false, false},
		{"closes unanswered", "http://" + closing.Addr().String(), true, false},
		{"refuses", refusedURL, true, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := New(tc.url)
			if err != nil {
				t.Fatal(err)
			}
			err = c.Probe(context.Background())
			var g *GoneError
			if got := errors.As(err, &g); got != tc.gone {
				t.Fatalf("Probe = %v, gone %v, want gone %v", err, got, tc.gone)
			}
			if tc.gone && g.Refused != tc.wantRefused {
				t.Errorf("refused = %v, want %v (%v)", g.Refused, tc.wantRefused, err)
			}
		})
	}
}

// TestResendMeetingRefusedConnectionEndsRetries: a request on a reused
// keep-alive connection that the server drops unanswered is a transient
// error and is sent again, but when that re-send finds the port refusing
// connections the server is gone: the retries end there (one, not
// MaxTransientRetries) with an *UnreachableError, so a dead server is
// never mistaken for llama-server's idle-connection race.
func TestResendMeetingRefusedConnectionEndsRetries(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	served := make(chan struct{})
	go func() {
		defer close(served)
		conn, err := l.Accept()
		if err != nil {
			return
		}
		defer conn.Close()
		br := bufio.NewReader(conn)
		if _, err := http.ReadRequest(br); err != nil {
			return
		}
		conn.Write([]byte("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n"))
		l.Close() // the process dies: no new connection is taken
		http.ReadRequest(br)
		// and the kept connection ends without an answer
	}()
	c, err := New("http://" + l.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.CloseIdle)
	if err := c.Health(context.Background()); err != nil {
		t.Fatal(err)
	}
	res, err := c.Stream(context.Background(), CompletionRequest{Model: "m", Prompt: "p", MaxTokens: 2}, nil)
	<-served
	var ue *UnreachableError
	if !errors.As(err, &ue) {
		t.Fatalf("err = %v, want *UnreachableError", err)
	}
	if res.Retries != 1 {
		t.Errorf("retries = %d, want 1: the re-send met a refused connection", res.Retries)
	}
}

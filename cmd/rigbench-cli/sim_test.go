package main

import (
	"bytes"
	"context"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// simLogBuffer is a bytes.Buffer safe to read while a command writes to it.
type simLogBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *simLogBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *simLogBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

func TestSimCommandServesUntilCancelled(t *testing.T) {
	var out, errb simLogBuffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	ctx, cancel := context.WithCancel(context.Background())
	code := make(chan int, 1)
	go func() {
		code <- execute(ctx, e, []string{"sim", "--addr", "127.0.0.1:0", "--profile", "tiny", "--speed", "10"})
	}()
	re := regexp.MustCompile(`Uvicorn running on (http://127\.0\.0\.1:\d+)`)
	var url string
	for deadline := time.Now().Add(10 * time.Second); time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if m := re.FindStringSubmatch(out.String()); m != nil {
			url = m[1]
			break
		}
	}
	if url == "" {
		cancel()
		t.Fatalf("no listening line; stdout %q stderr %q", out.String(), errb.String())
	}
	resp, err := http.Get(url + "/v1/models")
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("/v1/models: %v %v", err, resp)
	}
	resp.Body.Close()
	cancel()
	select {
	case c := <-code:
		if c != 0 {
			t.Errorf("exit %d, stderr %q", c, errb.String())
		}
	case <-time.After(10 * time.Second):
		t.Fatal("sim did not stop when cancelled")
	}
}

func TestSimCommandRejectsUnknownFlag(t *testing.T) {
	var out, errb simLogBuffer
	e := &env{stdout: &out, stderr: &errb, getenv: func(string) string { return "" }}
	if c := execute(context.Background(), e, []string{"sim", "--foo"}); c != 2 {
		t.Errorf("exit %d, want 2", c)
	}
	if !strings.Contains(errb.String(), "unrecognized arguments: --foo") {
		t.Errorf("stderr %q", errb.String())
	}
}

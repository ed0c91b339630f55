package docker

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/vllm"
)

// A server that is up but lists another model name than the one awaited:
// the readiness timeout says what it waited for and what the server lists,
// so a wrong name is seen, not waited on in silence.
func TestNotReadySaysWhatItWaitsFor(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" {
			w.Write([]byte(`{"data":[{"id":"a b; c"}]}`))
		}
	}))
	defer srv.Close()
	_, port, _ := net.SplitHostPort(srv.Listener.Addr().String())
	cfg := vllm.LaunchConfig{Model: "org/m"}
	cfg.Set("--served-model-name", "other")
	l := &Launcher{readyTimeout: 300 * time.Millisecond, poll: 10 * time.Millisecond, httpClient: srv.Client()}
	c := &Container{l: l, cfg: cfg, logsDone: make(chan struct{})}
	c.port = atoi(port)
	err := c.waitReady(context.Background())
	if err == nil || !strings.Contains(err.Error(), `"other"`) || !strings.Contains(err.Error(), `"a b; c"`) {
		t.Errorf("waitReady: %v; want the awaited name and the listed one", err)
	}
}

func atoi(s string) int {
	n := 0
	for _, r := range s {
		n = n*10 + int(r-'0')
	}
	return n
}

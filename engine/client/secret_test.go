package client

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// A server that echoes the Authorization header back (in an error body, a
// mid-stream error, a model's name) never gets the client's API key into
// an error or a fact the client returns.
func TestServerTextNeverCarriesTheAPIKey(t *testing.T) {
	t.Parallel()
	const key = "sk-SECRETKEY"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		auth := r.Header.Get("Authorization")
		switch r.URL.Path {
		case "/v1/models":
			fmt.Fprintf(w, `{"data":[{"id":%q,"max_model_len":4096}]}`, "model "+auth)
		case "/version":
			w.WriteHeader(http.StatusInternalServerError)
			fmt.Fprintf(w, `{"error":{"message":"bad header %s"}}`, auth)
		default:
			if strings.Contains(r.URL.RawQuery, "mid") || r.Header.Get("X-Mid") != "" {
				break
			}
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, `data: {"choices":[{"index":0,"text":"a","finish_reason":null}]}`+"\n\n")
			fmt.Fprintf(w, "data: {\"error\":{\"message\":\"upstream saw %s\"}}\n\n", auth)
		}
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL, WithAPIKey(key))
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	_, err = c.Version(ctx)
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("Version: %v, want an error without the key", err)
	}
	_, err = c.Stream(ctx, CompletionRequest{Model: "m", Prompt: "x", MaxTokens: 4}, nil)
	if err == nil || strings.Contains(err.Error(), key) {
		t.Errorf("Stream: %v, want an error without the key", err)
	}
	models, err := c.Models(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(models) != 1 || strings.Contains(models[0].ID, key) {
		t.Errorf("Models = %+v, want the key hidden", models)
	}
}

// A server that writes max_model_len as a float (4096.0) or as text gets
// its whole number read, and a fractional or absurd one is "not said",
// instead of failing the whole run on /v1/models.
func TestModelsReadsLooseMaxModelLen(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.WriteString(w, `{"data":[{"id":"a","max_model_len":4096.0},{"id":"b","max_model_len":"8192"},{"id":"c","max_model_len":1.5},`+
			`{"id":"d","max_model_len":1e300},{"id":"e","meta":{"n_ctx":2048.0,"n_ctx_train":4096}}]}`)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	models, err := c.Models(context.Background())
	if err != nil {
		t.Fatalf("Models: %v", err)
	}
	want := []int{4096, 8192, 0, 0, 0}
	for i, m := range models {
		if m.MaxModelLen != want[i] {
			t.Errorf("%s: max_model_len %d, want %d", m.ID, m.MaxModelLen, want[i])
		}
	}
	if len(models) != 5 || models[4].Meta == nil || models[4].Meta.NCtx != 2048 {
		t.Errorf("models %+v", models)
	}
}

// The client hides its key by the rule a container's log is hidden by
// (internal/redact): a short key is masked where the server echoes it,
// not inside every word that holds its letters.
func TestShortKeyIsScrubbedByTheOneRule(t *testing.T) {
	t.Parallel()
	c, err := New("http://127.0.0.1:1", WithAPIKey("k3y"))
	if err != nil {
		t.Fatal(err)
	}
	got := c.scrub("invalid key k3y for model k3y-model")
	if want := "invalid key <redacted> for model k3y-model"; got != want {
		t.Errorf("scrub = %q, want %q", got, want)
	}
	if got := string(c.scrubBytes([]byte(`{"error":"k3y"}`))); got != `{"error":"<redacted>"}` {
		t.Errorf("scrubBytes = %q", got)
	}
}

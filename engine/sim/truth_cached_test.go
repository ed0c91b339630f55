package sim

import (
	"bufio"
	"context"
	"net/http"
	"strings"
	"testing"
)

// TestTruthSaysTheCacheHitFromTheFirstToken: a request's record gives its
// prefix-cache hit as soon as its first token is written, not only once
// its handler ends. A test that cancels its streams and reads the truth
// at once (TestSharedPromptInEverySlot) read 0 cached tokens for streams
// whose handlers a busy machine had not yet wound down, and took streams
// served from the cache for streams that computed their prompts.
func TestTruthSaysTheCacheHitFromTheFirstToken(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Speed = 1 // 2,000 tokens take about 40 s: the stream is open while the truth is read
	s, url := newTestServer(t, cfg)
	prompt := strings.Repeat("abcd ", 400)
	if resp, body := post(t, url+"/v1/completions", `{"model":"`+s.Model()+`","prompt":"`+prompt+`","max_tokens":1}`); resp.StatusCode != http.StatusOK {
		t.Fatalf("first request: %d %s", resp.StatusCode, body)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions",
		strings.NewReader(`{"model":"`+s.Model()+`","prompt":"`+prompt+`","max_tokens":2000,"stream":true}`))
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() && !strings.Contains(sc.Text(), `"text"`) {
	}
	truth := s.Truth()
	if len(truth) != 2 {
		t.Fatalf("%d records, want 2", len(truth))
	}
	r := truth[1]
	if !r.Finished.IsZero() {
		t.Fatalf("the stream ended before the truth was read (%d tokens): the test checks nothing", r.OutputTokens())
	}
	if r.CachedTokens == 0 || r.CachedTokens >= r.PromptTokens {
		t.Errorf("an open stream of a cached %d-token prompt: cached %d, want the hit (at least one block, never the last token)",
			r.PromptTokens, r.CachedTokens)
	}
}

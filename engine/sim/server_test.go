package sim

import (
	"bufio"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// newTestServer starts a simulator on a real 127.0.0.1 port.
func newTestServer(t *testing.T, cfg Config) (*Server, string) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { s.Close(); hs.Close() })
	return s, hs.URL
}

func fastConfig() Config {
	c := DefaultConfig()
	c.Speed = 100
	return c
}

func post(t *testing.T, url, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest("POST", url, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

func TestStreamingCompletionWithUsage(t *testing.T) {
	s, url := newTestServer(t, fastConfig())
	body := `{"model":"agents/a1-4b-fp8","prompt":"measure the card","max_tokens":40,"ignore_eos":true,"stream":true,
		"stream_options":{"include_usage":true,"continuous_usage_stats":true}}`
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	var lastUsage *usage
	tokensFromUsage, content, done, emptyChoices := 0, 0, false, false
	for sc.Scan() {
		line := sc.Text()
		if line == "" {
			continue
		}
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok {
			t.Fatalf("not an SSE data line: %q", line)
		}
		if data == "[DONE]" {
			done = true
			break
		}
		var ch completionChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		if ch.Usage == nil {
			t.Fatalf("continuous_usage_stats asked for usage in every chunk: %q", data)
		}
		lastUsage = ch.Usage
		if len(ch.Choices) == 0 {
			emptyChoices = true
			continue
		}
		if ch.Choices[0].Text == "" {
			t.Errorf("content chunk with empty text: %q", data)
		}
		content++
		tokensFromUsage = ch.Usage.CompletionTokens
	}
	if !done || !emptyChoices {
		t.Fatalf("done=%v final usage chunk=%v", done, emptyChoices)
	}
	if lastUsage.CompletionTokens != 40 || tokensFromUsage != 40 {
		t.Errorf("completion tokens = %d (last content chunk %d), want 40", lastUsage.CompletionTokens, tokensFromUsage)
	}
	// "measure the card" = BOS + "meas" "ure" "the" "card" = 5 tokens.
	if lastUsage.PromptTokens != 5 {
		t.Errorf("prompt tokens = %d, want 5", lastUsage.PromptTokens)
	}
	truth := s.Truth()
	if len(truth) != 1 || truth[0].OutputTokens() != 40 || truth[0].Cancelled || truth[0].FirstToken.IsZero() {
		t.Errorf("truth = %+v", truth)
	}
	if content < 1 || content > 40 {
		t.Errorf("%d content chunks for 40 tokens", content)
	}
}

func TestTokenizeMatchesUsage(t *testing.T) {
	_, url := newTestServer(t, fastConfig())
	prompt := strings.Repeat("benchmarking throughput of inference servers ", 50)
	_, tb := post(t, url+"/tokenize", `{"prompt":"`+prompt+`"}`)
	var tok struct {
		Count       int   `json:"count"`
		MaxModelLen int   `json:"max_model_len"`
		Tokens      []int `json:"tokens"`
	}
	if err := json.Unmarshal([]byte(tb), &tok); err != nil {
		t.Fatal(err, tb)
	}
	words := len(strings.Fields(prompt))
	if tok.Count == words || tok.Count == words+1 {
		t.Errorf("count %d is one token per word; the tokenizer must need calibration", tok.Count)
	}
	_, cb := post(t, url+"/v1/completions", `{"prompt":"`+prompt+`","max_tokens":2}`)
	var comp struct{ Usage usage }
	json.Unmarshal([]byte(cb), &comp)
	if comp.Usage.PromptTokens != tok.Count || len(tok.Tokens) != tok.Count || tok.MaxModelLen != 262144 {
		t.Errorf("tokenize count %d (%d ids, max_model_len %d), usage.prompt_tokens %d",
			tok.Count, len(tok.Tokens), tok.MaxModelLen, comp.Usage.PromptTokens)
	}
}

func TestOverlongPromptAndAuth(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxModelLen = 64
	cfg.APIKey = "s3cret"
	_, url := newTestServer(t, cfg)
	long := strings.Repeat("word ", 100)
	resp, body := post(t, url+"/v1/completions", `{"prompt":"`+long+`","max_tokens":4}`, "Authorization", "Bearer s3cret")
	if resp.StatusCode != 400 || !strings.Contains(body, "maximum context length is 64 tokens") {
		t.Errorf("over-long prompt: %d %s", resp.StatusCode, body)
	}
	resp, body = post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":4}`, "Authorization", "Bearer wrong")
	if resp.StatusCode != 401 {
		t.Errorf("wrong key: %d %s", resp.StatusCode, body)
	}
	resp, _ = post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":4}`, "Authorization", "Bearer s3cret")
	if resp.StatusCode != 200 {
		t.Errorf("right key: %d", resp.StatusCode)
	}
	r2, err := http.Get(url + "/health")
	if err != nil || r2.StatusCode != 200 {
		t.Errorf("/health needs no key: %v %v", err, r2)
	}
}

func TestHealthDuringStartupDelay(t *testing.T) {
	cfg := fastConfig()
	cfg.StartupDelay = 20 * time.Second // 0.2 s real at speed 100
	_, url := newTestServer(t, cfg)
	r, err := http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 503 {
		t.Fatalf("during start-up: %d, want 503", r.StatusCode)
	}
	time.Sleep(300 * time.Millisecond)
	r, err = http.Get(url + "/health")
	if err != nil {
		t.Fatal(err)
	}
	r.Body.Close()
	if r.StatusCode != 200 {
		t.Fatalf("after start-up: %d, want 200", r.StatusCode)
	}
}

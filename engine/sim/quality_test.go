package sim

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"
	"testing"
)

// completeAnswer is the part of a non-streaming completion these tests read.
type completeAnswer struct {
	Choices []completeChoice `json:"choices"`
	Usage   usage            `json:"usage"`
}

type completeChoice struct {
	Text         string              `json:"text"`
	FinishReason string              `json:"finish_reason"`
	Logprobs     *completionLogprobs `json:"logprobs"`
}

func complete(t *testing.T, url, prompt string, maxTokens, logprobs int, stream bool) completeAnswer {
	t.Helper()
	body := map[string]any{"prompt": prompt, "max_tokens": maxTokens, "temperature": 0, "stream": stream}
	if logprobs > 0 {
		body["logprobs"] = logprobs
	}
	b, _ := json.Marshal(body)
	resp, text := post(t, url+"/v1/completions", string(b))
	if resp.StatusCode != 200 {
		t.Fatalf("status %d: %s", resp.StatusCode, text)
	}
	var a completeAnswer
	if !stream {
		if err := json.Unmarshal([]byte(text), &a); err != nil {
			t.Fatal(err)
		}
		return a
	}
	for _, line := range strings.Split(text, "\n") {
		data, ok := strings.CutPrefix(line, "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch completionChunk
		if json.Unmarshal([]byte(data), &ch) == nil && len(ch.Choices) > 0 {
			if len(a.Choices) == 0 {
				a.Choices = make([]completeChoice, 1)
			}
			a.Choices[0].Text += ch.Choices[0].Text
		}
	}
	return a
}

func qualityServer(t *testing.T, args ...string) (*Server, string) {
	t.Helper()
	cfg, err := ParseArgs(append([]string{"--speed", "inf"}, args...))
	if err != nil {
		t.Fatal(err)
	}
	return newTestServer(t, cfg)
}

// problem is a readable problem and its result.
func problem(i int) (string, int64) {
	a, b, c := int64(3+i%17), int64(2+i%7), int64(1+i%5)
	return fmt.Sprintf("Question: Start with %d. Multiply by %d. Add %d. What number do you get?\nAnswer:", a, b, c), a*b + c
}

// The answers end with "#### N", right exactly where AnswerTruth says so,
// and a lossy launch's flips are the profile's rates, both ways.
func TestSimAnswersAsItsTruthSays(t *testing.T) {
	t.Parallel()
	base, baseURL := qualityServer(t)
	lossy, lossyURL := qualityServer(t, "--kv-cache-dtype", "int4_per_token_head")
	const n = 300
	var right, lost int
	for i := range n {
		p, want := problem(i)
		for _, side := range []struct {
			s   *Server
			url string
		}{{base, baseURL}, {lossy, lossyURL}} {
			a := complete(t, side.url, p, 512, 0, false)
			text := a.Choices[0].Text
			correct, truncated, readable, tokens := side.s.AnswerTruth(p, 512)
			if !readable || a.Usage.CompletionTokens != tokens || truncated != (a.Choices[0].FinishReason == "length") {
				t.Fatalf("item %d: %d tokens, finish %s; truth readable=%v truncated=%v %d tokens", i, a.Usage.CompletionTokens, a.Choices[0].FinishReason, readable, truncated, tokens)
			}
			k := strings.LastIndex(text, "####")
			if truncated != (k < 0) {
				t.Fatalf("item %d: truncated %v, #### at %d", i, truncated, k)
			}
			if !truncated && (strings.TrimSpace(text[k+4:]) == fmt.Sprint(want)) != correct {
				t.Fatalf("item %d: answered %s (want %d), truth says correct=%v", i, text[k+4:], want, correct)
			}
		}
		b, _, _, _ := base.AnswerTruth(p, 1<<20)
		c, _, _, _ := lossy.AnswerTruth(p, 1<<20)
		switch {
		case b && !c:
			lost++
		}
		if b {
			right++
		}
	}
	m := DefaultQualityModel()
	// 300 items at 80%: the count lies within 4.5 standard deviations.
	if sd := math.Sqrt(n * 0.8 * 0.2); math.Abs(float64(right)-0.8*n) > 4.5*sd {
		t.Errorf("%d of %d right, want about %.0f", right, n, 0.8*n)
	}
	if wantLost := m.KV4.Lose * float64(right); math.Abs(float64(lost)-wantLost) > 4.5*math.Sqrt(wantLost)+1 {
		t.Errorf("lost %d, want about %.1f", lost, wantLost)
	}
	if lost == 0 {
		t.Error("int4 lost nothing")
	}
}

// Truncated answers stop before their "####", as a real model's do.
func TestSimAnswerTruncatedAtMaxTokens(t *testing.T) {
	t.Parallel()
	_, url := qualityServer(t)
	p, _ := problem(3)
	a := complete(t, url, p, 10, 0, false)
	if a.Choices[0].FinishReason != "length" || strings.Contains(a.Choices[0].Text, "####") {
		t.Errorf("max_tokens 10: %q finish %s", a.Choices[0].Text, a.Choices[0].FinishReason)
	}
}

// Logprobs have vLLM's shape, agree with the text, and the greedy token
// tops each position; a lossless launch repeats them exactly, a lossy one
// follows the same path up to its divergence and perturbs the logprobs.
func TestSimLogprobs(t *testing.T) {
	t.Parallel()
	_, baseURL := qualityServer(t)
	_, againURL := qualityServer(t, "--kv-cache-dtype", "auto")
	lossy, lossyURL := qualityServer(t, "--kv-cache-dtype", "int4_per_token_head")
	prompt := "Write a short story about a lighthouse keeper."
	a := complete(t, baseURL, prompt, 64, 5, false)
	lp := a.Choices[0].Logprobs
	if lp == nil || len(lp.Tokens) != a.Usage.CompletionTokens || strings.Join(lp.Tokens, "") != a.Choices[0].Text {
		t.Fatalf("logprobs %+v do not spell the text %q", lp, a.Choices[0].Text)
	}
	for j, top := range lp.TopLogprobs {
		if len(top) != 5 || top[lp.Tokens[j]] != lp.TokenLogprobs[j] {
			t.Fatalf("position %d: top %v, token %q %g", j, top, lp.Tokens[j], lp.TokenLogprobs[j])
		}
		for w, v := range top {
			if v > lp.TokenLogprobs[j] {
				t.Fatalf("position %d: %q (%g) above the greedy token", j, w, v)
			}
		}
	}
	again := complete(t, againURL, prompt, 64, 5, false)
	if fmt.Sprint(again.Choices[0].Logprobs) != fmt.Sprint(lp) {
		t.Error("a second lossless launch answered differently")
	}
	l := complete(t, lossyURL, prompt, 64, 5, false).Choices[0].Logprobs
	d := lossy.divergesAt(newSeq("", tokenize(prompt, true), 64, 0, false, "", 0, lossy.prof).key)
	for j := range min(d, 64) {
		if l.Tokens[j] != lp.Tokens[j] {
			t.Fatalf("token %d differs before the divergence at %d", j, d)
		}
	}
	if l.TopLogprobs[0][l.Tokens[0]] == lp.TopLogprobs[0][lp.Tokens[0]] {
		t.Error("the lossy launch's logprobs are not perturbed")
	}
	// Streaming gives the same text as a whole answer.
	if s := complete(t, lossyURL, prompt, 64, 0, true); s.Choices[0].Text != strings.Join(l.Tokens, "") {
		t.Errorf("stream %q, whole %q", s.Choices[0].Text, strings.Join(l.Tokens, ""))
	}
	resp, body := post(t, baseURL+"/v1/completions", `{"prompt":"x","max_tokens":4,"logprobs":21}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "greater than max allowed: 20") {
		t.Errorf("logprobs 21: %d %s", resp.StatusCode, body)
	}
}

func TestLaunchLoss(t *testing.T) {
	p := DefaultProfile()
	m := DefaultQualityModel()
	if l, salt := launchLoss(p, "auto", ""); l != (Loss{}) || salt != 0 {
		t.Errorf("auto: %+v %d", l, salt)
	}
	if l, _ := launchLoss(p, "fp8", ""); l != m.KV8 {
		t.Errorf("fp8: %+v, want %+v", l, m.KV8)
	}
	if l, _ := launchLoss(p, "nvfp4", ""); l != m.KV4 {
		t.Errorf("nvfp4: %+v, want %+v", l, m.KV4)
	}
	l, _ := launchLoss(p, "fp8", "awq")
	if want := 1 - (1-m.KV8.Lose)*(1-m.Quantization.Lose); math.Abs(l.Lose-want) > 1e-15 {
		t.Errorf("fp8 + awq lose %g, want %g", l.Lose, want)
	}
	cfg, err := ParseArgs([]string{"--quantization", "awq"})
	if err != nil || cfg.Quantization != "awq" {
		t.Errorf("--quantization: %v %q", err, cfg.Quantization)
	}
}

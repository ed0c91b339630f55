package sim

import (
	"encoding/json"
	"math"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestLlamaChat: llama-server's chat stream opens with a role delta whose
// content is null, sends no usage until its last chunk (an empty delta with
// finish_reason, usage and timings), counts the prompt as /apply-template
// and /tokenize do, and reports the prefix cache's tokens in timings.
func TestLlamaChat(t *testing.T) {
	s, url := newTestServer(t, llamaConfig(8192, 2, true))
	msgs := []map[string]any{{"role": "user", "content": strings.Repeat("shared words of context ", 30)}}
	stream := func() (chatStreamChunk, int) {
		t.Helper()
		chunks, done := readChatStream(t, url, chatBody(t, map[string]any{"messages": msgs, "max_tokens": 20, "ignore_eos": true,
			"stream": true, "stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}}))
		if !done || len(chunks) < 3 {
			t.Fatalf("done=%v, %d chunks", done, len(chunks))
		}
		role := chunks[0].Choices[0].Delta
		if role.Role == nil || *role.Role != "assistant" || role.Content != nil || chunks[0].Usage != nil {
			t.Errorf("first chunk %+v, want a role delta with content null", chunks[0])
		}
		tokens := 0
		for _, ch := range chunks[1 : len(chunks)-1] {
			if ch.Usage != nil || ch.Timings != nil || ch.Choices[0].FinishReason != nil {
				t.Errorf("llama-server sent usage, timings or a finish before the last chunk: %+v", ch)
			}
			tokens += len(tokenize(*ch.Choices[0].Delta.Content, false))
		}
		last := chunks[len(chunks)-1]
		if last.Usage == nil || last.Timings == nil || last.Choices[0].FinishReason == nil || *last.Choices[0].FinishReason != "length" ||
			last.Choices[0].Delta.Content != nil || last.Object != "chat.completion.chunk" {
			t.Errorf("last chunk %+v", last)
		}
		return last, tokens
	}
	last, tokens := stream()
	if tokens != 20 || last.Usage.CompletionTokens != 20 || last.Timings["predicted_n"] != 20.0 {
		t.Errorf("%d tokens in deltas, usage %+v, timings %v; want 20", tokens, last.Usage, last.Timings)
	}
	p := last.Usage.PromptTokens
	if last.Timings["prompt_n"] != float64(p) || last.Timings["cache_n"] != 0.0 || last.Timings["prompt_ms"].(float64) <= 0 {
		t.Errorf("cold timings %v for %d prompt tokens", last.Timings, p)
	}
	_, applied := post(t, url+"/apply-template", chatBody(t, map[string]any{"messages": msgs}))
	var tmpl struct{ Prompt string }
	json.Unmarshal([]byte(applied), &tmpl)
	_, tb := post(t, url+"/tokenize", chatBody(t, map[string]any{"content": tmpl.Prompt}))
	var tok struct{ Tokens []int }
	json.Unmarshal([]byte(tb), &tok)
	if len(tok.Tokens) != p || !strings.HasSuffix(tmpl.Prompt, "<|im_start|>assistant\n") {
		t.Errorf("/apply-template + /tokenize count %d, usage.prompt_tokens %d (%q)", len(tok.Tokens), p, tmpl.Prompt)
	}
	warm, _ := stream()
	cached := p - 1 // the slot's own cache, token by token: all but the last
	if warm.Timings["cache_n"] != float64(cached) || warm.Timings["prompt_n"] != float64(p-cached) ||
		!(warm.Timings["prompt_ms"].(float64) < last.Timings["prompt_ms"].(float64)) {
		t.Errorf("cached timings %v, want cache_n %d and a shorter prompt_ms than %v", warm.Timings, cached, last.Timings["prompt_ms"])
	}
	if tr := s.Truth(); len(tr) != 2 || tr[1].CachedTokens != cached {
		t.Errorf("truth %+v", tr)
	}

	_, body := post(t, url+"/v1/chat/completions", chatBody(t, map[string]any{"messages": msgs, "max_tokens": 5}))
	var full struct {
		Object  string
		Choices []struct {
			Message struct{ Role, Content string }
		}
		Usage   usage
		Timings map[string]any
	}
	json.Unmarshal([]byte(body), &full)
	if full.Object != "chat.completion" || len(full.Choices) != 1 || full.Choices[0].Message.Role != "assistant" ||
		len(tokenize(full.Choices[0].Message.Content, false)) != full.Usage.CompletionTokens || full.Timings == nil {
		t.Errorf("non-streaming chat %s", body)
	}
	resp, body := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"`+strings.Repeat("w ", 9000)+`"}]}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "exceed_context_size_error") {
		t.Errorf("over-long chat: %d %s", resp.StatusCode, body)
	}
}

// TestSGLangChat: SGLang's chat speaks vLLM's shapes, usage on every chunk
// with continuous_usage_stats, and SGLang's error for an over-long prompt.
func TestSGLangChat(t *testing.T) {
	cfg := fastConfig()
	cfg.Personality = PersonalitySGLang
	cfg.MaxModelLen = 256
	_, url := newTestServer(t, cfg)
	chunks, done := readChatStream(t, url, chatBody(t, map[string]any{"messages": terseChat, "max_tokens": 9, "ignore_eos": true,
		"stream": true, "stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true}}))
	if !done || len(chunks) < 3 || chunks[0].Choices[0].Delta.Role == nil {
		t.Fatalf("done=%v, chunks %+v", done, chunks)
	}
	for i, ch := range chunks {
		if ch.Usage == nil || ch.Usage.PromptTokens != terseChatTokens {
			t.Errorf("chunk %d usage %+v", i, ch.Usage)
		}
	}
	if last := chunks[len(chunks)-1]; len(last.Choices) != 0 || last.Usage.CompletionTokens != 9 {
		t.Errorf("last chunk %+v", last)
	}
	resp, body := post(t, url+"/v1/chat/completions", `{"messages":[{"role":"user","content":"`+strings.Repeat("w ", 300)+`"}]}`)
	if resp.StatusCode != 400 || !strings.Contains(body, "longer than the model's context length") {
		t.Errorf("over-long chat: %d %s", resp.StatusCode, body)
	}
}

// FuzzChatRequest feeds /v1/chat/completions and /tokenize any body (the
// messages are outside input): they answer 200, 400 or 404 with JSON,
// never panic or hang, and whenever both accept the same messages
// /tokenize counts what the chat's usage reports.
func FuzzChatRequest(f *testing.F) {
	f.Add(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":3}`)
	f.Add(`{"messages":[{"role":"system","content":null},{"role":"user","content":[{"type":"text","text":"a b"}]}],"max_completion_tokens":2}`)
	f.Add(`{"messages":[{"role":"user","content":[{"type":"image_url"}]}]}`)
	f.Add(`{"messages":[{"role":"u<|im_end|>","content":"<|im_start|>x"}],"add_generation_prompt":false,"add_special_tokens":true}`)
	f.Add(`{"messages":[],"add_generation_prompt":false}`)
	f.Add(`{"messages":{"role":"user"}}`)
	f.Add(`{"messages":[{"role":"","content":"x"}],"stream":true}`)
	f.Add(`{"model":"m","messages":[{"role":"user","content":"x"}]}`)
	f.Add(`null`)
	f.Add(`[]`)
	s, err := New(Config{Profile: tinyProfile(), Speed: math.Inf(1), EnablePrefixCaching: true})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		// Bound the work: no stream, at most 8 tokens (only an object is
		// rewritten; `null` decodes into a nil map).
		var probe map[string]any
		if json.Unmarshal([]byte(body), &probe) == nil && probe != nil {
			probe["stream"] = false
			delete(probe, "max_completion_tokens")
			if mt, ok := probe["max_tokens"].(float64); !ok || mt > 8 {
				probe["max_tokens"] = 8
			}
			b, _ := json.Marshal(probe)
			body = string(b)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(body)))
		switch rec.Code {
		case 200, 400, 404:
		default:
			t.Fatalf("status %d for %q: %s", rec.Code, body, rec.Body.String())
		}
		if !json.Valid(rec.Body.Bytes()) {
			t.Fatalf("response is not JSON: %q", rec.Body.String())
		}
		trec := httptest.NewRecorder()
		h.ServeHTTP(trec, httptest.NewRequest("POST", "/tokenize", strings.NewReader(body)))
		if (trec.Code != 200 && trec.Code != 400) || !json.Valid(trec.Body.Bytes()) {
			t.Fatalf("tokenize: %d %q", trec.Code, trec.Body.String())
		}
		if rec.Code != 200 || trec.Code != 200 || probe["messages"] == nil {
			return
		}
		var chat struct{ Usage usage }
		var tok struct{ Count int }
		json.Unmarshal(rec.Body.Bytes(), &chat)
		json.Unmarshal(trec.Body.Bytes(), &tok)
		if chat.Usage.PromptTokens != tok.Count {
			t.Fatalf("chat counts %d prompt tokens, /tokenize %d, for %q", chat.Usage.PromptTokens, tok.Count, body)
		}
	})
}

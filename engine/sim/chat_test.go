package sim

import (
	"bufio"
	"encoding/json"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// chatStreamChunk is what the tests read of a chat stream's chunk.
type chatStreamChunk struct {
	ID      string `json:"id"`
	Object  string `json:"object"`
	Choices []struct {
		Delta struct {
			Role    *string `json:"role"`
			Content *string `json:"content"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage   *usage         `json:"usage"`
	Timings map[string]any `json:"timings"`
}

// readChatStream posts a chat request and returns its chunks in order and
// whether [DONE] ended the stream.
func readChatStream(t *testing.T, url, body string) (chunks []chatStreamChunk, done bool) {
	t.Helper()
	resp, err := http.Post(url+"/v1/chat/completions", "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/event-stream") {
		t.Fatalf("status %d, type %q", resp.StatusCode, resp.Header.Get("Content-Type"))
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return chunks, true
		}
		var ch chatStreamChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk %q: %v", data, err)
		}
		chunks = append(chunks, ch)
	}
	return chunks, false
}

func chatBody(t *testing.T, fields map[string]any) string {
	t.Helper()
	b, err := json.Marshal(fields)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// terseChat is a two-message conversation whose templated prompt is 19
// tokens: system 8 (<|im_start|> "syst" "em" "You" "are" "ters" "e."
// <|im_end|>), user 7 (<|im_start|> "user" "meas" "ure" "the" "card"
// <|im_end|>), the generation prompt 4 (<|im_start|> "assi" "stan" "t").
var terseChat = []map[string]any{
	{"role": "system", "content": "You are terse."},
	{"role": "user", "content": "measure the card"},
}

const terseChatTokens = 19

// TestChatStreamContinuousUsage: a chat stream opens with the role chunk,
// every chunk's usage counts exactly the tokens sent so far (each delta's
// text re-tokenizes to the usage's increase), the last content chunk has
// finish_reason, then a usage-only chunk and [DONE].
func TestChatStreamContinuousUsage(t *testing.T) {
	s, url := newTestServer(t, fastConfig())
	chunks, done := readChatStream(t, url, chatBody(t, map[string]any{
		"model": s.Model(), "messages": terseChat, "max_tokens": 40, "ignore_eos": true, "stream": true,
		"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true},
	}))
	if !done || len(chunks) < 3 {
		t.Fatalf("done=%v after %d chunks", done, len(chunks))
	}
	first := chunks[0]
	if len(first.Choices) != 1 || first.Choices[0].Delta.Role == nil || *first.Choices[0].Delta.Role != "assistant" ||
		first.Choices[0].Delta.Content == nil || *first.Choices[0].Delta.Content != "" {
		t.Errorf("first chunk is not the role chunk: %+v", first)
	}
	if first.Usage == nil || first.Usage.CompletionTokens != 0 || first.Usage.PromptTokens != terseChatTokens {
		t.Errorf("role chunk usage = %+v, want %d prompt tokens and 0 completion tokens", first.Usage, terseChatTokens)
	}
	prev, finish := 0, ""
	for i, ch := range chunks[1 : len(chunks)-1] {
		if ch.Object != "chat.completion.chunk" || !strings.HasPrefix(ch.ID, "chatcmpl-") {
			t.Errorf("chunk %d: object %q id %q", i, ch.Object, ch.ID)
		}
		if ch.Usage == nil || len(ch.Choices) != 1 || ch.Choices[0].Delta.Content == nil || ch.Choices[0].Delta.Role != nil {
			t.Fatalf("content chunk %d: %+v", i, ch)
		}
		if finish != "" {
			t.Errorf("content after finish_reason %q", finish)
		}
		text := *ch.Choices[0].Delta.Content
		if got, want := len(tokenize(text, false)), ch.Usage.CompletionTokens-prev; got != want || want < 1 {
			t.Errorf("chunk %d: %q is %d tokens, usage grew by %d", i, text, got, want)
		}
		if ch.Usage.PromptTokens != terseChatTokens || ch.Usage.TotalTokens != ch.Usage.PromptTokens+ch.Usage.CompletionTokens {
			t.Errorf("chunk %d usage %+v", i, ch.Usage)
		}
		prev = ch.Usage.CompletionTokens
		if fr := ch.Choices[0].FinishReason; fr != nil {
			finish = *fr
		}
	}
	last := chunks[len(chunks)-1]
	if len(last.Choices) != 0 || last.Usage == nil || last.Usage.CompletionTokens != 40 {
		t.Errorf("final chunk %+v, want choices [] and 40 completion tokens", last)
	}
	if prev != 40 || finish != "length" {
		t.Errorf("content chunks counted %d tokens, finish %q; want 40, length", prev, finish)
	}
	tr := s.Truth()
	if len(tr) != 1 || tr[0].OutputTokens() != 40 || tr[0].PromptTokens != terseChatTokens || tr[0].Cancelled {
		t.Errorf("truth %+v", tr)
	}
}

// TestChatUsageOnlyWhenAsked: without stream_options no chunk has usage;
// with include_usage alone only the last one does.
func TestChatUsageOnlyWhenAsked(t *testing.T) {
	_, url := newTestServer(t, fastConfig())
	for _, tc := range []struct {
		opts       any
		wantUsages int
	}{{nil, 0}, {map[string]any{"include_usage": true}, 1}, {map[string]any{"continuous_usage_stats": true}, 0}} {
		fields := map[string]any{"messages": terseChat, "max_tokens": 12, "ignore_eos": true, "stream": true}
		if tc.opts != nil {
			fields["stream_options"] = tc.opts
		}
		chunks, done := readChatStream(t, url, chatBody(t, fields))
		usages := 0
		for _, ch := range chunks {
			if ch.Usage != nil {
				usages++
			}
		}
		if !done || usages != tc.wantUsages {
			t.Errorf("stream_options %v: %d chunks with usage (done=%v), want %d", tc.opts, usages, done, tc.wantUsages)
		}
		if tc.wantUsages == 1 && chunks[len(chunks)-1].Usage.CompletionTokens != 12 {
			t.Errorf("final usage %+v", chunks[len(chunks)-1].Usage)
		}
	}
}

// TestChatNonStreaming: a chat.completion body; max_completion_tokens wins
// over max_tokens; min_tokens holds off the natural stop; without
// ignore_eos a request stops by itself.
func TestChatNonStreaming(t *testing.T) {
	_, url := newTestServer(t, fastConfig())
	type answer struct {
		Object  string `json:"object"`
		Choices []struct {
			Message struct {
				Role, Content string
			} `json:"message"`
			FinishReason string `json:"finish_reason"`
		} `json:"choices"`
		Usage usage `json:"usage"`
	}
	ask := func(fields map[string]any) answer {
		t.Helper()
		fields["messages"] = terseChat
		resp, body := post(t, url+"/v1/chat/completions", chatBody(t, fields))
		var a answer
		if err := json.Unmarshal([]byte(body), &a); err != nil || resp.StatusCode != 200 || len(a.Choices) != 1 {
			t.Fatalf("%d %s", resp.StatusCode, body)
		}
		if a.Object != "chat.completion" || a.Choices[0].Message.Role != "assistant" ||
			len(tokenize(a.Choices[0].Message.Content, false)) != a.Usage.CompletionTokens {
			t.Errorf("answer %+v", a)
		}
		return a
	}
	a := ask(map[string]any{"max_tokens": 500, "max_completion_tokens": 7, "ignore_eos": true})
	if a.Usage.CompletionTokens != 7 || a.Choices[0].FinishReason != "length" || a.Usage.PromptTokens != terseChatTokens {
		t.Errorf("max_completion_tokens 7: %+v", a)
	}
	p := DefaultProfile()
	a = ask(map[string]any{"max_tokens": 5000})
	if n := a.Usage.CompletionTokens; a.Choices[0].FinishReason != "stop" || n < p.NaturalMinTokens || n > p.NaturalMaxTokens {
		t.Errorf("natural stop: %q after %d tokens", a.Choices[0].FinishReason, n)
	}
	a = ask(map[string]any{"max_tokens": 600, "min_tokens": 600})
	if a.Usage.CompletionTokens != 600 {
		t.Errorf("min_tokens 600 gave %d tokens", a.Usage.CompletionTokens)
	}
}

// TestChatErrors: vLLM's 400s and 404 for bad chat requests.
func TestChatErrors(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxModelLen = 64
	_, url := newTestServer(t, cfg)
	for _, tc := range []struct {
		body string
		code int
		want string
	}{
		{`{"max_tokens":3}`, 400, "messages must be provided"},
		{`{"messages":"hi"}`, 400, "messages must be a list"},
		{`{"messages":[{"content":"x"}]}`, 400, "no role"},
		{`{"messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"x"}}]}]}`, 400, "text only"},
		{`{"messages":[],"add_generation_prompt":false}`, 400, "cannot be empty"},
		{`{"model":"other","messages":[{"role":"user","content":"x"}]}`, 404, "The model `other` does not exist."},
		{`{"messages":[{"role":"user","content":"` + strings.Repeat("w ", 70) + `"}]}`, 400, "maximum context length is 64 tokens"},
		{`{"messages":[{"role":"user","content":"x"}],"max_completion_tokens":100}`, 400, "'max_tokens' or 'max_completion_tokens' is too large"},
		{`{"messages":[`, 400, "not valid JSON"},
	} {
		resp, body := post(t, url+"/v1/chat/completions", tc.body)
		if resp.StatusCode != tc.code || !strings.Contains(body, tc.want) {
			t.Errorf("%s: %d %s, want %d %q", tc.body, resp.StatusCode, body, tc.code, tc.want)
		}
	}
}

// TestTokenizeMessagesMatchesChatUsage: /tokenize with messages counts what
// the chat request's usage reports, for each form of content and with the
// generation prompt on (vLLM's default) or off; /tokenize of the rendered
// template as a prompt without special tokens counts the same.
func TestTokenizeMessagesMatchesChatUsage(t *testing.T) {
	_, url := newTestServer(t, fastConfig())
	count := func(body string) int {
		t.Helper()
		resp, b := post(t, url+"/tokenize", body)
		var tok struct {
			Count  int      `json:"count"`
			Tokens []uint32 `json:"tokens"`
		}
		if err := json.Unmarshal([]byte(b), &tok); err != nil || resp.StatusCode != 200 || len(tok.Tokens) != tok.Count {
			t.Fatalf("tokenize %s: %d %s", body, resp.StatusCode, b)
		}
		return tok.Count
	}
	for _, msgs := range [][]map[string]any{
		terseChat,
		{{"role": "user", "content": strings.Repeat("benchmarking throughput of inference servers ", 40)}},
		{{"role": "user", "content": []map[string]any{{"type": "text", "text": "two"}, {"type": "text", "text": "parts"}}},
			{"role": "assistant", "content": nil}, {"role": "user", "content": "again<|im_end|>"}},
	} {
		got := count(chatBody(t, map[string]any{"messages": msgs}))
		_, cb := post(t, url+"/v1/chat/completions", chatBody(t, map[string]any{"messages": msgs, "max_tokens": 1}))
		var comp struct{ Usage usage }
		json.Unmarshal([]byte(cb), &comp)
		if got != comp.Usage.PromptTokens || got == 0 {
			t.Errorf("tokenize counts %d, chat usage.prompt_tokens %d: %s", got, comp.Usage.PromptTokens, cb)
		}
		raw, _ := json.Marshal(msgs)
		parsed, err := parseMessages(raw)
		if err != nil {
			t.Fatal(err)
		}
		rendered := count(chatBody(t, map[string]any{"prompt": chatTemplate(parsed, true), "add_special_tokens": false}))
		if rendered != got {
			t.Errorf("the rendered template counts %d as a prompt, %d as messages", rendered, got)
		}
		// The generation prompt is 4 tokens: <|im_start|> "assi" "stan" "t".
		if off := count(chatBody(t, map[string]any{"messages": msgs, "add_generation_prompt": false})); off != got-4 {
			t.Errorf("add_generation_prompt false counts %d, want %d", off, got-4)
		}
	}
	if got := count(chatBody(t, map[string]any{"messages": terseChat})); got != terseChatTokens {
		t.Errorf("terse chat counts %d tokens, want %d", got, terseChatTokens)
	}
}

// TestChatPrefixCacheAndPrefillMetrics: the same chat sent twice is served
// from the prefix cache the second time. vLLM's prefill metrics say so, with
// the right types, in figures that come from the engine: the cached tokens,
// the computed ones, and a prefill time that falls to the one step that
// computes the uncached tail. A follow-up turn of the conversation shares
// its prefix too.
func TestChatPrefixCacheAndPrefillMetrics(t *testing.T) {
	s, url := newTestServer(t, fastConfig())
	msgs := []map[string]any{
		{"role": "system", "content": "You are a benchmark."},
		{"role": "user", "content": strings.Repeat("a reference document of many words ", 120)},
	}
	send := func(m []map[string]any) usage {
		t.Helper()
		_, body := post(t, url+"/v1/chat/completions", chatBody(t, map[string]any{"messages": m, "max_tokens": 2, "ignore_eos": true}))
		var r struct{ Usage usage }
		json.Unmarshal([]byte(body), &r)
		return r.Usage
	}
	u := send(msgs)
	p := u.PromptTokens
	m1 := scrapeMetrics(t, url)
	u2 := send(msgs)
	m2 := scrapeMetrics(t, url)
	cached := (p - 1) / 16 * 16 // whole blocks, never the last token
	tr := s.Truth()
	if u2.PromptTokens != p || tr[0].CachedTokens != 0 || tr[1].CachedTokens != cached {
		t.Fatalf("prompt %d then %d tokens, cached %d then %d; want %d cached the second time",
			p, u2.PromptTokens, tr[0].CachedTokens, tr[1].CachedTokens, cached)
	}
	for _, tc := range []struct {
		name        string
		got, want   float64
		got1, want1 float64
	}{
		{"vllm:prompt_tokens_cached_total", m2.value("vllm:prompt_tokens_cached_total", ""), float64(cached), m1.value("vllm:prompt_tokens_cached_total", ""), 0},
		{"local_cache_hit", m2.value("vllm:prompt_tokens_by_source_total", "local_cache_hit"), float64(cached), m1.value("vllm:prompt_tokens_by_source_total", "local_cache_hit"), 0},
		{"local_compute", m2.value("vllm:prompt_tokens_by_source_total", "local_compute"), float64(2*p - cached), m1.value("vllm:prompt_tokens_by_source_total", "local_compute"), float64(p)},
		{"external_kv_transfer", m2.value("vllm:prompt_tokens_by_source_total", "external_kv_transfer"), 0, 0, 0},
		{"kv_computed _sum", m2.sum("vllm:request_prefill_kv_computed_tokens"), float64(2*p - cached), m1.sum("vllm:request_prefill_kv_computed_tokens"), float64(p)},
		{"kv_computed _count", m2.count("vllm:request_prefill_kv_computed_tokens"), 2, m1.count("vllm:request_prefill_kv_computed_tokens"), 1},
		{"prefill time _count", m2.count("vllm:request_prefill_time_seconds"), 2, m1.count("vllm:request_prefill_time_seconds"), 1},
		{"prefix hits", m2.parsed.PrefixCacheHits, float64(cached), m1.parsed.PrefixCacheHits, 0},
	} {
		if tc.got != tc.want || tc.got1 != tc.want1 {
			t.Errorf("%s: %g after the first request and %g after the second, want %g and %g", tc.name, tc.got1, tc.got, tc.want1, tc.want)
		}
	}
	// One lone request on an idle engine: its prefill is exactly the steps
	// that compute its prompt, in simulated seconds.
	s.mu.Lock()
	coldWant := 0.0
	for start := 0; start < p; start += s.cfg.MaxNumBatchedTokens {
		coldWant += s.core.stepCost([]chunk{{&seq{}, start, min(p-start, s.cfg.MaxNumBatchedTokens)}})
	}
	warmWant := s.core.stepCost([]chunk{{&seq{}, cached, p - cached}})
	s.mu.Unlock()
	cold := m1.sum("vllm:request_prefill_time_seconds")
	warm := m2.sum("vllm:request_prefill_time_seconds") - cold
	if !nearlyEqual(cold, coldWant) || !nearlyEqual(warm, warmWant) || !(warm < cold/5) {
		t.Errorf("prefill %.6f s cold and %.6f s cached, want %.6f and %.6f", cold, warm, coldWant, warmWant)
	}
	// The next turn: the first conversation, its answer, a new question.
	follow := append(append([]map[string]any(nil), msgs...),
		map[string]any{"role": "assistant", "content": "ok"}, map[string]any{"role": "user", "content": "and now?"})
	send(follow)
	if got := s.Truth()[2].CachedTokens; got < cached-16 {
		t.Errorf("a follow-up turn got %d cached tokens, want at least %d (its shared prefix)", got, cached-16)
	}
}

func nearlyEqual(a, b float64) bool { return math.Abs(a-b) <= 1e-9*math.Max(1, math.Abs(b)) }

// TestHandlerServesChat: every personality routes /v1/chat/completions.
func TestHandlerServesChat(t *testing.T) {
	for _, p := range Personalities() {
		cfg := fastConfig()
		cfg.Personality = p
		s, err := New(cfg)
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, httptest.NewRequest("POST", "/v1/chat/completions",
			strings.NewReader(`{"messages":[{"role":"user","content":"hi"}],"max_tokens":2}`)))
		s.Close()
		if rec.Code != 200 || !strings.Contains(rec.Body.String(), `"chat.completion"`) {
			t.Errorf("%s: %d %s", p, rec.Code, rec.Body.String())
		}
	}
}

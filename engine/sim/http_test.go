package sim

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// readStream reads an SSE response, returning the content chunks' token
// counts (from continuous usage) and whether [DONE] arrived.
func readStream(t *testing.T, body io.Reader) (chunks []int, done bool, malformed bool) {
	t.Helper()
	sc := bufio.NewScanner(body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	prev := 0
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok {
			continue
		}
		if data == "[DONE]" {
			return chunks, true, malformed
		}
		var ch completionChunk
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			malformed = true
			continue
		}
		if len(ch.Choices) > 0 && ch.Usage != nil {
			chunks = append(chunks, ch.Usage.CompletionTokens-prev)
			prev = ch.Usage.CompletionTokens
		}
	}
	return chunks, false, malformed
}

func streamBody(prompt string, maxTokens int) string {
	b, _ := json.Marshal(map[string]any{
		"prompt": prompt, "max_tokens": maxTokens, "ignore_eos": true, "stream": true,
		"stream_options": map[string]any{"include_usage": true, "continuous_usage_stats": true},
	})
	return string(b)
}

func TestClientDisconnectCancelsRequest(t *testing.T) {
	cfg := fastConfig()
	cfg.Speed = 10
	s, url := newTestServer(t, cfg)
	ctx, cancel := context.WithCancel(context.Background())
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(streamBody("a long story", 8000)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // the first chunk
		t.Fatal(err)
	}
	cancel()
	resp.Body.Close()
	deadline := time.Now().Add(2 * time.Second)
	for {
		s.mu.Lock()
		running, free := len(s.core.running), s.core.pool.free()
		s.mu.Unlock()
		if running == 0 && free == s.core.pool.total() {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("request still in the engine after disconnect: running %d, free %d/%d", running, free, s.core.pool.total())
		}
		time.Sleep(10 * time.Millisecond)
	}
	s.mu.Lock()
	gen := s.core.count.generationTokens
	s.mu.Unlock()
	time.Sleep(50 * time.Millisecond)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.core.count.generationTokens != gen {
		t.Error("tokens still counted after the client left")
	}
	if tr := s.truth[0]; !tr.Cancelled || tr.Finished.IsZero() {
		t.Errorf("truth: %+v", tr)
	}
}

func TestSlowConsumerGetsSeveralTokensPerChunk(t *testing.T) {
	cfg := fastConfig()
	cfg.Speed = 200
	_, url := newTestServer(t, cfg)
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody("x", 400)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	time.Sleep(150 * time.Millisecond) // let tokens pile up
	chunks, done, _ := readStream(t, resp.Body)
	total, most := 0, 0
	for _, n := range chunks {
		total += n
		most = max(most, n)
	}
	if !done || total != 400 {
		t.Fatalf("done=%v total=%d", done, total)
	}
	if most < 2 {
		t.Errorf("a slow reader got one token per chunk (largest chunk %d)", most)
	}
}

// TestRealTimePacingFollowsSpeed: a 500-token stream at speed 50 takes its
// simulated time ÷ 50 of real time. The simulator releases each step at its
// absolute deadline, never earlier, and a late wake-up does not push the
// later steps back (driver.go), so the stream ends no sooner than its
// simulated time allows and later only by the last wake-ups' lateness, not
// by a sum over its 500 steps. How late a wake-up is depends on the host,
// so that lateness is measured beside the stream, from a timer of the
// test's own, rather than assumed: an idle host's is well under a
// millisecond, a host at load 15 can take a tenth of a second.
func TestRealTimePacingFollowsSpeed(t *testing.T) {
	cfg := fastConfig()
	cfg.Speed = 50
	s, url := newTestServer(t, cfg)
	stop, lateness := make(chan struct{}), make(chan time.Duration, 1)
	go func() { lateness <- worstWakeUp(stop) }()
	start := time.Now()
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody("x", 500)))
	if err != nil {
		t.Fatal(err)
	}
	_, done, _ := readStream(t, resp.Body)
	resp.Body.Close()
	elapsed := time.Since(start)
	close(stop)
	late := <-lateness
	if !done {
		t.Fatal("stream did not finish")
	}
	// The request's life in simulated time: API server, one prefill step of
	// the 2-token prompt, then 499 decode steps at growing context.
	s.mu.Lock()
	simulated := s.prof.apiCost(2) + s.core.stepCost([]chunk{{&seq{}, 0, 2}})
	for k := 2; k < 501; k++ {
		simulated += s.core.stepCost([]chunk{{&seq{}, k, 1}})
	}
	s.mu.Unlock()
	want := time.Duration(simulated / cfg.Speed * float64(time.Second))
	// Three wake-ups stand between a step's deadline and the client's read
	// (the engine's timer, the handler, the client), each at most late.
	if most := want*13/10 + 50*time.Millisecond + 3*late; elapsed < want*9/10 || elapsed > most {
		t.Errorf("500 tokens took %v real for %.2fs simulated at speed %g (want %v to %v; a wake-up here was up to %v late)",
			elapsed, simulated, cfg.Speed, want*9/10, most, late)
	}
	tr := s.Truth()[0]
	if tr.OutputTokens() != 500 || tr.FirstToken.Before(tr.Arrived) || tr.Finished.Before(tr.FirstToken) {
		t.Errorf("truth %+v", tr)
	}
}

// worstWakeUp is the host's worst timer lateness until stop: how much
// longer than asked a 1 ms sleep took, over and over.
func worstWakeUp(stop <-chan struct{}) time.Duration {
	var worst time.Duration
	for {
		select {
		case <-stop:
			return worst
		default:
		}
		t0 := time.Now()
		time.Sleep(time.Millisecond)
		worst = max(worst, time.Since(t0)-time.Millisecond)
	}
}

func TestFaultErrorRate(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.ErrorRate = 1
	s, url := newTestServer(t, cfg)
	resp, body := post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":3}`)
	if resp.StatusCode != 500 || !strings.Contains(body, "simulated fault") {
		t.Errorf("%d %s", resp.StatusCode, body)
	}
	if tr := s.Truth(); len(tr) != 1 || tr[0].Error == "" {
		t.Errorf("truth %+v", tr)
	}
}

func TestFaultMalformedChunk(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.MalformedChunkAfter = 5
	_, url := newTestServer(t, cfg)
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody("x", 50)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	chunks, done, malformed := readStream(t, resp.Body)
	total := 0
	for _, n := range chunks {
		total += n
	}
	if !malformed || done || total > 5 {
		t.Errorf("malformed=%v done=%v tokens before=%d", malformed, done, total)
	}
}

func TestFaultStall(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.StallAfterTokens = 4
	_, url := newTestServer(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(streamBody("x", 50)))
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	chunks, done, _ := readStream(t, resp.Body)
	total := 0
	for _, n := range chunks {
		total += n
	}
	if done || total != 4 || ctx.Err() == nil {
		t.Errorf("stall: done=%v tokens=%d ctx=%v", done, total, ctx.Err())
	}
}

func TestFaultExitBreaksStreams(t *testing.T) {
	cfg := fastConfig()
	cfg.Faults.ExitAfter = 50 * time.Second // 0.5 s real
	s, url := newTestServer(t, cfg)
	// 8000 tokens take far longer than 50 s simulated: the engine dies
	// mid-stream (or, on a very slow machine, before answering at all).
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody("x", 8000)))
	if err == nil {
		defer resp.Body.Close()
		if _, done, _ := readStream(t, resp.Body); done {
			t.Fatal("stream ended cleanly although the engine died")
		}
	}
	select {
	case <-s.Exited():
	case <-time.After(2 * time.Second):
		t.Fatal("Exited not closed")
	}
	if _, err := http.Get(url + "/health"); err == nil {
		t.Error("a dead server still answers /health")
	}
}

func TestDeterministicOutput(t *testing.T) {
	text := func(seed int64) string {
		cfg := fastConfig()
		cfg.Seed = seed
		_, url := newTestServer(t, cfg)
		_, body := post(t, url+"/v1/completions", `{"prompt":"tell me","max_tokens":30}`)
		var r struct {
			Choices []struct{ Text, FinishReason string }
		}
		json.Unmarshal([]byte(body), &r)
		if len(r.Choices) != 1 {
			t.Fatalf("body %s", body)
		}
		return r.Choices[0].Text
	}
	a, b, c := text(1), text(1), text(2)
	if a != b || a == "" {
		t.Errorf("same seed, different text: %q vs %q", a, b)
	}
	if a == c {
		t.Errorf("different seeds gave the same text %q", a)
	}
}

func TestNaturalStopWithoutIgnoreEOS(t *testing.T) {
	_, url := newTestServer(t, fastConfig())
	_, body := post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":5000}`)
	var r struct {
		Choices []struct {
			FinishReason string `json:"finish_reason"`
		}
		Usage usage
	}
	json.Unmarshal([]byte(body), &r)
	p := DefaultProfile()
	if r.Choices[0].FinishReason != "stop" || r.Usage.CompletionTokens < p.NaturalMinTokens || r.Usage.CompletionTokens > p.NaturalMaxTokens {
		t.Errorf("finish %q after %d tokens", r.Choices[0].FinishReason, r.Usage.CompletionTokens)
	}
	_, body = post(t, url+"/v1/completions", `{"prompt":"hi","max_tokens":600,"min_tokens":600}`)
	json.Unmarshal([]byte(body), &r)
	if r.Usage.CompletionTokens != 600 {
		t.Errorf("min_tokens 600 gave %d tokens", r.Usage.CompletionTokens)
	}
}

func TestMetricsAndModels(t *testing.T) {
	s, url := newTestServer(t, fastConfig())
	post(t, url+"/v1/completions", `{"prompt":"`+strings.Repeat("abcd ", 100)+`","max_tokens":2}`)
	post(t, url+"/v1/completions", `{"prompt":"`+strings.Repeat("abcd ", 100)+`","max_tokens":2}`)
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	m := string(b)
	for _, want := range []string{
		`vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",engine="0",gpu_memory_utilization="0.9",kv_cache_size_tokens="431632",num_cpu_blocks="None",num_gpu_blocks="26977"`,
		"vllm:num_requests_running{", "vllm:num_requests_waiting{", "vllm:kv_cache_usage_perc{",
		`vllm:prefix_cache_queries_total{engine="0",model_name="agents/a1-4b-fp8"} 202.0`,
		`vllm:prefix_cache_hits_total{engine="0",model_name="agents/a1-4b-fp8"} 96.0`,
		"vllm:num_preemptions_total{", `vllm:prompt_tokens_total{engine="0",model_name="agents/a1-4b-fp8"} 202.0`,
		`vllm:generation_tokens_total{engine="0",model_name="agents/a1-4b-fp8"} 4.0`,
		"vllm:time_to_first_token_seconds_bucket{", "vllm:inter_token_latency_seconds_count{",
		"vllm:e2e_request_latency_seconds_sum{", "vllm:request_queue_time_seconds_bucket{",
	} {
		if !strings.Contains(m, want) {
			t.Errorf("/metrics lacks %q", want)
		}
	}
	_, tb := post(t, url+"/tokenize", `{"prompt":"`+strings.Repeat("abcd ", 100)+`"}`)
	if !strings.Contains(tb, `"count":101`) {
		t.Errorf("tokenize %s", tb[:min(len(tb), 80)])
	}
	resp, _ = http.Get(url + "/v1/models")
	var models struct {
		Data []struct {
			ID          string `json:"id"`
			MaxModelLen int    `json:"max_model_len"`
		}
	}
	json.NewDecoder(resp.Body).Decode(&models)
	resp.Body.Close()
	if len(models.Data) != 1 || models.Data[0].ID != s.Model() || models.Data[0].MaxModelLen != 262144 {
		t.Errorf("models %+v", models)
	}
	resp, _ = http.Get(url + "/version")
	var v map[string]any
	json.NewDecoder(resp.Body).Decode(&v)
	resp.Body.Close()
	if v["version"] != "0.32.0-sim" || v["simulated"] != true {
		t.Errorf("version %v", v)
	}
	resp, _ = http.Get(url + "/debug/truth")
	var truth []RequestRecord
	json.NewDecoder(resp.Body).Decode(&truth)
	resp.Body.Close()
	if len(truth) != 2 || truth[1].CachedTokens != 96 || truth[1].PromptTokens != 101 ||
		truth[0].ComputedTokens != 101 || truth[1].ComputedTokens != 5 {
		t.Errorf("truth %+v", truth)
	}
	_, body := post(t, url+"/v1/completions", `{"model":"other","prompt":"x"}`)
	if !strings.Contains(body, "The model `other` does not exist.") {
		t.Errorf("unknown model: %s", body)
	}
}

func TestUnthrottledSpeed(t *testing.T) {
	cfg := fastConfig()
	cfg.Speed = math.Inf(1)
	s, url := newTestServer(t, cfg)
	start := time.Now()
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody(strings.Repeat("long prompt ", 2000), 2000)))
	if err != nil {
		t.Fatal(err)
	}
	chunks, done, _ := readStream(t, resp.Body)
	resp.Body.Close()
	total := 0
	for _, n := range chunks {
		total += n
	}
	// 2000 tokens are about 45 s simulated; unthrottled it is CPU-bound.
	// Paced at any finite speed ≥ 1 it could take that long; the design
	// guarantees no pacing, not how fast this host computes (an idle host
	// takes well under a second, a loaded one with -race several).
	if !done || total != 2000 {
		t.Fatalf("done=%v tokens=%d", done, total)
	}
	s.mu.Lock()
	simulated := s.core.now
	s.mu.Unlock()
	if el := time.Since(start); el.Seconds() >= simulated {
		t.Errorf("unthrottled run took %v, as long as the %.1f s it simulated: it was paced", el, simulated)
	}
	if s.Truth()[0].OutputTokens() != 2000 {
		t.Error("truth disagrees")
	}
}

func FuzzCompletionRequest(f *testing.F) {
	f.Add(`{"prompt":"hi","max_tokens":3}`)
	f.Add(`{"prompt":[1,2,3],"max_tokens":1,"min_tokens":1}`)
	f.Add(`{"prompt":["x"],"max_tokens":0}`)
	f.Add(`{"prompt":[[5,6]],"max_tokens":-1,"stream":true}`)
	f.Add(`{"prompt":[-1]}`)
	f.Add(`{"prompt":null,"model":"m"}`)
	f.Add(`null`) // valid JSON that decodes to a nil map (issue 12)
	f.Add(`[]`)
	s, err := New(Config{Profile: tinyProfile(), Speed: math.Inf(1), EnablePrefixCaching: true})
	if err != nil {
		f.Fatal(err)
	}
	defer s.Close()
	h := s.Handler()
	f.Fuzz(func(t *testing.T, body string) {
		// Bound the work: the handler would generate up to max_model_len tokens.
		// A body of `null` decodes without error into a nil map, which
		// cannot be written to: only an object is rewritten.
		var probe map[string]any
		if json.Unmarshal([]byte(body), &probe) == nil && probe != nil {
			probe["stream"] = false
			if mt, ok := probe["max_tokens"].(float64); !ok || mt > 64 {
				probe["max_tokens"] = 8
			}
			b, _ := json.Marshal(probe)
			body = string(b)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("POST", "/v1/completions", strings.NewReader(body)))
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
		if trec.Code != 200 && trec.Code != 400 {
			t.Fatalf("tokenize status %d", trec.Code)
		}
	})
}

// TestComputedTokensOfAQueuedRequest: a request cancelled while it waits
// for a slot computed none of its prompt, and its ground truth says so
// (prompt minus cached tokens would charge it the whole prompt).
func TestComputedTokensOfAQueuedRequest(t *testing.T) {
	cfg := fastConfig()
	cfg.Speed = 1
	cfg.MaxNumSeqs = 1
	s, url := newTestServer(t, cfg)
	long, stopLong := context.WithCancel(context.Background())
	defer stopLong()
	send := func(ctx context.Context, body string) {
		req, _ := http.NewRequestWithContext(ctx, "POST", url+"/v1/completions", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if resp, err := http.DefaultClient.Do(req); err == nil {
			io.Copy(io.Discard, resp.Body)
			resp.Body.Close()
		}
	}
	go send(long, `{"prompt":"hi","max_tokens":100000,"min_tokens":100000,"stream":true}`)
	deadline := time.Now().Add(30 * time.Second)
	for tr := s.Truth(); len(tr) < 1 || tr[0].FirstToken.IsZero(); tr = s.Truth() {
		if time.Now().After(deadline) {
			t.Fatal("the first request never started")
		}
		time.Sleep(time.Millisecond)
	}
	queued, stopQueued := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		send(queued, `{"prompt":"`+strings.Repeat("abcd ", 100)+`","max_tokens":2,"stream":true}`)
		close(done)
	}()
	for len(s.Truth()) < 2 {
		if time.Now().After(deadline) {
			t.Fatal("the second request never reached the simulator")
		}
		time.Sleep(time.Millisecond)
	}
	stopQueued()
	<-done
	for {
		tr := s.Truth()
		if !tr[1].Finished.IsZero() {
			if tr[1].PromptTokens != 101 || tr[1].ComputedTokens != 0 || tr[1].CachedTokens != 0 || !tr[1].Cancelled {
				t.Fatalf("queued and cancelled: %+v", tr[1])
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the cancelled request never ended in the ground truth")
		}
		time.Sleep(time.Millisecond)
	}
}

// TestFreezeHoldsEverything: a frozen server (kill -STOP, docker pause)
// keeps its open stream's connection but sends nothing more on it, and
// answers no new request, /health and /metrics included, until the client
// gives up; Close still ends it.
func TestFreezeHoldsEverything(t *testing.T) {
	s, url := newTestServer(t, fastConfig())
	resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody("x", 8000)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	br := bufio.NewReader(resp.Body)
	if _, err := br.ReadString('\n'); err != nil { // the stream is flowing
		t.Fatal(err)
	}
	s.Freeze()
	// What was already on its way may still arrive; then nothing.
	got := make(chan struct{})
	go func() {
		defer close(got)
		for {
			if _, err := br.ReadString('\n'); err != nil {
				return
			}
		}
	}()
	for _, path := range []string{"/health", "/metrics"} {
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		req, _ := http.NewRequestWithContext(ctx, "GET", url+path, nil)
		if r, err := http.DefaultClient.Do(req); err == nil {
			r.Body.Close()
			t.Errorf("a frozen server answered %s: %s", path, r.Status)
		} else if ctx.Err() == nil {
			t.Errorf("%s: %v, want a request that waits until the client gives up", path, err)
		}
		cancel()
	}
	select {
	case <-got:
		t.Error("the frozen server ended its open stream")
	default:
	}
	truth := s.Truth()
	if len(truth) != 1 || truth[0].OutputTokens() >= 8000 {
		t.Fatalf("truth %+v", truth)
	}
	s.Close()
	select {
	case <-got:
	case <-time.After(2 * time.Second):
		t.Error("Close did not end the frozen stream")
	}
}

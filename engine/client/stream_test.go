package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// sseServer answers /v1/completions with the given raw SSE body.
func sseServer(t *testing.T, body string) *Client {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(srv.Close)
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func content(text string, cum int) string {
	return fmt.Sprintf(`data: {"choices":[{"index":0,"text":%q,"finish_reason":null}],"usage":{"prompt_tokens":9,"completion_tokens":%d}}`+"\n\n", text, cum)
}

func TestStreamSources(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name       string
		body       string
		wantTokens int
		wantChunks int
		wantSource string
		wantErr    bool
	}{
		{"continuous usage, several tokens per chunk",
			content(" a", 1) + content(" b c", 3) + content(" d", 4) +
				`data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":4}}` + "\n\n" + "data: [DONE]\n\n",
			4, 3, SourceContinuousUsage, false},
		{"final usage only",
			"data: {\"choices\":[{\"text\":\" a\"}]}\n\ndata: {\"choices\":[{\"text\":\" b\",\"finish_reason\":\"length\"}]}\n\n" +
				`data: {"choices":[],"usage":{"prompt_tokens":9,"completion_tokens":5}}` + "\n\ndata: [DONE]\n\n",
			5, 2, SourceFinalUsage, false},
		{"llama-server: usage in last content chunk",
			"data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: {\"choices\":[{\"text\":\"y\"}]}\n\n" +
				`data: {"choices":[{"text":"z","finish_reason":"length"}],"usage":{"completion_tokens":3,"prompt_tokens":9}}` + "\n\n",
			3, 3, SourceFinalUsage, false},
		// A prefill's one token, then b9928's closing chunk: usage with no
		// text (issue 30 item 8: read as continuous usage).
		{"llama-server: one token, usage in the closing chunk",
			"data: {\"choices\":[{\"text\":\"x\",\"finish_reason\":null}]}\n\n" +
				`data: {"choices":[{"text":"","finish_reason":"length"}],"usage":{"completion_tokens":1,"prompt_tokens":9}}` + "\n\ndata: [DONE]\n\n",
			1, 1, SourceFinalUsage, false},
		{"no usage at all",
			"data: {\"choices\":[{\"text\":\"x\"}]}\n\ndata: {\"choices\":[{\"text\":\"y\"}]}\n\ndata: [DONE]\n\n",
			2, 2, SourceChunks, false},
		{"ends without DONE or finish", content(" a", 1) + content(" b", 2), 2, 2, SourceContinuousUsage, true},
		{"malformed chunk", content(" a", 1) + "data: {\"choices\":[{\"text\n\n", 1, 1, SourceContinuousUsage, true},
		{"error mid-stream", content(" a", 1) + `data: {"error":{"message":"engine died"}}` + "\n\n", 1, 1, SourceContinuousUsage, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			c := sseServer(t, tt.body)
			var seen int
			res, err := c.Stream(context.Background(), CompletionRequest{Model: "m", Prompt: "p", MaxTokens: 4}, func(_ time.Time, n int) { seen += n })
			if (err != nil) != tt.wantErr {
				t.Fatalf("err = %v, want error %v", err, tt.wantErr)
			}
			if res.Tokens != tt.wantTokens || res.ContentChunks != tt.wantChunks || res.Source != tt.wantSource {
				t.Errorf("tokens %d chunks %d source %s, want %d %d %s", res.Tokens, res.ContentChunks, res.Source, tt.wantTokens, tt.wantChunks, tt.wantSource)
			}
			if res.PromptTokens != 9 && strings.Contains(tt.body, "prompt_tokens") {
				t.Errorf("prompt tokens %d, want 9", res.PromptTokens)
			}
			if tt.wantSource != SourceFinalUsage && seen != tt.wantTokens {
				t.Errorf("onToken saw %d tokens, want %d", seen, tt.wantTokens)
			}
			if res.FirstToken.IsZero() || res.FirstToken.Before(res.Sent) || res.End.Before(res.LastToken) {
				t.Errorf("timestamps out of order: %+v", res)
			}
		})
	}
}

func TestStreamHugeLine(t *testing.T) {
	t.Parallel()
	big := strings.Repeat("x", MaxSSELineBytes-200) // a chunk of nearly 1 MiB: past any 64 KB scanner limit, under the line limit
	c := sseServer(t, content(big, 1)+"data: [DONE]\n\n")
	res, err := c.Stream(context.Background(), CompletionRequest{Model: "m", Prompt: "p", MaxTokens: 1}, nil)
	if err != nil || res.Tokens != 1 {
		t.Fatalf("res %+v err %v", res, err)
	}
}

// TestStreamEndlessLine: a server that sends one line without end (here
// 64 MiB, then a proper ending that a client without a limit would reach)
// fails the request with ErrLineTooLong once the line passes
// MaxSSELineBytes, and the client allocates a few MiB, not the line.
// Not parallel, so the allocation count is this test's alone.
func TestStreamEndlessLine(t *testing.T) {
	const sent = 64 << 20
	block := []byte(strings.Repeat("x", 64<<10))
	var wrote atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, `data: {"choices":[{"text":"`)
		for n := 0; n < sent; n += len(block) {
			if _, err := w.Write(block); err != nil {
				return // the client hung up
			}
			wrote.Add(int64(len(block)))
		}
		io.WriteString(w, `"}]}`+"\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	c, err := New(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdle()
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	_, err = c.Stream(context.Background(), CompletionRequest{Model: "m", Prompt: "p", MaxTokens: 1}, nil)
	runtime.ReadMemStats(&after)
	var se *StreamError
	if !errors.Is(err, ErrLineTooLong) || !errors.As(err, &se) || !strings.Contains(err.Error(), "longer than 1 MiB") {
		t.Fatalf("err = %v, want the stream to break on the line limit", err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 16<<20 {
		t.Errorf("the client allocated %d MiB reading an endless line; want a few MiB", alloc>>20)
	}
	if w := wrote.Load(); w >= sent {
		t.Errorf("the server could write all %d MiB: the client read past its limit", w>>20)
	}
}

func TestErrors(t *testing.T) {
	t.Parallel()
	mk := func(status int, body string) *Client {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(status)
			io.WriteString(w, body)
		}))
		t.Cleanup(srv.Close)
		c, _ := New(srv.URL + "/v1/")
		return c
	}
	ctx := context.Background()
	req := CompletionRequest{Model: "m", Prompt: "p", MaxTokens: 1}
	if _, err := mk(401, `{"error":"Unauthorized"}`).Stream(ctx, req, nil); !errors.Is(err, ErrUnauthorized) {
		t.Errorf("401: got %v", err)
	}
	_, err := mk(400, `{"object":"error","message":"This model's maximum context length is 4096 tokens. However, you requested 5000 tokens (4999 in the messages, 1 in the completion).","type":"BadRequestError","code":400}`).Stream(ctx, req, nil)
	var tl *PromptTooLongError
	if !errors.As(err, &tl) || tl.MaxContext != 4096 {
		t.Errorf("400 too long: got %v", err)
	}
	_, err = mk(400, `{"error":{"code":400,"message":"the request exceeds the available context size, try increasing it","type":"exceed_context_size_error","n_ctx":4096}}`).Stream(ctx, req, nil)
	if !errors.As(err, &tl) {
		t.Errorf("llama-server too long: got %v", err)
	}
	var he *HTTPError
	if _, err := mk(500, "internal").Stream(ctx, req, nil); !errors.As(err, &he) || he.Status != 500 {
		t.Errorf("500: got %v", err)
	}
	if _, err := mk(404, "").Tokenize(ctx, "m", "x"); !errors.Is(err, ErrNotSupported) {
		t.Errorf("404 tokenize: got %v", err)
	}

	// Nothing listening: one sentence naming the URL.
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	addr := l.Addr().String()
	l.Close()
	c, _ := New("http://" + addr)
	_, err = c.Models(ctx)
	var ue *UnreachableError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), addr) {
		t.Errorf("unreachable: got %v", err)
	}
}

func TestEndpointParsing(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		"http://127.0.0.1:8000/v1/": "http://127.0.0.1:8000",
		"127.0.0.1:8000":            "http://127.0.0.1:8000",
		"https://h.example/api/v1":  "https://h.example/api",
		// Full API URLs as users paste them (issue 30 item 6).
		"http://127.0.0.1:8080/v1/completions":       "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/v1/chat/completions/": "http://127.0.0.1:8080",
		"http://127.0.0.1:8080/completions":          "http://127.0.0.1:8080",
		"https://h.example/api/v1/models":            "https://h.example/api",
		"https://h.example/api/chat/completions?x=1": "https://h.example/api",
	} {
		c, err := New(in)
		if err != nil || c.Endpoint() != want {
			t.Errorf("New(%q) = %v, %v; want %s", in, c, err, want)
		}
	}
	for _, bad := range []string{"", "ftp://x", "http://"} {
		if _, err := New(bad); err == nil {
			t.Errorf("New(%q) accepted", bad)
		}
	}
}

func TestPickModel(t *testing.T) {
	t.Parallel()
	ms := []Model{{ID: "b"}, {ID: "a", MaxModelLen: 4096}}
	if m, err := PickModel(ms, "a"); err != nil || m.MaxModelLen != 4096 {
		t.Errorf("PickModel a: %v %v", m, err)
	}
	if m, _ := PickModel(ms, ""); m.ID != "b" {
		t.Errorf("default model %q", m.ID)
	}
	_, err := PickModel(ms, "zzz")
	if err == nil || !strings.Contains(err.Error(), "a, b") {
		t.Errorf("unknown model error %v should list a, b", err)
	}
}

func FuzzSSE(f *testing.F) {
	f.Add([]byte("data: {\"choices\":[{\"text\":\"a\"}]}\n\ndata: [DONE]\n\n"))
	f.Add([]byte(": comment\r\nevent: x\r\ndata:{\"choices\":[]}\r\n\r\n"))
	f.Add([]byte("data: " + strings.Repeat("{", 100)))
	f.Fuzz(func(t *testing.T, b []byte) {
		var res StreamResult
		total := 0
		_ = readStream(strings.NewReader(string(b)), &res, func(_ time.Time, n int) {
			if n < 0 {
				t.Fatalf("negative token count %d", n)
			}
			total += n
		}, nil)
		if res.Tokens < 0 || res.ContentChunks < 0 {
			t.Fatalf("negative counts %+v", res)
		}
	})
}

// TestSilentServer: a server that takes the connection and never answers
// makes every info request fail within the client's limit with an error
// that says so, instead of hanging; a caller's own cancel stays a cancel.
func TestSilentServer(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var conns []net.Conn
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			mu.Lock()
			conns = append(conns, c) // held open, never answered
			mu.Unlock()
		}
	}()
	t.Cleanup(func() {
		l.Close()
		mu.Lock()
		for _, c := range conns {
			c.Close()
		}
		mu.Unlock()
	})
	c, err := New("http://"+l.Addr().String(), WithInfoTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdle()
	ctx := context.Background()
	calls := map[string]func() error{
		"/v1/models": func() error { _, err := c.Models(ctx); return err },
		"/version":   func() error { _, err := c.Version(ctx); return err },
		"/health":    func() error { return c.Health(ctx) },
		"/metrics":   func() error { _, err := c.Metrics(ctx); return err },
		"/tokenize":  func() error { _, err := c.Tokenize(ctx, "m", "hello"); return err },
	}
	for path, call := range calls {
		start := time.Now()
		err := call()
		var silent *SilentError
		if !errors.As(err, &silent) || silent.Path != path || !strings.Contains(err.Error(), "did not answer "+path) {
			t.Errorf("%s: %v (%T), want a SilentError naming it", path, err, err)
		}
		if took := time.Since(start); took > 5*time.Second {
			t.Errorf("%s gave up after %v, want about 200ms", path, took)
		}
	}
	cctx, cancel := context.WithCancel(ctx)
	time.AfterFunc(50*time.Millisecond, cancel)
	if _, err := c.Models(cctx); !errors.Is(err, context.Canceled) {
		t.Errorf("cancelled by the caller: %v, want context.Canceled", err)
	}
}

// TestLongLinesShareABudget: many streams each holding a long unfinished
// line never hold more than LongLineBudget together; the streams that
// would pass it fail with ErrLineTooLong, and every buffer is let go when
// the streams end. Not parallel: longLineBytes is the process's.
func TestLongLinesShareABudget(t *testing.T) {
	const streams = 80 // × 1 MiB buffers: 80 MiB without the budget
	part := []byte(`data: {"choices":[{"text":"` + strings.Repeat("x", 600<<10))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write(part) // 600 KiB of a line, then nothing until the client leaves
		w.(http.Flusher).Flush()
		<-r.Context().Done()
	}))
	defer srv.Close()
	c, err := New(srv.URL, WithConcurrency(streams))
	if err != nil {
		t.Fatal(err)
	}
	defer c.CloseIdle()
	ctx, cancel := context.WithCancel(context.Background())
	var (
		wg           sync.WaitGroup
		overBudget   atomic.Int32
		peak         atomic.Int64
		stopSampling = make(chan struct{})
	)
	go func() {
		for {
			select {
			case <-stopSampling:
				return
			default:
				if v := longLineBytes.Load(); v > peak.Load() {
					peak.Store(v)
				}
				runtime.Gosched()
			}
		}
	}()
	for range streams {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := c.Stream(ctx, CompletionRequest{Model: "m", Prompt: "p", MaxTokens: 1}, nil)
			if errors.Is(err, ErrLineTooLong) && strings.Contains(err.Error(), "MiB budget") {
				overBudget.Add(1)
			}
		}()
	}
	// Let every stream read what it was sent: those within the budget
	// then wait for the rest of their line.
	deadline := time.Now().Add(10 * time.Second)
	for overBudget.Load() == 0 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	time.Sleep(300 * time.Millisecond)
	cancel()
	wg.Wait()
	close(stopSampling)
	if overBudget.Load() == 0 {
		t.Fatal("no stream passed the budget: the test tested nothing")
	}
	if p := peak.Load(); p > LongLineBudget {
		t.Errorf("long lines held %d MiB together, over the %d MiB budget", p>>20, LongLineBudget>>20)
	}
	if n := longLineBytes.Load(); n != 0 {
		t.Errorf("%d bytes still counted after every stream ended", n)
	}
	t.Logf("%d of %d streams refused, peak %d MiB", overBudget.Load(), streams, peak.Load()>>20)
}

// FuzzEndpoint: any text a user pastes as --endpoint either is refused or
// gives a base URL that is http(s), has a host, and ends in none of the API
// suffixes that are cut (issue 30 item 6), so no request path doubles one.
func FuzzEndpoint(f *testing.F) {
	for _, s := range []string{"http://127.0.0.1:8080/v1/completions", "127.0.0.1:8000", "https://h/api/v1/chat/completions/",
		"http://h/v1/v1/completions", "http://h//v1//", "ftp://x", ""} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		c, err := New(s)
		if err != nil {
			return
		}
		u := c.Endpoint()
		if !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "https://") || c.base.Host == "" {
			t.Fatalf("New(%q) base %q is not http(s) with a host", s, u)
		}
		for _, suf := range apiSuffixes {
			if suf != "/v1" && strings.HasSuffix(c.base.Path, suf) {
				t.Fatalf("New(%q) base %q still ends in %s", s, u, suf)
			}
		}
	})
}

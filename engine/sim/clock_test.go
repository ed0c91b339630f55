package sim

import (
	"bufio"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
	"time"
)

// stampedChunk is one content chunk as a stamped stream sends it.
type stampedChunk struct {
	at     int64 // sim_time_us
	tokens int
}

// readStamped reads a stamped SSE response: the arrival header and each
// content chunk's stamp and tokens (continuous usage).
func readStamped(t *testing.T, resp *http.Response) (arrival int64, chunks []stampedChunk) {
	t.Helper()
	arrival, err := strconv.ParseInt(resp.Header.Get(HeaderArrival), 10, 64)
	if err != nil {
		t.Fatalf("%s header %q: %v", HeaderArrival, resp.Header.Get(HeaderArrival), err)
	}
	if sp := resp.Header.Get(HeaderSpeed); sp == "" {
		t.Fatalf("no %s header", HeaderSpeed)
	}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	prev := 0
	for sc.Scan() {
		data, ok := strings.CutPrefix(sc.Text(), "data: ")
		if !ok || data == "[DONE]" {
			continue
		}
		var ch struct {
			At      *int64   `json:"sim_time_us"`
			Choices []choice `json:"choices"`
			Usage   *usage   `json:"usage"`
		}
		if err := json.Unmarshal([]byte(data), &ch); err != nil {
			t.Fatalf("chunk %s: %v", data, err)
		}
		if len(ch.Choices) == 0 || ch.Usage == nil {
			continue
		}
		if ch.At == nil {
			t.Fatalf("content chunk without %s: %s", ChunkTimeField, data)
		}
		chunks = append(chunks, stampedChunk{at: *ch.At, tokens: ch.Usage.CompletionTokens - prev})
		prev = ch.Usage.CompletionTokens
	}
	return arrival, chunks
}

// A reader that reads late gets the same stamps as one that reads at once:
// the first token and the last stand at the same simulated time after the
// request's arrival, whenever the client read them (docs/simulator.md:
// Figures in card time on a busy machine). Without the stamps a late
// reader can only time tokens by when it read them.
func TestStampsDoNotDependOnTheReader(t *testing.T) {
	const tokens = 300
	measure := func(late time.Duration) (first, last int64, chunks int) {
		cfg := fastConfig()
		cfg.Speed = 200
		_, url := newTestServer(t, cfg)
		resp, err := http.Post(url+"/v1/completions", "application/json", strings.NewReader(streamBody("the same prompt", tokens)))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		time.Sleep(late)
		arrival, got := readStamped(t, resp)
		total := 0
		for i, ch := range got {
			total += ch.tokens
			if i > 0 && ch.at < got[i-1].at {
				t.Fatalf("stamps go backwards: %v", got)
			}
		}
		if total != tokens || len(got) == 0 {
			t.Fatalf("read %d tokens in %d chunks, want %d", total, len(got), tokens)
		}
		if got[0].tokens != 1 {
			t.Errorf("the first chunk carries %d tokens; the first token is a chunk of its own (its stamp is the TTFT)", got[0].tokens)
		}
		return got[0].at - arrival, got[len(got)-1].at - arrival, len(got)
	}
	f0, l0, _ := measure(0)
	f1, l1, n1 := measure(300 * time.Millisecond)
	if f0 <= 0 || l0 <= f0 {
		t.Fatalf("stamps after arrival: first %d µs, last %d µs", f0, l0)
	}
	// Stamps and the arrival round to whole microseconds apart.
	if absInt(f1-f0) > 2 || absInt(l1-l0) > 2 {
		t.Errorf("a late reader's stamps moved: first %d µs (at once %d), last %d µs (at once %d)", f1, f0, l1, l0)
	}
	if n1 >= tokens {
		t.Errorf("a late reader got %d chunks for %d tokens: steps released together should share a chunk", n1, tokens)
	}
}

// A handler that takes many steps at once (the host ran it late) writes
// them as chunks of steps that end within the span, not as one chunk whose
// stamp would put them all at its last token; the request's first token
// is always a chunk of its own.
func TestChunkStepsKeepsLateStepsApart(t *testing.T) {
	var steps []stepOut
	for k := range 10 {
		steps = append(steps, stepOut{n: 1, at: 1 + 0.02*float64(k), first: k == 0})
	}
	got := chunkSteps(steps, 0.05)
	want := []stepOut{{1, 1, true}, {3, 1.06, false}, {3, 1.12, false}, {3, 1.18, false}}
	if len(got) != len(want) {
		t.Fatalf("chunks %+v, want %+v", got, want)
	}
	for i := range want {
		if got[i].n != want[i].n || got[i].first != want[i].first || abs(got[i].at-want[i].at) > 1e-9 {
			t.Errorf("chunk %d = %+v, want %+v", i, got[i], want[i])
		}
	}
	kept, cut := truncateChunks(got, 5)
	if !cut || len(kept) != 3 || kept[2].n != 1 {
		t.Errorf("truncated to 5 tokens: %+v (cut %v)", kept, cut)
	}
}

func abs(x float64) float64 {
	if x < 0 {
		return -x
	}
	return x
}

func absInt(x int64) int64 {
	if x < 0 {
		return -x
	}
	return x
}

// lateHeader is a ResponseWriter whose first Header() call, the stream
// handler's first act, waits until the engine has released tokens of the
// request: a handler the host starts late, as on a busy machine.
type lateHeader struct {
	http.ResponseWriter
	s    *Server
	once bool
}

func (w *lateHeader) Header() http.Header {
	if !w.once {
		w.once = true
		deadline := time.Now().Add(5 * time.Second)
		for time.Now().Before(deadline) {
			w.s.mu.Lock()
			released := 0
			for _, st := range w.s.streams {
				released += st.published
			}
			w.s.mu.Unlock()
			if released >= 5 {
				break
			}
			time.Sleep(time.Millisecond)
		}
	}
	return w.ResponseWriter.Header()
}

func (w *lateHeader) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// TestLateHandlerLosesNoToken: tokens the engine released before a stream's
// handler began to stamp its chunks were never written, so on a busy
// machine a client got fewer than max_tokens with finish_reason "length"
// and the cell read Exceeds model length (CI's TestResumeRefusesAnotherLaunch,
// TestStuckServerFailsTheCell). Every token reaches the client, the first
// alone.
func TestLateHandlerLosesNoToken(t *testing.T) {
	const tokens = 40
	cfg := fastConfig()
	cfg.Speed = 200
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Handler().ServeHTTP(&lateHeader{ResponseWriter: w, s: s}, r)
	}))
	t.Cleanup(func() { hs.Close(); s.Close() })
	resp, err := http.Post(hs.URL+"/v1/completions", "application/json", strings.NewReader(streamBody("a late handler", tokens)))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	_, got := readStamped(t, resp)
	total := 0
	for _, ch := range got {
		total += ch.tokens
	}
	if total != tokens {
		t.Fatalf("the client read %d tokens in %d chunks, want all %d", total, len(got), tokens)
	}
	if len(got) == 0 || got[0].tokens != 1 {
		t.Errorf("the first chunk carries %v; the first token is a chunk of its own", got)
	}
}

package predict_test

import (
	"context"
	"errors"
	"fmt"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/vllm"
)

// llamaConfig is Llama 3.1 8B's config.json, the fields a prediction
// reads and a few it does not, as the Hub serves it.
const llamaConfig = `{
  "architectures": ["LlamaForCausalLM"],
  "attention_bias": false,
  "bos_token_id": 128000,
  "eos_token_id": [128001, 128008, 128009],
  "hidden_act": "silu",
  "hidden_size": 4096,
  "initializer_range": 0.02,
  "intermediate_size": 14336,
  "max_position_embeddings": 131072,
  "model_type": "llama",
  "num_attention_heads": 32,
  "num_hidden_layers": 32,
  "num_key_value_heads": 8,
  "rms_norm_eps": 1e-05,
  "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"},
  "rope_theta": 500000.0,
  "tie_word_embeddings": false,
  "torch_dtype": "bfloat16",
  "transformers_version": "4.43.0.dev0",
  "use_cache": true,
  "vocab_size": 128256
}`

// The model the Hub tests ask for, and its two shards' sizes.
const (
	testID         = "acme/llama-test-8b"
	shard1, shard2 = int64(4_976_698_672), int64(1_168_138_808)
)

// hub is a local Hugging Face Hub: /api/models/ID and
// /ID/resolve/main/config.json for the models in config, answering
// status[path] instead when set, and recording each request's path and
// Authorization header.
type hub struct {
	srv    *httptest.Server
	config map[string]string // id → config.json
	status map[string]int    // path → status to answer
	errors map[string]string // path → X-Error-Code
	// redirect, when set, answers that path with a 302 there.
	redirect map[string]string

	mu   sync.Mutex
	seen []string // "path auth" per request
}

func newHub(t *testing.T) *hub {
	t.Helper()
	h := &hub{config: map[string]string{testID: llamaConfig}, status: map[string]int{}, errors: map[string]string{}, redirect: map[string]string{}}
	h.srv = httptest.NewServer(http.HandlerFunc(h.serve))
	t.Cleanup(h.srv.Close)
	return h
}

func (h *hub) serve(w http.ResponseWriter, r *http.Request) {
	h.mu.Lock()
	h.seen = append(h.seen, r.URL.Path+" "+r.Header.Get("Authorization"))
	h.mu.Unlock()
	if to, ok := h.redirect[r.URL.Path]; ok {
		http.Redirect(w, r, to, http.StatusFound)
		return
	}
	if code := h.status[r.URL.Path]; code != 0 {
		if e := h.errors[r.URL.Path]; e != "" {
			w.Header().Set("X-Error-Code", e)
		}
		http.Error(w, http.StatusText(code), code)
		return
	}
	if id, ok := strings.CutPrefix(r.URL.Path, "/api/models/"); ok {
		if _, known := h.config[id]; !known {
			w.Header().Set("X-Error-Code", "RepoNotFound")
			http.Error(w, "Repository not found", http.StatusNotFound)
			return
		}
		// The sizes come only with blobs=true, as on the Hub.
		sized := r.URL.Query().Get("blobs") == "true"
		size := func(n int64) string {
			if !sized {
				return ""
			}
			return fmt.Sprintf(`, "size": %d, "lfs": {"size": %d, "sha256": "x", "pointerSize": 135}`, n, n)
		}
		fmt.Fprintf(w, `{"id": %q, "gated": false, "siblings": [
			{"rfilename": ".gitattributes"%s},
			{"rfilename": "config.json"%s},
			{"rfilename": "model-00001-of-00002.safetensors"%s},
			{"rfilename": "model-00002-of-00002.safetensors"%s},
			{"rfilename": "original/consolidated.safetensors"%s}]}`,
			id, size(1519), size(int64(len(h.config[id]))), size(shard1), size(shard2), size(16<<30))
		return
	}
	if id, ok := strings.CutSuffix(strings.TrimPrefix(r.URL.Path, "/"), "/resolve/main/config.json"); ok {
		if c, known := h.config[id]; known {
			w.Write([]byte(c))
			return
		}
		w.Header().Set("X-Error-Code", "EntryNotFound")
	}
	http.NotFound(w, r)
}

// requests is what the hub has been asked so far.
func (h *hub) requests() []string {
	h.mu.Lock()
	defer h.mu.Unlock()
	return append([]string(nil), h.seen...)
}

// envOf is a Getenv over vars, nothing else set.
func envOf(vars map[string]string) func(string) string {
	return func(k string) string { return vars[k] }
}

// emptyHFHome is a Getenv whose Hugging Face cache is an empty temporary
// folder, so no real cache on the machine answers.
func emptyHFHome(t *testing.T, more ...string) func(string) string {
	vars := map[string]string{"HF_HOME": t.TempDir()}
	for i := 0; i+1 < len(more); i += 2 {
		vars[more[i]] = more[i+1]
	}
	return envOf(vars)
}

// checkLlama checks the facts of Llama 3.1 8B from its config and the
// given safetensors total.
func checkLlama(t *testing.T, m predict.Model, safetensors int64) {
	t.Helper()
	if m.KVBytesPerToken != 131072 {
		t.Errorf("KV bytes per token %v, want 131072 (2 × 32 layers × 8 KV heads × 128 × 2 bytes)", m.KVBytesPerToken)
	}
	if want := float64(safetensors) / vllm.GiB; m.WeightsGiB != want {
		t.Errorf("weights %v GiB, want %v (the top-level safetensors files)", m.WeightsGiB, want)
	}
	if m.MaxLen != 131072 || m.Hidden != 4096 || m.Vocab != 128256 || m.Source != predict.SourceConfig {
		t.Errorf("facts %+v, want max len 131072, hidden 4096, vocab 128256 from %q", m, predict.SourceConfig)
	}
}

// TestLookupFetchThenCached: a model neither built in nor in the Hugging
// Face cache is fetched from the Hub (its file sizes with blobs=true,
// only the top-level safetensors counted, and config.json), kept in
// CacheDir under a plain file name, and found there by the next lookup
// with the Hub gone, also offline.
func TestLookupFetchThenCached(t *testing.T) {
	h := newHub(t)
	cache := filepath.Join(t.TempDir(), "models")
	l := predict.Lookup{HubURL: h.srv.URL, CacheDir: cache, Getenv: emptyHFHome(t)}
	m, err := l.Model(context.Background(), testID)
	if err != nil {
		t.Fatal(err)
	}
	checkLlama(t, m, shard1+shard2)
	if m.ID != testID {
		t.Errorf("id %q, want %q", m.ID, testID)
	}
	want := []string{"/api/models/" + testID + " ", "/" + testID + "/resolve/main/config.json "}
	if got := h.requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("hub asked %q, want %q", got, want)
	}
	entries, err := os.ReadDir(cache)
	if err != nil {
		t.Fatal(err)
	}
	if len(entries) != 1 || entries[0].Name() != "models--acme--llama-test-8b.json" {
		t.Fatalf("cache holds %v, want one file models--acme--llama-test-8b.json", entries)
	}

	h.srv.Close()
	for _, offline := range []bool{false, true} {
		l.Offline = offline
		again, err := l.Model(context.Background(), testID)
		if err != nil {
			t.Fatalf("offline %v, Hub closed: %v", offline, err)
		}
		if again != m {
			t.Errorf("offline %v: cached facts %+v, want the fetched %+v", offline, again, m)
		}
	}
	// The Hub's ids are not case-sensitive, nor is the cache.
	if _, err := l.Model(context.Background(), "ACME/Llama-Test-8B"); err != nil {
		t.Errorf("the id in other case: %v", err)
	}
}

// TestLookupHFCache: a model in the Hugging Face cache is read from its
// newest snapshot (config.json and the sizes of its safetensors files),
// without asking the Hub.
func TestLookupHFCache(t *testing.T) {
	home := t.TempDir()
	model := filepath.Join(home, "hub", "models--acme--llama-test-8b", "snapshots")
	old, newest := filepath.Join(model, "0ld"), filepath.Join(model, "a1b2c3")
	files := map[string]int64{"model-00001-of-00002.safetensors": 3 << 20, "model-00002-of-00002.safetensors": 1 << 20, "tokenizer.json": 9 << 20}
	for _, dir := range []string{old, newest} {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			t.Fatal(err)
		}
		for name, size := range files {
			f, err := os.Create(filepath.Join(dir, name))
			if err != nil {
				t.Fatal(err)
			}
			if err := f.Truncate(size); err != nil {
				t.Fatal(err)
			}
			f.Close()
		}
	}
	if err := os.WriteFile(filepath.Join(newest, "config.json"), []byte(llamaConfig), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(old, "config.json"), []byte(`{"num_hidden_layers": 2, "num_attention_heads": 2, "hidden_size": 64}`), 0o644); err != nil {
		t.Fatal(err)
	}
	long := time.Now().Add(-time.Hour)
	if err := os.Chtimes(old, long, long); err != nil {
		t.Fatal(err)
	}
	h := newHub(t)
	l := predict.Lookup{HubURL: h.srv.URL, Getenv: envOf(map[string]string{"HF_HOME": home})}
	m, err := l.Model(context.Background(), testID)
	if err != nil {
		t.Fatal(err)
	}
	checkLlama(t, m, 4<<20)
	if got := h.requests(); len(got) != 0 {
		t.Errorf("the Hub was asked %q for a model in the Hugging Face cache", got)
	}
	if got := predict.HFSnapshot(testID, envOf(map[string]string{"HF_HUB_CACHE": filepath.Join(home, "hub")})); got != newest {
		t.Errorf("snapshot by HF_HUB_CACHE %q, want the newest, %q", got, newest)
	}
}

// TestLookupBuiltin: the simulator's models are known without any lookup.
func TestLookupBuiltin(t *testing.T) {
	m, err := predict.Lookup{Offline: true, Getenv: emptyHFHome(t)}.Model(context.Background(), vllm.ModelH100)
	if err != nil {
		t.Fatal(err)
	}
	if m.Source != predict.SourceProfile || m.KVBytesPerToken != 131072 {
		t.Errorf("built-in %s: %+v, want the simulator profile's facts", vllm.ModelH100, m)
	}
}

// TestLookupHubErrors: each way the Hub says no is one sentence saying
// what to do, known to errors.Is, and nothing is kept.
func TestLookupHubErrors(t *testing.T) {
	api, config := "/api/models/"+testID, "/"+testID+"/resolve/main/config.json"
	for _, tc := range []struct {
		name      string
		id        string
		token     string
		status    map[string]int
		errorCode map[string]string
		config    string
		kind      error
		want      []string
	}{
		{name: "unknown model", id: "acme/nothing-here", kind: predict.ErrNotOnHub,
			want: []string{"acme/nothing-here was not found on the Hugging Face Hub", "check its id"}},
		{name: "anonymous 401 for a missing repo", id: testID, status: map[string]int{api: 401}, errorCode: map[string]string{api: "RepoNotFound"},
			kind: predict.ErrNotOnHub, want: []string{"not found on the Hugging Face Hub"}},
		{name: "gated, no token", id: testID, status: map[string]int{config: 401}, kind: predict.ErrGated,
			want: []string{"is gated", "accept its licence", "/" + testID, "set HF_TOKEN"}},
		{name: "gated, token not granted", id: testID, token: "hf_secret_token", status: map[string]int{config: 403}, errorCode: map[string]string{config: "GatedRepo"},
			kind: predict.ErrGated, want: []string{"is gated", "HF_TOKEN may not read it", "accept its licence"}},
		{name: "no config.json", id: testID, status: map[string]int{config: 404}, errorCode: map[string]string{config: "EntryNotFound"},
			kind: predict.ErrNoFacts, want: []string{"has no config.json", "by hand"}},
		{name: "Hub failing", id: testID, status: map[string]int{api: 503}, kind: predict.ErrNoFacts,
			want: []string{"HTTP 503", "put the model's config.json in the Hugging Face cache", "by hand"}},
		{name: "malformed config", id: testID, config: `{"num_hidden_layers": "thirty-two", `, kind: predict.ErrNoFacts,
			want: []string{"config.json of the model " + testID, "cannot be used", "by hand"}},
		{name: "config without a shape", id: testID, config: `{"model_type": "llama"}`, kind: predict.ErrNoFacts,
			want: []string{"cannot be used", "num_hidden_layers"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := newHub(t)
			h.status, h.errors = tc.status, tc.errorCode
			if h.status == nil {
				h.status = map[string]int{}
			}
			if h.errors == nil {
				h.errors = map[string]string{}
			}
			if tc.config != "" {
				h.config[testID] = tc.config
			}
			cache := t.TempDir()
			l := predict.Lookup{HubURL: h.srv.URL, CacheDir: cache, Getenv: emptyHFHome(t, "HF_TOKEN", tc.token)}
			_, err := l.Model(context.Background(), tc.id)
			if err == nil {
				t.Fatal("no error")
			}
			if !errors.Is(err, tc.kind) {
				t.Errorf("error %q is not %v", err, tc.kind)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
			if tc.token != "" && strings.Contains(err.Error(), tc.token) {
				t.Errorf("error %q shows the token", err)
			}
			if strings.Count(err.Error(), ". ") > 0 || strings.Contains(err.Error(), "\n") {
				t.Errorf("error %q is more than one sentence", err)
			}
			if entries, _ := os.ReadDir(cache); len(entries) != 0 {
				t.Errorf("a failed lookup kept %v", entries)
			}
		})
	}
}

// TestLookupNothingCached: with the Hub unreachable, or offline, and
// nothing on the machine, the error says what is needed and where to put
// it; offline, nothing is asked.
func TestLookupNothingCached(t *testing.T) {
	h := newHub(t)
	closed := httptest.NewServer(http.NotFoundHandler())
	closed.Close()
	home := t.TempDir()
	where := filepath.Join(home, "hub", "models--acme--llama-test-8b", "snapshots", "main", "config.json")
	for _, tc := range []struct {
		name string
		l    predict.Lookup
		why  string
	}{
		{"unreachable", predict.Lookup{HubURL: closed.URL}, "could not reach the Hugging Face Hub"},
		{"offline", predict.Lookup{HubURL: h.srv.URL, Offline: true}, "RigBench is offline"},
		{"HF_HUB_OFFLINE", predict.Lookup{HubURL: h.srv.URL, Getenv: envOf(map[string]string{"HF_HOME": home, "HF_HUB_OFFLINE": "1"})}, "RigBench is offline"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.l.Getenv == nil {
				tc.l.Getenv = envOf(map[string]string{"HF_HOME": home})
			}
			tc.l.CacheDir = t.TempDir()
			_, err := tc.l.Model(context.Background(), testID)
			if !errors.Is(err, predict.ErrNoFacts) {
				t.Fatalf("error %v, want ErrNoFacts", err)
			}
			for _, w := range []string{tc.why, "put the model's config.json in the Hugging Face cache (" + where + ")", "give the weights' size and KV bytes per token by hand"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q lacks %q", err, w)
				}
			}
		})
	}
	if got := h.requests(); len(got) != 0 {
		t.Errorf("offline lookups asked the Hub %q", got)
	}
}

// TestLookupTokenStaysOnHub: HF_TOKEN goes to the Hub, also after a
// redirect on the Hub itself (a renamed repo), and not to another server
// a redirect leads to, even one on the same host name (another port),
// which Go's own redirect rule would send it to.
func TestLookupTokenStaysOnHub(t *testing.T) {
	const token = "hf_test_token_not_for_others"
	var mu sync.Mutex
	var other []string
	cdn := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		other = append(other, r.URL.Path+" "+r.Header.Get("Authorization"))
		mu.Unlock()
		w.Write([]byte(llamaConfig))
	}))
	defer cdn.Close()
	h := newHub(t)
	renamed := "/acme/renamed/resolve/main/config.json"
	h.redirect["/"+testID+"/resolve/main/config.json"] = renamed
	h.redirect[renamed] = cdn.URL + "/blob/config.json"

	// A caller's client keeps its own redirect rule, and is not changed.
	var hops int
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { hops++; return nil }}
	l := predict.Lookup{HubURL: h.srv.URL, Client: client, Getenv: emptyHFHome(t, "HF_TOKEN", token)}
	m, err := l.Model(context.Background(), testID)
	if err != nil {
		t.Fatal(err)
	}
	checkLlama(t, m, shard1+shard2)
	bearer := "Bearer " + token
	want := []string{"/api/models/" + testID + " " + bearer, "/" + testID + "/resolve/main/config.json " + bearer, renamed + " " + bearer}
	if got := h.requests(); strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("the Hub saw %q, want the token on each of %q", got, want)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(other) != 1 || other[0] != "/blob/config.json " {
		t.Errorf("the other server saw %q, want one request without the token", other)
	}
	if hops != 2 || client.CheckRedirect == nil || client.Timeout != 0 {
		t.Errorf("the caller's redirect rule ran %d times, want 2", hops)
	}
}

// TestLookupLimits: an id that is not org/name is refused before any
// file or URL is made of it, and an answer larger than the Hub's is not
// read to its end.
func TestLookupLimits(t *testing.T) {
	h := newHub(t)
	l := predict.Lookup{HubURL: h.srv.URL, Getenv: emptyHFHome(t)}
	for _, id := range []string{"", "llama", "/acme/x", "acme/../x", "acme/x/y", "acme/..", "a--b/c", "acme/x?blobs=false", "acme/-x", "acme/x.", "acme/ x"} {
		if _, err := l.Model(context.Background(), id); err == nil || !strings.Contains(err.Error(), "org/name") {
			t.Errorf("id %q: %v, want the org/name sentence", id, err)
		}
	}
	if got := h.requests(); len(got) != 0 {
		t.Errorf("bad ids asked the Hub %q", got)
	}

	big := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		chunk := []byte(strings.Repeat(" ", 1<<20))
		w.Write([]byte(`{"siblings": [`))
		for range 64 {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
		w.Write([]byte(`]}`))
	}))
	defer big.Close()
	l.HubURL = big.URL
	_, err := l.Model(context.Background(), testID)
	if !errors.Is(err, predict.ErrNoFacts) || !strings.Contains(err.Error(), "larger than any it gives") {
		t.Errorf("a 64 MiB answer: %v, want it refused as too large", err)
	}
}

// TestCheckID: the Hub's own ids pass.
func TestCheckID(t *testing.T) {
	for _, id := range []string{testID, vllm.ModelH100, "Qwen/Qwen2.5-0.5B-Instruct", "google/gemma-3-27b-it", "mistralai/Mistral-7B-Instruct-v0.3", "a/b", "o_o/x_y.z"} {
		if err := predict.CheckID(id); err != nil {
			t.Errorf("%q: %v", id, err)
		}
	}
	if err := predict.CheckID(strings.Repeat("a", 97) + "/b"); err == nil {
		t.Error("an org of 97 characters passed")
	}
}

// TestParamsOfTiedModel: a model whose output head is its embeddings
// counts that matrix once; an untied one twice.
func TestParamsOfTiedModel(t *testing.T) {
	tied, err := predict.ParseConfig([]byte(`{"num_hidden_layers": 2, "num_attention_heads": 4, "hidden_size": 256, "intermediate_size": 512, "vocab_size": 1000, "tie_word_embeddings": true}`))
	if err != nil {
		t.Fatal(err)
	}
	untied := tied
	f := false
	untied.TiedEmbeddings = &f
	if d := untied.ParamsEstimate() - tied.ParamsEstimate(); math.Abs(d-1000*256) > 0.5 {
		t.Errorf("untied − tied = %v parameters, want the head's 1000 × 256", d)
	}
}

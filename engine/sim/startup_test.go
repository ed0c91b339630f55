package sim

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

// startWith starts a server on cfg behind real HTTP and returns what its
// start-up log told vLLM's own log reader, and /health's status code.
func startWith(t *testing.T, cfg Config) (vllm.FactsSnapshot, int) {
	t.Helper()
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	var log strings.Builder
	s.WriteStartupLog(&log)
	facts := vllm.NewStartupFacts(16)
	for _, line := range strings.Split(log.String(), "\n") {
		facts.Observe(line)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(hs.Close)
	resp, err := http.Get(hs.URL + "/health")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return facts.Snapshot(), resp.StatusCode
}

// TestCompileCacheImitation: the first start with an empty cache folder
// compiles (the profile's CompileSeconds) and writes its marker, a second
// start of the same configuration loads it (CompileCachedSeconds, with
// vLLM's "Directly load" line), another configuration compiles again, and
// the log says each in the words vLLM's log reader knows. With a cache
// root, /health answers 503 during the simulated start-up (at speed 1 it
// lasts the profile's minutes); without one the server is ready at once.
func TestCompileCacheImitation(t *testing.T) {
	p := DefaultProfile()
	dir := t.TempDir()
	cfg := DefaultConfig()
	cfg.CompileCache = dir

	first, health := startWith(t, cfg)
	if first.CompileS != p.CompileSeconds || first.CompileCacheHit || first.WeightsS != p.LoadSeconds ||
		first.GraphCaptureS != p.GraphCaptureSeconds || first.WeightsGiB != p.WeightsGiB {
		t.Errorf("first start: %+v, want a cold compile of %.2f s", first, p.CompileSeconds)
	}
	if health != http.StatusServiceUnavailable {
		t.Errorf("/health during the simulated start-up = %d, want 503", health)
	}
	markers, _ := filepath.Glob(filepath.Join(dir, "torch_compile_cache", "*", "rank_0_0", "backbone", compileMarker))
	if len(markers) != 1 {
		t.Fatalf("the first start left %d markers in %s", len(markers), dir)
	}

	second, _ := startWith(t, cfg)
	if second.CompileS != p.CompileCachedSeconds || !second.CompileCacheHit {
		t.Errorf("second start: %+v, want the cached compile of %.2f s", second, p.CompileCachedSeconds)
	}
	cold := p.LoadSeconds + p.CompileSeconds + p.GraphCaptureSeconds
	warm := p.LoadSeconds + p.CompileCachedSeconds + p.GraphCaptureSeconds
	t.Logf("simulated start-up: %.1f s cold, %.1f s with the cache (%.0f%% less)", cold, warm, 100*(1-warm/cold))

	other := cfg
	other.MaxNumSeqs = 16
	if third, _ := startWith(t, other); third.CompileCacheHit || third.CompileS != p.CompileSeconds {
		t.Errorf("another configuration found the first one's graphs: %+v", third)
	}
	if markers, _ = filepath.Glob(filepath.Join(dir, "torch_compile_cache", "*", "rank_0_0", "backbone", compileMarker)); len(markers) != 2 {
		t.Errorf("%d markers after two configurations", len(markers))
	}

	none := DefaultConfig()
	if facts, health := startWith(t, none); health != http.StatusOK || facts.CompileS != p.CompileSeconds {
		t.Errorf("without a cache root: /health %d, %+v; want ready at once with a cold compile logged", health, facts)
	}
}

// A cache root that cannot be written fails the start, as vLLM's would.
func TestCompileCacheUnwritable(t *testing.T) {
	file := filepath.Join(t.TempDir(), "file")
	if err := os.WriteFile(file, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.CompileCache = file
	if s, err := New(cfg); err == nil {
		s.Close()
		t.Fatal("a cache root that is a file should fail the start")
	} else if !strings.Contains(err.Error(), "compile cache") {
		t.Errorf("error %q does not name the compile cache", err)
	}
}

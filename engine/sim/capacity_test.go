package sim

import (
	"strings"
	"testing"
)

func TestDefaultKVCapacityMatchesReference(t *testing.T) {
	s, err := New(DefaultConfig())
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	// The reference statuses bound K to [393216, 524287]; vLLM's log
	// line on that card says 431,632.
	if got := s.KVCapacityTokens(); got != 431632 {
		t.Errorf("KV capacity %d, want 431632", got)
	}
	if s.MaxModelLen() != 262144 || s.Model() != "agents/a1-4b-fp8" {
		t.Errorf("max_model_len %d model %q", s.MaxModelLen(), s.Model())
	}
	var log strings.Builder
	s.WriteStartupLog(&log)
	for _, want := range []string{
		"vLLM API server version 0.32.0-sim",
		"GPU KV cache size: 431,632 tokens",
		"Maximum concurrency for 262,144 tokens per request: 1.65x",
		"Application startup complete.",
	} {
		if !strings.Contains(log.String(), want) {
			t.Errorf("start-up log lacks %q:\n%s", want, log.String())
		}
	}
}

func TestKVCapacityRespondsToFlags(t *testing.T) {
	capacity := func(args ...string) int {
		c, err := ParseArgs(append(args, "--max-model-len", "8192"))
		if err != nil {
			t.Fatal(err)
		}
		s, err := New(c)
		if err != nil {
			t.Fatal(err)
		}
		defer s.Close()
		return s.KVCapacityTokens()
	}
	base := capacity()
	fp8 := capacity("--kv-cache-dtype", "fp8")
	if d := fp8 - 2*base; d < -32 || d > 32 {
		t.Errorf("fp8 capacity %d, want about twice %d", fp8, base)
	}
	if hi, lo := capacity("--gpu-memory-utilization", "0.95"), capacity("--gpu-memory-utilization", "0.8"); !(lo < base && base < hi) {
		t.Errorf("capacity does not follow utilisation: 0.8→%d 0.9→%d 0.95→%d", lo, base, hi)
	}
}

func TestMaxModelLenLargerThanKVCacheFails(t *testing.T) {
	c := DefaultConfig()
	c.GPUMemoryUtilization = 0.7
	_, err := New(c)
	if err == nil {
		t.Fatal("started with max_model_len larger than the KV cache")
	}
	msg := err.Error()
	for _, want := range []string{
		"ValueError: To serve at least one request with the model's max seq len (262144), (2.00 GiB KV cache is needed, which is larger than the available KV cache memory (",
		"Based on the available memory, the estimated maximum model length is ",
		"Try increasing `gpu_memory_utilization` or decreasing `max_model_len` when initializing the engine.",
	} {
		if !strings.Contains(msg, want) {
			t.Errorf("message lacks %q:\n%s", want, msg)
		}
	}
	// The estimate is itself a length that starts.
	est := msg[strings.Index(msg, "length is ")+len("length is "):]
	est = est[:strings.Index(est, ".")]
	c2, err := ParseArgs([]string{"--gpu-memory-utilization", "0.7", "--max-model-len", est})
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c2)
	if err != nil {
		t.Fatalf("the estimated length %s does not start: %v", est, err)
	}
	s.Close()
	c.GPUMemoryUtilization = 0.5
	if _, err := New(c); err == nil || !strings.Contains(err.Error(), "No available memory for the cache blocks") {
		t.Errorf("no memory left: %v", err)
	}
}

func TestProfiles(t *testing.T) {
	for _, n := range ProfileNames() {
		p, err := ProfileByName(n)
		if err != nil || p.Name != n {
			t.Fatalf("%s: %v", n, err)
		}
		c := DefaultConfig()
		c.Profile = p
		s, err := New(c)
		if err != nil {
			t.Fatalf("profile %s does not start with its defaults: %v", n, err)
		}
		if s.KVCapacityTokens() < s.MaxModelLen() {
			t.Errorf("%s: capacity %d below max_model_len %d", n, s.KVCapacityTokens(), s.MaxModelLen())
		}
		s.Close()
	}
	if _, err := ProfileByName("x"); err == nil {
		t.Error("unknown profile accepted")
	}
}

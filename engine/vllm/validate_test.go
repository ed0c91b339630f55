package vllm_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

func TestValidate(t *testing.T) {
	t.Parallel()
	base := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.6.3", Model: "Qwen/Qwen2.5-1.5B", GPUs: "all"}
	cases := []struct {
		name    string
		edit    func(c *vllm.LaunchConfig)
		field   string
		message string // a fragment of the message; "" = no error expected
	}{
		{"fine", func(c *vllm.LaunchConfig) { c.Set("--max-model-len", "32K") }, "", ""},
		{"no model", func(c *vllm.LaunchConfig) { c.Model = "" }, "model", "Choose a model"},
		{"out of range", func(c *vllm.LaunchConfig) { c.Set("--gpu-memory-utilization", "1.5") },
			"--gpu-memory-utilization", "must be above 0 and at most 1; 1.5 is out of range"},
		{"zero utilization", func(c *vllm.LaunchConfig) { c.Set("--gpu-memory-utilization", "0") }, "--gpu-memory-utilization", "above 0"},
		{"wrong type", func(c *vllm.LaunchConfig) { c.Set("--max-num-seqs", "lots") }, "--max-num-seqs", `whole number, not "lots"`},
		{"batched below seqs", func(c *vllm.LaunchConfig) {
			c.Set("--max-num-seqs", "256")
			c.Set("--max-num-batched-tokens", "128")
		}, "--max-num-batched-tokens", "must be at least --max-num-seqs (256)"},
		{"dtype too new for image", func(c *vllm.LaunchConfig) { c.Set("--kv-cache-dtype", "nvfp4") },
			"--kv-cache-dtype", "needs vLLM 0.12.0 or newer, and image tag 0.6.3 is older"},
		{"dtype not a choice", func(c *vllm.LaunchConfig) { c.Set("--kv-cache-dtype", "fp4") }, "--kv-cache-dtype", "is not one of"},
		{"flag too new", func(c *vllm.LaunchConfig) { c.Set("--async-scheduling", "true") }, "--async-scheduling", "needs vLLM 0.10.1"},
		{"flag removed", func(c *vllm.LaunchConfig) { c.Tag = "v0.12.0"; c.Set("--swap-space", "4") }, "--swap-space", "was removed"},
		{"bad json", func(c *vllm.LaunchConfig) { c.Set("--limit-mm-per-prompt", "{image:0") }, "--limit-mm-per-prompt", "must be JSON"},
		{"bad gpus", func(c *vllm.LaunchConfig) { c.GPUs = "first" }, "gpus", "not understood"},
		{"tp above gpus", func(c *vllm.LaunchConfig) { c.GPUs = "0"; c.Set("-tp", "2") }, "--tensor-parallel-size", "needs 2 GPUs"},
		{"inline token empty", func(c *vllm.LaunchConfig) { c.TokenSource = vllm.TokenInline }, "hf_token", "token is empty"},
		{"latest accepts new values", func(c *vllm.LaunchConfig) { c.Tag = "latest"; c.Set("--kv-cache-dtype", "nvfp4") }, "", ""},
	}
	for _, tc := range cases {
		c := base
		tc.edit(&c)
		errs := vllm.Errors(c.Validate())
		if tc.message == "" {
			if len(errs) > 0 {
				t.Errorf("%s: unexpected %v", tc.name, errs)
			}
			continue
		}
		found := false
		for _, e := range errs {
			if e.Field == tc.field && strings.Contains(e.Message, tc.message) {
				found = true
			}
			if !strings.HasSuffix(e.Message, ".") || strings.Contains(e.Message, "\n") {
				t.Errorf("%s: %q is not one sentence", tc.name, e.Message)
			}
		}
		if !found {
			t.Errorf("%s: want %s error containing %q, got %v", tc.name, tc.field, tc.message, errs)
		}
	}
}

func TestValidateWarnings(t *testing.T) {
	t.Parallel()
	c := vllm.LaunchConfig{Model: "m"}
	c.Set("--port", "9000")
	c.Set("--quantization", "somethingnew")
	got := c.Validate()
	if len(vllm.Errors(got)) != 0 || len(got) != 2 {
		t.Fatalf("want two warnings, got %v", got)
	}
	for _, w := range got {
		if w.Severity != vllm.SeverityWarning {
			t.Errorf("%v should be a warning", w)
		}
	}
}

func TestParseInt(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]int64{"32k": 32000, "32K": 32768, "1M": 1 << 20, "8192": 8192} {
		if got, ok := vllm.ParseInt(in, true); !ok || got != want {
			t.Errorf("ParseInt(%q) = %d, %v; want %d", in, got, ok, want)
		}
	}
	if _, ok := vllm.ParseInt("9999999999999999999G", true); ok {
		t.Error("overflow accepted")
	}
}

func TestPresets(t *testing.T) {
	t.Parallel()
	names := map[string]bool{}
	for _, p := range vllm.Presets() {
		names[p.Name] = true
		for _, tag := range []string{"v0.6.3", "v0.10.1.1", "latest"} {
			c := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: tag, Model: "m", GPUs: "all",
				Flags: []vllm.FlagValue{{Name: "--seed", Value: "1"}}}
			got := p.Apply(c)
			if errs := vllm.Errors(got.Validate()); len(errs) > 0 {
				t.Errorf("%s on %s: %v", p.Name, tag, errs)
			}
			if p.ClearAll != (len(got.Flags) == 0) {
				t.Errorf("%s on %s: flags %v", p.Name, tag, got.Flags)
			}
		}
	}
	for _, want := range []string{"Untuned baseline", "Longest context", "Most throughput", "Low VRAM (fp8 KV cache)"} {
		if !names[want] {
			t.Errorf("missing preset %q", want)
		}
	}
	old := vllm.LaunchConfig{Tag: "v0.6.3"}
	for _, p := range vllm.Presets() {
		if p.Name == "Most throughput" {
			if _, ok := p.Apply(old).Get("--async-scheduling"); ok {
				t.Error("a preset must skip flags the image lacks")
			}
		}
	}
}

func TestParseVersion(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{"v0.6.3": "0.6.3", "0.10.1.1": "0.10.1", "v0.11.0-cu129": "0.11.0", "0.6.3.post1": "0.6.3"} {
		v, ok := vllm.ParseVersion(in)
		if !ok || v.String() != want {
			t.Errorf("ParseVersion(%q) = %v, %v", in, v, ok)
		}
	}
	for _, in := range []string{"latest", "nightly", "0.6", "sha256:abc"} {
		if _, ok := vllm.ParseVersion(in); ok {
			t.Errorf("ParseVersion(%q) should fail", in)
		}
	}
}

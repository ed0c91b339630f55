package vllm_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

// The form is generated from the catalog, so every entry must be complete
// and self-consistent.
func TestCatalogEntriesAreComplete(t *testing.T) {
	t.Parallel()
	widgetFor := map[vllm.Kind][]vllm.Widget{
		vllm.KindInt:    {vllm.WidgetIntSlider},
		vllm.KindFloat:  {vllm.WidgetFloatSlider},
		vllm.KindBool:   {vllm.WidgetToggle},
		vllm.KindEnum:   {vllm.WidgetDropdown},
		vllm.KindString: {vllm.WidgetText},
		vllm.KindJSON:   {vllm.WidgetJSON},
	}
	seen := map[string]bool{}
	for _, f := range vllm.Catalog() {
		if !strings.HasPrefix(f.Name, "--") {
			t.Errorf("%s: name must start with --", f.Name)
		}
		for _, s := range append(append([]string{f.Name}, f.Aliases...), f.Negation) {
			if s == "" {
				continue
			}
			if seen[s] {
				t.Errorf("spelling %s used twice", s)
			}
			seen[s] = true
			got, _, ok := vllm.Lookup(s)
			if !ok || got.Name != f.Name {
				t.Errorf("Lookup(%s) = %s, %v; want %s", s, got.Name, ok, f.Name)
			}
		}
		if f.Help == "" || f.Group == "" {
			t.Errorf("%s: help and group are required", f.Name)
		}
		if !slices.Contains(widgetFor[f.Type], f.Widget) {
			t.Errorf("%s: widget %s does not fit type %s", f.Name, f.Widget, f.Type)
		}
		if f.Type == vllm.KindEnum && len(f.Allowed) == 0 {
			t.Errorf("%s: enum without allowed values", f.Name)
		}
		if (f.Widget == vllm.WidgetIntSlider || f.Widget == vllm.WidgetFloatSlider) && (!f.HasRange || f.Step <= 0 || f.Max <= f.Min) {
			t.Errorf("%s: a slider needs a range and a step", f.Name)
		}
		if f.Default != "" && !f.Managed {
			c := vllm.LaunchConfig{Model: "m"}
			c.Set(f.Name, f.Default)
			if errs := vllm.Errors(c.Validate()); len(errs) > 0 {
				t.Errorf("%s: default %q fails validation: %v", f.Name, f.Default, errs)
			}
		}
	}
}

// Every flag shared/VLLM.md lists as worth a form field is in the catalog.
func TestCatalogCoversVLLMNotes(t *testing.T) {
	t.Parallel()
	for _, name := range []string{"--max-model-len", "--gpu-memory-utilization", "--max-num-seqs",
		"--max-num-batched-tokens", "--enable-prefix-caching", "--no-enable-prefix-caching", "--kv-cache-dtype",
		"--quantization", "--dtype", "--tensor-parallel-size", "--enforce-eager", "--trust-remote-code",
		"--served-model-name", "--cpu-offload-gb", "--speculative-config", "--attention-backend",
		"--language-model-only", "--limit-mm-per-prompt", "--compilation-config", "--async-scheduling",
		"--api-key", "--port", "--host", "--swap-space"} {
		if _, _, ok := vllm.Lookup(name); !ok {
			t.Errorf("catalog lacks %s", name)
		}
	}
}

func TestCatalogIsACopy(t *testing.T) {
	t.Parallel()
	a := vllm.Catalog()
	a[0].Name = "--changed"
	if vllm.Catalog()[0].Name == "--changed" {
		t.Fatal("Catalog returned its internal slice")
	}
}

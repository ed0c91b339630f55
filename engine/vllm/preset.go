package vllm

// Preset is a named set of flag values a user starts from. Applying one
// replaces every catalog flag the preset touches and clears the others it
// lists as Clear, keeping the model, image, GPUs and everything else.
type Preset struct {
	Name        string      `json:"name"`
	Description string      `json:"description"`
	Flags       []FlagValue `json:"flags"`
	// ClearAll removes every catalog flag first (the untuned baseline).
	ClearAll bool `json:"clear_all,omitempty"`
}

// Presets returns the built-in presets.
func Presets() []Preset {
	return []Preset{
		{
			Name:        "Untuned baseline",
			Description: "vLLM's own defaults: no tuning flags, to measure what tuning gains.",
			ClearAll:    true,
		},
		{
			Name: "Longest context",
			Description: "Few requests at once and most of the card for the KV cache, so one request can " +
				"use the model's full context.",
			Flags: []FlagValue{
				{"--gpu-memory-utilization", "0.95"},
				{"--max-num-seqs", "4"},
				{"--enable-prefix-caching", "true"},
			},
		},
		{
			Name: "Most throughput",
			Description: "Many requests at once with large scheduler steps and asynchronous scheduling, " +
				"for the most tokens per second over all users.",
			Flags: []FlagValue{
				{"--gpu-memory-utilization", "0.95"},
				{"--max-num-seqs", "256"},
				{"--max-num-batched-tokens", "8192"},
				{"--enable-prefix-caching", "true"},
				{"--async-scheduling", "true"},
			},
		},
		{
			Name: "Low VRAM (fp8 KV cache)",
			Description: "An fp8 KV cache, a shorter context, fewer requests and no CUDA graphs, so a model " +
				"fits on a small card.",
			Flags: []FlagValue{
				{"--kv-cache-dtype", "fp8"},
				{"--gpu-memory-utilization", "0.85"},
				{"--max-model-len", "8192"},
				{"--max-num-seqs", "16"},
				{"--enforce-eager", "true"},
			},
		},
	}
}

// Apply returns c with the preset's flags. Flags the image's vLLM version
// lacks are skipped, so a preset never makes a valid config invalid.
func (p Preset) Apply(c LaunchConfig) LaunchConfig {
	if p.ClearAll {
		c.Flags = nil
	}
	img, known := c.ImageVersion()
	for _, fv := range p.Flags {
		f, _, ok := Lookup(fv.Name)
		if !ok || before(img, known, f.Since) || f.Until != "" && known && !before(img, known, f.Until) {
			continue
		}
		if before(img, known, f.ValueSince[fv.Value]) {
			continue
		}
		c.Set(fv.Name, fv.Value)
	}
	return c
}

package vllm

// The catalog: every flag worth a form field (shared/VLLM.md, "Flags worth a
// form field"). Versions are vLLM releases. Since/Until and ValueSince are the
// first release RigBench's notes confirm has (or no longer has) a flag or
// value; validation uses them only when the image tag names a version, so a
// "latest" or "nightly" image is never refused.

// newKVDtypes: the first release known to accept the newest --kv-cache-dtype values.
const newKVDtypes = "0.12.0"

var catalog = []Flag{
	{
		Name: "--max-model-len", Type: KindInt, Widget: WidgetIntSlider,
		HasRange: true, Min: 256, Max: 1048576, Step: 256, Suffixes: true,
		Specials:   []string{"auto", "-1"},
		ValueSince: map[string]string{"auto": "0.12.0", "-1": "0.12.0"},
		Help:       "Longest prompt plus output one request may use; defaults to the model's own limit.",
		Group:      GroupMemory,
	},
	{
		Name: "--gpu-memory-utilization", Type: KindFloat, Widget: WidgetFloatSlider,
		Default: "0.9", HasRange: true, Min: 0, MinExclusive: true, Max: 1, Step: 0.01,
		Help:  "Share of the card's memory vLLM may take for weights, activations and KV cache.",
		Group: GroupMemory,
	},
	{
		Name: "--kv-cache-dtype", Type: KindEnum, Widget: WidgetDropdown, Default: "auto",
		Allowed: []string{"auto", "fp8", "fp8_e4m3", "fp8_e5m2", "float16", "bfloat16",
			"fp8_per_token_head", "int8_per_token_head", "int4_per_token_head", "nvfp4"},
		ValueSince: map[string]string{
			"float16": newKVDtypes, "bfloat16": newKVDtypes, "fp8_per_token_head": newKVDtypes,
			"int8_per_token_head": newKVDtypes, "int4_per_token_head": newKVDtypes, "nvfp4": newKVDtypes,
		},
		Help:  "Data type of the KV cache; fp8 roughly doubles the tokens it holds at a small accuracy cost.",
		Group: GroupMemory,
	},
	{
		Name: "--cpu-offload-gb", Type: KindFloat, Widget: WidgetFloatSlider, Default: "0",
		HasRange: true, Min: 0, Max: 512, Step: 1, Since: "0.5.3",
		Help:  "GiB of weights kept in CPU memory, to fit a model larger than the card (slow).",
		Group: GroupMemory,
	},
	{
		Name: "--swap-space", Type: KindFloat, Widget: WidgetFloatSlider, Default: "4",
		HasRange: true, Min: 0, Max: 256, Step: 1, Until: "0.12.0",
		Help:  "GiB of CPU memory per GPU for swapped-out requests (removed in new versions).",
		Group: GroupMemory,
	},
	{
		Name: "--block-size", Type: KindEnum, Widget: WidgetDropdown, Default: "16",
		Allowed: []string{"8", "16", "32", "64", "128"},
		Help:    "Tokens per KV-cache block; prefix caching shares whole blocks only.",
		Group:   GroupMemory,
	},
	{
		Name: "--max-num-seqs", Type: KindInt, Widget: WidgetIntSlider,
		HasRange: true, Min: 1, Max: 4096, Step: 1,
		Help:  "Most requests the server runs at once; more wait in a queue (256 on cards under 70 GiB).",
		Group: GroupScheduling,
	},
	{
		Name: "--max-num-batched-tokens", Type: KindInt, Widget: WidgetIntSlider,
		HasRange: true, Min: 1, Max: 1048576, Step: 256, Suffixes: true,
		Help:  "Most tokens processed in one scheduler step (2048 on cards under 70 GiB); at least --max-num-seqs.",
		Group: GroupScheduling,
	},
	{
		Name: "--enable-prefix-caching", Negation: "--no-enable-prefix-caching",
		Type: KindBool, Widget: WidgetToggle,
		Help:  "Reuse the KV cache of prompts that start the same way (on by default in the V1 engine).",
		Group: GroupScheduling,
	},
	{
		Name: "--enable-chunked-prefill", Negation: "--no-enable-chunked-prefill",
		Type: KindBool, Widget: WidgetToggle,
		Help:  "Split long prompts into chunks so decoding requests keep running meanwhile.",
		Group: GroupScheduling,
	},
	{
		Name: "--async-scheduling", Type: KindBool, Widget: WidgetToggle, Since: "0.10.1",
		Help:  "Schedule the next step while the current one runs, for higher throughput.",
		Group: GroupScheduling,
	},
	{
		Name: "--scheduling-policy", Type: KindEnum, Widget: WidgetDropdown, Default: "fcfs",
		Allowed: []string{"fcfs", "priority"},
		Help:    "Order in which waiting requests are admitted.",
		Group:   GroupScheduling,
	},
	{
		Name: "--dtype", Type: KindEnum, Widget: WidgetDropdown, Default: "auto",
		Allowed: []string{"auto", "half", "float16", "bfloat16", "float", "float32"},
		Help:    "Data type of weights and activations; cards older than Ampere need half.",
		Group:   GroupModel,
	},
	{
		Name: "--quantization", Aliases: []string{"-q"}, Type: KindEnum, Widget: WidgetDropdown, Open: true,
		Allowed: []string{"awq", "awq_marlin", "gptq", "gptq_marlin", "marlin", "fp8", "bitsandbytes",
			"gguf", "compressed-tensors", "experts_int8", "modelopt", "mxfp4"},
		Help:  "Quantisation method of the weights; normally read from the checkpoint.",
		Group: GroupModel,
	},
	{
		Name: "--served-model-name", Type: KindString, Widget: WidgetText,
		Help:  "Name clients use for the model in requests; defaults to the model id.",
		Group: GroupModel,
	},
	{
		Name: "--tokenizer", Type: KindString, Widget: WidgetText,
		Help:  "Hugging Face id of a different tokenizer; defaults to the model's.",
		Group: GroupModel,
	},
	{
		Name: "--revision", Type: KindString, Widget: WidgetText,
		Help:  "Branch, tag or commit of the model repository.",
		Group: GroupModel,
	},
	{
		Name: "--trust-remote-code", Type: KindBool, Widget: WidgetToggle,
		Help:  "Run the model repository's own Python code; only for models you trust.",
		Group: GroupModel,
	},
	{
		Name: "--language-model-only", Type: KindBool, Widget: WidgetToggle, Since: "0.12.0",
		Help:  "Skip the vision or audio parts of a multimodal model to save memory.",
		Group: GroupModel,
	},
	{
		Name: "--limit-mm-per-prompt", Type: KindJSON, Widget: WidgetJSON, Since: "0.6.0",
		Help:  `Most images, videos or audio clips per prompt, as JSON: {"image":0,"video":0} turns them off.`,
		Group: GroupModel,
	},
	{
		Name: "--tensor-parallel-size", Aliases: []string{"-tp"}, Type: KindInt, Widget: WidgetIntSlider,
		Default: "1", HasRange: true, Min: 1, Max: 16, Step: 1,
		Help:  "Number of GPUs that share each layer; set it to the number of GPUs given to the container.",
		Group: GroupPerformance,
	},
	{
		Name: "--pipeline-parallel-size", Aliases: []string{"-pp"}, Type: KindInt, Widget: WidgetIntSlider,
		Default: "1", HasRange: true, Min: 1, Max: 16, Step: 1,
		Help:  "Number of GPUs that hold consecutive groups of layers.",
		Group: GroupPerformance,
	},
	{
		Name: "--enforce-eager", Type: KindBool, Widget: WidgetToggle,
		Help:  "Skip CUDA graphs: starts faster and saves memory, decodes slower.",
		Group: GroupPerformance,
	},
	{
		Name: "--attention-backend", Type: KindEnum, Widget: WidgetDropdown, Default: "auto", Since: "0.11.1",
		Allowed: []string{"auto", "FLASH_ATTN", "FLASHINFER", "TRITON_ATTN", "FLEX_ATTENTION"},
		Help:    "Attention kernel implementation; auto picks the best for the card.",
		Group:   GroupPerformance,
	},
	{
		Name: "--compilation-config", Type: KindJSON, Widget: WidgetJSON, Since: "0.7.0",
		Help:  `torch.compile and CUDA-graph settings as JSON, e.g. {"cudagraph_capture_sizes":[1,2,4,8]}.`,
		Group: GroupPerformance,
	},
	{
		Name: "--speculative-config", Type: KindJSON, Widget: WidgetJSON, Since: "0.8.0",
		Help:  `Speculative decoding as JSON, e.g. {"method":"ngram","num_speculative_tokens":4}.`,
		Group: GroupPerformance,
	},
	{
		Name: "--seed", Type: KindInt, Widget: WidgetIntSlider, HasRange: true, Min: 0, Max: 1 << 31, Step: 1,
		Help:  "Random seed for sampling.",
		Group: GroupPerformance,
	},
	{
		Name: "--host", Type: KindString, Widget: WidgetText, Managed: true,
		Help: "Address the server listens on; RigBench sets it.", Group: GroupServer,
	},
	{
		Name: "--port", Type: KindInt, Widget: WidgetIntSlider, Default: "8000", Managed: true,
		HasRange: true, Min: 1, Max: 65535, Step: 1,
		Help: "Port the server listens on inside the container; RigBench sets it.", Group: GroupServer,
	},
	{
		Name: "--api-key", Type: KindString, Widget: WidgetText, Managed: true, Secret: true,
		Help: "Key clients must send; RigBench makes a random one per launch.", Group: GroupServer,
	},
}

// Catalog returns every flag RigBench knows, in form order (grouped). The
// slice is a copy: callers may keep or change it.
func Catalog() []Flag {
	out := make([]Flag, len(catalog))
	copy(out, catalog)
	return out
}

// spellings maps every name, alias and negation to its catalog index; the
// negated bit is set for negations.
var spellings = func() map[string]int {
	m := map[string]int{}
	for i, f := range catalog {
		m[f.Name] = i << 1
		for _, a := range f.Aliases {
			m[a] = i << 1
		}
		if f.Negation != "" {
			m[f.Negation] = i<<1 | 1
		}
	}
	return m
}()

func catalogIndex(spelling string) (i int, negated, ok bool) {
	v, ok := spellings[spelling]
	return v >> 1, v&1 == 1, ok
}

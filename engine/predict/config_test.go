package predict_test

import (
	"math"
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestModelFromConfigLlama: Llama 3.1 8B's facts from its config.json
// alone: 131072 KV bytes a token (2 × 32 layers × 8 KV heads × 128 ×
// 2 bytes, what vLLM logs for it), about its model card's 8.03e9
// parameters, and, without the safetensors sizes, weights of those
// parameters at bf16's two bytes.
func TestModelFromConfigLlama(t *testing.T) {
	c, err := predict.ParseConfig([]byte(llamaConfig))
	if err != nil {
		t.Fatal(err)
	}
	if c.Layers != 32 || c.Heads != 32 || c.KVHeads != 8 || c.Hidden != 4096 || c.HeadDim != 128 || c.Intermediate != 14336 || c.Vocab != 128256 || c.DtypeBytes() != 2 {
		t.Errorf("parsed %+v, want Llama 3.1 8B's shape", c)
	}
	m := predict.ModelFromConfig("meta-llama/Llama-3.1-8B", c, 0)
	if m.KVBytesPerToken != 131072 {
		t.Errorf("KV bytes per token %v, want 131072", m.KVBytesPerToken)
	}
	if d := m.Params/8.03e9 - 1; math.Abs(d) > 0.03 {
		t.Errorf("parameters %.4g, %.1f%% from the model card's 8.03e9 (3%% allowed)", m.Params, 100*d)
	}
	if want := m.Params * 2 / vllm.GiB; math.Abs(m.WeightsGiB-want) > 1e-9 {
		t.Errorf("weights without safetensors sizes %v GiB, want %v (parameters × 2 bytes)", m.WeightsGiB, want)
	}
	if m.MaxLen != 131072 {
		t.Errorf("max len %d, want 131072", m.MaxLen)
	}
	if got := predict.ModelFromConfig("x/y", c, 16_060_522_496).WeightsGiB; got != 16_060_522_496.0/vllm.GiB {
		t.Errorf("weights with safetensors sizes %v GiB, want their sum", got)
	}
}

// FuzzParseConfig: config.json comes from the Hub, the user's disk or a
// cache file; no input may panic the parser, and any config it accepts
// gives positive KV bytes a token and finite, non-negative parameters and
// weights (the bounds keep a corrupt one from overflowing).
func FuzzParseConfig(f *testing.F) {
	f.Add([]byte(llamaConfig))
	f.Add([]byte(`{"model_type": "gemma3", "torch_dtype": "bfloat16", "max_position_embeddings": 131072, "tie_word_embeddings": true,
		"text_config": {"num_hidden_layers": 62, "num_attention_heads": 32, "num_key_value_heads": 16, "head_dim": 128, "hidden_size": 5376, "intermediate_size": 21504, "vocab_size": 262208}}`))
	f.Add([]byte(`{"num_hidden_layers": 32, "num_attention_heads": 32, "num_key_value_heads": 8, "hidden_size": 4096, "intermediate_size": 14336,
		"num_local_experts": 8, "num_experts_per_tok": 2, "vocab_size": 32000, "torch_dtype": "bfloat16"}`))
	f.Add([]byte(`{"num_hidden_layers": 48, "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128, "hidden_size": 2048, "moe_intermediate_size": 768,
		"num_experts": 128, "num_experts_per_tok": 8, "vocab_size": 151936, "quantization_config": {"quant_method": "fp8"}}`))
	f.Add([]byte(`{"num_hidden_layers": 1, "num_attention_heads": -1, "num_key_value_heads": 1, "head_dim": 1}`))
	f.Add([]byte(`{"text_config": null, "num_hidden_layers": 1e3}`))
	f.Add([]byte(`[]`))
	f.Fuzz(func(t *testing.T, b []byte) {
		c, err := predict.ParseConfig(b)
		if err != nil {
			if err.Error() == "" {
				t.Error("an empty error")
			}
			return
		}
		if kv := c.KVBytesPerToken(); !(kv > 0) || math.IsInf(kv, 0) {
			t.Errorf("accepted %q with KV bytes per token %v", b, kv)
		}
		m := predict.ModelFromConfig("x/y", c, 0)
		for what, v := range map[string]float64{"params": m.Params, "weights": m.WeightsGiB} {
			if !(v >= 0) || math.IsInf(v, 0) {
				t.Errorf("accepted %q with %s %v", b, what, v)
			}
		}
	})
}

package predict

import (
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Model is what a prediction needs to know of a model.
type Model struct {
	// ID is the Hugging Face id.
	ID string `json:"id"`
	// WeightsGiB is what the weights take on the card(s): the sum of the
	// model's *.safetensors files, else parameters × bytes per parameter.
	WeightsGiB float64 `json:"weights_gib"`
	// Params is the parameter count a token passes through (the active
	// ones of a mixture of experts): the decode and prefill compute.
	Params float64 `json:"params"`
	// KVBytesPerToken is one token's KV cache at 16-bit precision:
	// 2 (K and V) × attention layers × KV heads × head size × 2 bytes.
	KVBytesPerToken float64 `json:"kv_bytes_per_token"`
	// WeightBits is the checkpoint's precision: 16 for BF16/FP16, 8 for
	// FP8 or 8-bit, 4 for 4-bit quantisations (0: not known).
	WeightBits int `json:"weight_bits,omitempty"`
	// MaxLen is max_position_embeddings: the default and upper bound of
	// --max-model-len.
	MaxLen int `json:"max_len"`
	// Hidden and Vocab size the activation peak (activationGiB).
	Hidden int `json:"hidden,omitempty"`
	Vocab  int `json:"vocab,omitempty"`
	// ActivationGiB and OtherGiB are a simulator profile's exact figures
	// at its max_num_batched_tokens (Batched); 0 for a model known from
	// its config, whose activation peak is estimated.
	ActivationGiB float64 `json:"activation_gib,omitempty"`
	OtherGiB      float64 `json:"other_gib,omitempty"`
	Batched       int     `json:"batched,omitempty"`
	// Source says where the facts come from: SourceProfile, SourceConfig.
	Source string `json:"source"`
}

// Sources of a model's facts.
const (
	// SourceProfile: a simulator profile's model (the figures it serves).
	SourceProfile = "simulator profile"
	// SourceConfig: the model's config.json and safetensors sizes (the
	// Hugging Face cache, or the Hub).
	SourceConfig = "config.json"
)

// simFacts are what the simulator's profiles do not say of their models:
// the parameters (the reference run's 4B model and Llama 3.1 8B from their
// model cards, the tiny test model's from its weights at two bytes each),
// the shape that sizes the activation peak, and the weights' precision.
var simFacts = map[string]struct {
	params        float64
	hidden, vocab int
	bits          int
}{
	vllm.ModelReference: {4.02e9, 2560, 151936, 8},
	vllm.ModelH100:      {8.03e9, 4096, 128256, 16},
	vllm.ModelTiny:      {0.27e9, 1024, 32000, 16},
}

// ProfileModel is the model a simulator profile serves, with the
// profile's own figures.
func ProfileModel(p sim.Profile) Model {
	f := simFacts[p.Model]
	return Model{
		ID: p.Model, WeightsGiB: p.WeightsGiB, Params: f.params, WeightBits: f.bits, Hidden: f.hidden, Vocab: f.vocab,
		KVBytesPerToken: float64(p.KVBytesPerToken), MaxLen: p.ModelMaxLen,
		ActivationGiB: p.ActivationGiB, OtherGiB: p.OtherGiB, Batched: p.DefaultMaxNumBatchedTokens,
		Source: SourceProfile,
	}
}

// BuiltinModel is the facts of one of the simulator's models, false for
// any other id.
func BuiltinModel(id string) (Model, bool) {
	for _, name := range sim.ProfileNames() {
		p, _ := sim.ProfileByName(name)
		if strings.EqualFold(p.Model, id) {
			return ProfileModel(p), true
		}
	}
	return Model{}, false
}

// Config is the part of a model's config.json a prediction reads.
type Config struct {
	Layers     int     `json:"num_hidden_layers"`
	Heads      int     `json:"num_attention_heads"`
	KVHeads    int     `json:"num_key_value_heads"`
	Hidden     int     `json:"hidden_size"`
	HeadDim    int     `json:"head_dim"`
	Vocab      int     `json:"vocab_size"`
	MaxLen     int     `json:"max_position_embeddings"`
	TorchDtype string  `json:"torch_dtype"`
	Dtype      string  `json:"dtype"`
	Text       *Config `json:"text_config"`
	// Experts and ExpertsPerToken say a mixture of experts (names vary by
	// family; the common ones are read).
	Experts         int `json:"num_experts"`
	LocalExperts    int `json:"num_local_experts"`
	ExpertsPerToken int `json:"num_experts_per_tok"`
	Intermediate    int `json:"intermediate_size"`
	MoEIntermediate int `json:"moe_intermediate_size"`
	// TiedEmbeddings says the output head is the input embeddings' matrix
	// (tie_word_embeddings): it is then held and read once. nil when the
	// config does not say, which is tied (the Hugging Face default).
	TiedEmbeddings *bool `json:"tie_word_embeddings"`
	// Quantization names a pre-quantised checkpoint's method and bits.
	Quantization *struct {
		Method string `json:"quant_method"`
		Bits   int    `json:"bits"`
	} `json:"quantization_config"`
}

// maxConfig bounds the config file read: real ones are a few KB.
const maxConfig = 1 << 20

// ParseConfig reads a config.json. A multimodal model's language part
// (text_config) is taken when the top level has no layers.
func ParseConfig(b []byte) (Config, error) {
	if len(b) > maxConfig {
		return Config{}, fmt.Errorf("the model's config.json is %d bytes, more than any model's (1 MiB)", len(b))
	}
	var c Config
	if err := json.Unmarshal(b, &c); err != nil {
		return Config{}, fmt.Errorf("the model's config.json is not valid JSON: %v", err)
	}
	if c.Text != nil && c.Layers == 0 {
		t := *c.Text
		if t.MaxLen == 0 {
			t.MaxLen = c.MaxLen
		}
		if t.TorchDtype == "" && t.Dtype == "" {
			t.TorchDtype, t.Dtype = c.TorchDtype, c.Dtype
		}
		if t.Quantization == nil {
			t.Quantization = c.Quantization
		}
		if t.TiedEmbeddings == nil {
			t.TiedEmbeddings = c.TiedEmbeddings
		}
		c = t
	}
	c.Text = nil
	if c.KVHeads == 0 {
		c.KVHeads = c.Heads
	}
	if c.HeadDim == 0 && c.Heads > 0 {
		c.HeadDim = c.Hidden / c.Heads
	}
	// Bounds far above any model's keep a corrupt config from overflowing.
	if c.Layers <= 0 || c.KVHeads <= 0 || c.HeadDim <= 0 || c.Layers > 4096 || c.KVHeads > 4096 || c.HeadDim > 1<<16 ||
		c.Hidden < 0 || c.Hidden > 1<<20 || c.Vocab < 0 || c.Vocab > 1<<24 || c.MaxLen < 0 ||
		!within(1<<16, c.Heads, c.Experts, c.LocalExperts, c.ExpertsPerToken) || !within(1<<24, c.Intermediate, c.MoEIntermediate) {
		return Config{}, fmt.Errorf("the model's config.json lacks its shape (num_hidden_layers, num_attention_heads, hidden_size) or holds impossible values")
	}
	return c, nil
}

// within says every n is in [0, limit].
func within(limit int, ns ...int) bool {
	for _, n := range ns {
		if n < 0 || n > limit {
			return false
		}
	}
	return true
}

// DtypeBytes is the bytes of one element of the model's own dtype (2 for
// 16-bit, 4 for float32; 2 when the config names none, as vLLM serves
// most models in 16 bits).
func (c Config) DtypeBytes() int {
	d := c.TorchDtype
	if d == "" {
		d = c.Dtype
	}
	if n := map[string]int{"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4}[strings.ToLower(d)]; n > 0 {
		return n
	}
	return 2
}

// KVBytesPerToken is 2 × layers × KV heads × head size × dtype bytes:
// one token's KV cache in the model's dtype.
func (c Config) KVBytesPerToken() float64 {
	return float64(2 * c.Layers * c.KVHeads * c.HeadDim * c.DtypeBytes())
}

// ParamsEstimate is the parameters a token passes through, from the
// shape: the input embeddings (vocab × hidden), the output head (vocab ×
// hidden again, unless tied to the embeddings: then it is the same
// matrix, held and read once), and per layer the attention projections
// (hidden × (heads + 2 KV heads) × head size for Q, K and V, heads × head
// size × hidden for the output) and the MLP's three matrices (hidden ×
// intermediate × 3, times the experts a token uses). Norms and biases are
// left out (well under 0.1%). Llama 3.1 8B: 2 × 128256 × 4096 + 32 ×
// (4096 × 48 × 128 + 4096² + 3 × 4096 × 14336) = 8.03e9, its model card's
// figure.
func (c Config) ParamsEstimate() float64 {
	h, d := float64(c.Hidden), float64(c.HeadDim)
	attn := h*float64(c.Heads+2*c.KVHeads)*d + float64(c.Heads)*d*h
	inter := float64(c.Intermediate)
	switch {
	case c.MoEIntermediate > 0 && c.ExpertsPerToken > 0:
		inter = float64(c.MoEIntermediate * c.ExpertsPerToken)
	case max(c.Experts, c.LocalExperts) > 1 && c.ExpertsPerToken > 0:
		// Mixtral's layout: each expert is intermediate_size wide.
		inter = float64(c.Intermediate * c.ExpertsPerToken)
	}
	if inter == 0 {
		inter = 4 * h
	}
	embed := float64(c.Vocab) * h
	if c.TiedEmbeddings != nil && !*c.TiedEmbeddings {
		embed *= 2
	}
	return embed + float64(c.Layers)*(attn+3*h*inter)
}

// ModelFromConfig is a model's facts from its config.json and the total
// size of its safetensors files in bytes (0 when unknown: the weights are
// then the parameters at the checkpoint's precision).
func ModelFromConfig(id string, c Config, safetensorsBytes int64) Model {
	m := Model{ID: id, Params: c.ParamsEstimate(), KVBytesPerToken: c.KVBytesPerToken(), MaxLen: c.MaxLen,
		Hidden: c.Hidden, Vocab: c.Vocab, Source: SourceConfig}
	bits := 8 * c.DtypeBytes()
	switch q := c.Quantization; {
	case q == nil:
	case q.Bits > 0:
		bits = q.Bits
	case strings.Contains(strings.ToLower(q.Method), "fp8"):
		bits = 8
	case safetensorsBytes > 0 && m.totalParams(c) > 0:
		// A quantised checkpoint that names no bits (compressed-tensors):
		// its files say them, to the nearest whole bit.
		bits = int(math.Round(float64(safetensorsBytes) * 8 / m.totalParams(c)))
	default:
		bits = 0 // quantised, precision unknown: no 8-bit fix is offered
	}
	m.WeightBits = bits
	if safetensorsBytes > 0 {
		m.WeightsGiB = float64(safetensorsBytes) / vllm.GiB
	} else {
		m.WeightsGiB = m.totalParams(c) * float64(max(bits, 4)) / 8 / vllm.GiB
	}
	return m
}

// totalParams is every parameter the card holds: all experts, not only
// the active ones.
func (m Model) totalParams(c Config) float64 {
	experts := max(c.Experts, c.LocalExperts)
	if experts <= 1 || c.ExpertsPerToken <= 0 {
		return m.Params
	}
	h := float64(c.Hidden)
	active := float64(c.Layers) * 3 * h * float64(c.MoEIntermediate*c.ExpertsPerToken)
	if c.MoEIntermediate == 0 {
		active = float64(c.Layers) * 3 * h * float64(c.Intermediate*c.ExpertsPerToken)
	}
	return m.Params + active*float64(experts-c.ExpertsPerToken)/float64(c.ExpertsPerToken)
}

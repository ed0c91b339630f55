package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
)

// HFCacheWeightsGiB is the size of model's weights in this machine's
// Hugging Face cache, in GiB: the *.safetensors files of its newest
// snapshot (hub/models--ORG--NAME/snapshots/REV/), whose bytes are what a
// server loads onto the card. 0 when the model is not there. The cache is
// where the Hugging Face libraries put it: $HF_HUB_CACHE, else
// $HF_HOME/hub, else ~/.cache/huggingface/hub. It gives an endpoint
// RigBench did not start its roofline figure when the server runs on this
// machine (METHOD.md: Roofline).
func HFCacheWeightsGiB(model string, getenv func(string) string) float64 {
	snap := hfSnapshot(model, getenv)
	if snap == "" {
		return 0
	}
	files, _ := filepath.Glob(filepath.Join(snap, "*.safetensors"))
	var bytes int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil { // follows the snapshot's link to its blob
			bytes += info.Size()
		}
	}
	return float64(bytes) / (1 << 30)
}

// hfSnapshot is the newest snapshot folder of model in the Hugging Face
// cache ($HF_HUB_CACHE, else $HF_HOME/hub, else ~/.cache/huggingface/hub),
// "" when the model is not there or its id is no "org/name".
func hfSnapshot(model string, getenv func(string) string) string {
	if model == "" || strings.HasPrefix(model, "/") || strings.Contains(model, "..") || strings.Count(model, "/") != 1 {
		return ""
	}
	hub := getenv("HF_HUB_CACHE")
	if hub == "" {
		home := getenv("HF_HOME")
		if home == "" {
			h := getenv("HOME")
			if h == "" {
				return ""
			}
			home = filepath.Join(h, ".cache", "huggingface")
		}
		hub = filepath.Join(home, "hub")
	}
	snaps := filepath.Join(hub, "models--"+strings.ReplaceAll(model, "/", "--"), "snapshots")
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return ""
	}
	var newest string
	var newestTime int64
	for _, s := range entries {
		info, err := s.Info()
		if err == nil && s.IsDir() && info.ModTime().UnixNano() >= newestTime {
			newest, newestTime = s.Name(), info.ModTime().UnixNano()
		}
	}
	if newest == "" {
		return ""
	}
	return filepath.Join(snaps, newest)
}

// HFCacheKVBytesPerToken is the KV cache one token of model takes, from
// its config.json in the Hugging Face cache (METHOD.md: Roofline), 0 when
// the model or a needed field is not there:
//
//	kv bytes/token = 2 (K and V) × layers × KV heads × head size × dtype bytes
//
// with KV heads num_key_value_heads (grouped-query attention; the query
// heads when absent), head size head_dim (else hidden_size ÷ heads) and
// the dtype the weights are in (torch_dtype or dtype: 2 bytes for 16-bit,
// 4 for float32), which is the cache's dtype unless --kv-cache-dtype says
// otherwise. It gives an endpoint RigBench did not start the KV reads of
// its roofline figure; a launched server's log says it exactly.
func HFCacheKVBytesPerToken(model string, getenv func(string) string) float64 {
	snap := hfSnapshot(model, getenv)
	if snap == "" {
		return 0
	}
	b, err := os.ReadFile(filepath.Join(snap, "config.json"))
	if err != nil || len(b) > 1<<20 {
		return 0
	}
	var cfg struct {
		Layers     int    `json:"num_hidden_layers"`
		Heads      int    `json:"num_attention_heads"`
		KVHeads    int    `json:"num_key_value_heads"`
		Hidden     int    `json:"hidden_size"`
		HeadDim    int    `json:"head_dim"`
		TorchDtype string `json:"torch_dtype"`
		Dtype      string `json:"dtype"`
		Text       *struct {
			Layers  int `json:"num_hidden_layers"`
			Heads   int `json:"num_attention_heads"`
			KVHeads int `json:"num_key_value_heads"`
			Hidden  int `json:"hidden_size"`
			HeadDim int `json:"head_dim"`
		} `json:"text_config"`
	}
	if json.Unmarshal(b, &cfg) != nil {
		return 0
	}
	if t := cfg.Text; t != nil && cfg.Layers == 0 {
		// A multimodal model keeps its language model's shape apart.
		cfg.Layers, cfg.Heads, cfg.KVHeads, cfg.Hidden, cfg.HeadDim = t.Layers, t.Heads, t.KVHeads, t.Hidden, t.HeadDim
	}
	if cfg.KVHeads == 0 {
		cfg.KVHeads = cfg.Heads
	}
	if cfg.HeadDim == 0 && cfg.Heads > 0 {
		cfg.HeadDim = cfg.Hidden / cfg.Heads
	}
	dtype := cfg.TorchDtype
	if dtype == "" {
		dtype = cfg.Dtype
	}
	size := map[string]int{"bfloat16": 2, "float16": 2, "half": 2, "float32": 4, "float": 4}[strings.ToLower(dtype)]
	if size == 0 {
		size = 2 // the dtype vLLM serves most models in when the config names none
	}
	// Bounds far above any model's keep a corrupt config from overflowing.
	if cfg.Layers <= 0 || cfg.KVHeads <= 0 || cfg.HeadDim <= 0 || cfg.Layers > 4096 || cfg.KVHeads > 4096 || cfg.HeadDim > 1<<16 {
		return 0
	}
	return float64(2 * cfg.Layers * cfg.KVHeads * cfg.HeadDim * size)
}

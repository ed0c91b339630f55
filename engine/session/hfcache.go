package session

import "github.com/rigbench/rigbench/engine/predict"

// HFCacheWeightsGiB is the size of model's weights in this machine's
// Hugging Face cache, in GiB: the *.safetensors files of its newest
// snapshot (hub/models--ORG--NAME/snapshots/REV/), whose bytes are what a
// server loads onto the card. 0 when the model is not there. The cache is
// where the Hugging Face libraries put it: $HF_HUB_CACHE, else
// $HF_HOME/hub, else ~/.cache/huggingface/hub (predict.HFSnapshot finds
// the snapshot, so the prediction and the roofline read the same one). It
// gives an endpoint RigBench did not start its roofline figure when the
// server runs on this machine (METHOD.md: Roofline).
func HFCacheWeightsGiB(model string, getenv func(string) string) float64 {
	snap := predict.HFSnapshot(model, getenv)
	if snap == "" {
		return 0
	}
	return float64(predict.SnapshotSafetensorsBytes(snap)) / (1 << 30)
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
// otherwise. The config is parsed by predict.ParseConfig, the one reader
// of config.json, so the roofline and the prediction agree. It gives an
// endpoint RigBench did not start the KV reads of its roofline figure; a
// launched server's log says it exactly.
func HFCacheKVBytesPerToken(model string, getenv func(string) string) float64 {
	snap := predict.HFSnapshot(model, getenv)
	if snap == "" {
		return 0
	}
	c, err := predict.SnapshotConfig(snap)
	if err != nil {
		return 0
	}
	return c.KVBytesPerToken()
}

package vllm

// KVCacheDtypes are the --kv-cache-dtype choices vLLM accepts, in its
// order, with the bytes per element relative to 16-bit: "auto" keeps the
// model's dtype. The simulator sizes its cache with Ratio, and RigBench's
// advice predicts a launch's KV capacity with it (a cache of the same
// memory holds 1/Ratio as many tokens).
var KVCacheDtypes = []struct {
	Name  string
	Ratio float64
}{
	{"auto", 1}, {"float16", 1}, {"bfloat16", 1},
	{"fp8", 0.5}, {"fp8_e4m3", 0.5}, {"fp8_e5m2", 0.5}, {"fp8_inc", 0.5},
	{"fp8_ds_mla", 0.5}, {"int8_per_token_head", 0.5}, {"fp8_per_token_head", 0.5},
	{"int4_per_token_head", 0.25}, {"nvfp4", 0.25},
}

// KVDtypeRatio returns the size of a cache element of dtype relative to
// 16-bit, or false for a dtype vLLM does not know.
func KVDtypeRatio(dtype string) (float64, bool) {
	for _, d := range KVCacheDtypes {
		if d.Name == dtype {
			return d.Ratio, true
		}
	}
	return 0, false
}

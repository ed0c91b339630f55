package vllm

import "testing"

func TestLossy(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		flag, value string
		want        bool
	}{
		{"--kv-cache-dtype", "auto", false}, {"--kv-cache-dtype", "bfloat16", false}, {"--kv-cache-dtype", "fp8", true},
		{"--kv-cache-dtype", "int4_per_token_head", true}, {"--kv-cache-dtype", "nonsense", false},
		{"--quantization", "awq", true}, {"--quantization", "None", false}, {"--max-num-seqs", "64", false},
	} {
		if got := Lossy(tc.flag, tc.value); got != tc.want {
			t.Errorf("Lossy(%s, %s) = %v, want %v", tc.flag, tc.value, got, tc.want)
		}
	}
}

package sim

import "testing"

// Facts reports what New's server reports, and New's error, for the
// default demo, fp8 KV, a shorter max_model_len, the llama-server
// personality, and a max_model_len the cache cannot hold.
func TestFactsMatchServer(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		nil,
		{"--kv-cache-dtype", "fp8"},
		{"--max-model-len", "16384", "--gpu-memory-utilization", "0.8"},
		{"--personality", "llama-server", "--ctx-size", "8192"},
		{"--max-model-len", "262144", "--gpu-memory-utilization", "0.75"},
	} {
		cfg, err := ParseArgs(args)
		if err != nil {
			t.Fatalf("%q: %v", args, err)
		}
		length, kv, ferr := Facts(cfg)
		s, serr := New(cfg)
		if (ferr == nil) != (serr == nil) || ferr != nil && ferr.Error() != serr.Error() {
			t.Errorf("%q: Facts error %v, New error %v", args, ferr, serr)
			continue
		}
		if serr != nil {
			continue
		}
		if length != s.MaxModelLen() || kv != s.KVCapacityTokens() || kv <= 0 {
			t.Errorf("%q: Facts = %d, %d; the server reports %d, %d", args, length, kv, s.MaxModelLen(), s.KVCapacityTokens())
		}
		s.Close()
	}
}

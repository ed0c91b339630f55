package vllm

import "testing"

func TestSameValueAndIsDefault(t *testing.T) {
	for _, tc := range []struct {
		name, a, b string
		same       bool
	}{
		{"--gpu-memory-utilization", "0.90", "0.9", true},
		{"--gpu-memory-utilization", "0.91", "0.9", false},
		{"--enforce-eager", "on", "true", true},
		{"--enforce-eager", "off", "true", false},
		{"--kv-cache-dtype", "fp8", "FP8", false},
	} {
		if got := SameValue(tc.name, tc.a, tc.b); got != tc.same {
			t.Errorf("SameValue(%s, %q, %q) = %v", tc.name, tc.a, tc.b, got)
		}
	}
	if !IsDefault("--gpu-memory-utilization", "0.90") || IsDefault("--gpu-memory-utilization", "0.8") ||
		IsDefault("--enforce-eager", "false") || IsDefault("--bogus", "1") {
		t.Error("IsDefault")
	}
}

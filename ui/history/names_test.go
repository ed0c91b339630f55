package history

import (
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Flags set to vLLM's defaults change nothing and are left out; the rest
// read short, a switched-off default as "no …".
func TestFlagsTextKeepsWhatDiffers(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, ""},
		{[]string{"--gpu-memory-utilization", "0.9", "--max-num-seqs", "16"}, "max-num-seqs 16"},
		// "0.90" is the default 0.9 as vLLM reads it, as a sweep compares it.
		{[]string{"--gpu-memory-utilization", "0.90", "--max-num-seqs", "16"}, "max-num-seqs 16"},
		{[]string{"--kv-cache-dtype", "fp8", "--enforce-eager"}, "kv-cache-dtype fp8, enforce-eager"},
		{[]string{"--no-enable-prefix-caching", "--port", "8000"}, "no enable-prefix-caching"},
		{[]string{"--max-num-seqs", "8", "--bogus", "3"}, "max-num-seqs 8, --bogus 3"},
	} {
		if got := FlagsText(tc.args); got != tc.want {
			t.Errorf("FlagsText(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	at := time.Date(2026, 12, 1, 10, 40, 0, 0, time.Local)
	if got := DefaultName("agents/a1-4b-fp8", []string{"--max-num-seqs", "16"}, true, at); got != "a1-4b-fp8 · max-num-seqs 16 · Dec 1 10:40" {
		t.Errorf("DefaultName = %q", got)
	}
	if got := DefaultName("127.0.0.1:8000", nil, false, at); got != "127.0.0.1:8000 · Dec 1 10:40" {
		t.Errorf("endpoint DefaultName = %q", got)
	}
}

// A model spelled with "-" for "/" takes the known spelling; others stay.
func TestNormaliseModel(t *testing.T) {
	listed := []Entry{{Run: &rundoc.Run{Server: rundoc.Server{Model: "Qwen/Qwen2.5-1.5B-Instruct"}}}}
	for in, want := range map[string]string{
		"agents-a1-4b-fp8":            "agents/a1-4b-fp8",
		"qwen-qwen2.5-1.5b-instruct":  "Qwen/Qwen2.5-1.5B-Instruct",
		"Qwen--Qwen2.5-1.5B-Instruct": "Qwen/Qwen2.5-1.5B-Instruct",
		"some-other-model":            "some-other-model",
		"owner/name":                  "owner/name",
	} {
		if got := NormaliseModel(in, listed); got != want {
			t.Errorf("NormaliseModel(%q) = %q, want %q", in, got, want)
		}
	}
}

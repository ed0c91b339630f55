package session

import (
	"slices"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
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
		if got := vllm.FlagsText(tc.args); got != tc.want {
			t.Errorf("FlagsText(%q) = %q, want %q", tc.args, got, tc.want)
		}
	}
	at := time.Date(2026, 12, 1, 10, 40, 0, 0, time.Local)
	if got := DefaultName("agents/a1-4b-fp8", []string{"--max-num-seqs", "16"}, nil, true, at); got != "a1-4b-fp8 · max-num-seqs 16 · Dec 1 10:40" {
		t.Errorf("DefaultName = %q", got)
	}
	if got := DefaultName("127.0.0.1:8000", nil, nil, false, at); got != "127.0.0.1:8000 · Dec 1 10:40" {
		t.Errorf("endpoint DefaultName = %q", got)
	}
}

// Issue 24 item 2: the seed's own command (nine flags, one a long JSON
// value) gives a name within the limit that keeps the start time, three
// flags, performance ones first, and counts the rest; the runner never has
// to cut it.
func TestDefaultNameFitsTheLimit(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 40, 0, 0, time.Local)
	args := []string{"--max-model-len", "262144", "--gpu-memory-utilization", "0.95",
		"--served-model-name", "agents/a1-4b-fp8-served-under-a-rather-long-name",
		"--limit-mm-per-prompt", `{"image":0,"video":0,"audio":0}`,
		"--kv-cache-dtype", "int4_per_token_head", "--attention-backend", "TRITON_ATTN",
		"--max-num-seqs", "128", "--language-model-only", "--trust-remote-code"}
	for _, model := range []string{"agents/a1-4b-fp8", "org/" + strings.Repeat("x", 300)} {
		got := DefaultName(model, args, nil, true, at)
		if len(got) > rundoc.MaxNameLen {
			t.Errorf("DefaultName is %d bytes, over the limit of %d: %q", len(got), rundoc.MaxNameLen, got)
		}
		if !strings.HasSuffix(got, " · Dec 1 10:40") {
			t.Errorf("DefaultName %q lost its start time", got)
		}
		if strings.Contains(got, "cut by RigBench") || !utf8.ValidString(got) {
			t.Errorf("DefaultName %q was cut", got)
		}
		if strings.Contains(model, "xxx") {
			continue // a model id this long leaves room for fewer flags
		}
		if n := strings.Count(got, ", "); n != 3 || !strings.Contains(got, "+") || !strings.Contains(got, "more") {
			t.Errorf("DefaultName %q: want three flags and the rest counted", got)
		}
		if !strings.Contains(got, "kv-cache-dtype int4_per_token_head") {
			t.Errorf("DefaultName %q leaves out the KV cache dtype, a flag that changes speed", got)
		}
		if r := &(rundoc.Run{Name: got}); rundoc.CutText(r.Name, rundoc.MaxNameLen) != got {
			t.Errorf("the runner would cut %q", got)
		}
	}
	if got := DefaultName("agents/a1-4b-fp8", []string{"--max-num-seqs", "16", "--enforce-eager"}, nil, true, at); got != "a1-4b-fp8 · max-num-seqs 16, enforce-eager · Dec 1 10:40" {
		t.Errorf("two flags: DefaultName = %q, want both, whole", got)
	}
}

// TestRunsAreNamedInTheSession: a run given no name gets the default name
// in the session, so the CLI and the app name it alike: the demo's model
// and "vLLM defaults", a launch's flags, an endpoint's host.
func TestRunsAreNamedInTheSession(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 40, 0, 0, time.Local)
	for _, tc := range []struct {
		o    Options
		doc  *rundoc.Run
		want string
	}{
		{Options{Kind: Demo}, &rundoc.Run{Launch: &rundoc.Launch{Model: "agents/a1-4b-fp8", Args: []string{"--max-num-seqs", "16"}}}, "a1-4b-fp8 · max-num-seqs 16 · Dec 1 10:40"},
		{Options{Kind: Launch}, &rundoc.Run{Launch: &rundoc.Launch{Model: "Qwen/Qwen3-8B"}}, "Qwen3-8B · vLLM defaults · Dec 1 10:40"},
		{Options{Kind: Endpoint, Endpoint: "http://10.0.0.2:8000/v1"}, &rundoc.Run{}, "10.0.0.2:8000 · Dec 1 10:40"},
	} {
		if got := defaultRunName(tc.o, tc.doc, at); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.o.Kind, got, tc.want)
		}
	}
}

// Issue 41 minor 14: runs of one model that differ in one flag tell apart
// by their names' beginnings: the flags the previous run of the model did
// not have lead (here the KV dtype, which came after three others); with
// no previous run the order is as before.
func TestDefaultNameLeadsWithWhatChanged(t *testing.T) {
	at := time.Date(2026, 12, 1, 10, 40, 0, 0, time.Local)
	prev := []string{"--max-model-len", "262144", "--gpu-memory-utilization", "0.95", "--max-num-seqs", "128", "--enable-prefix-caching"}
	args := append(slices.Clone(prev), "--kv-cache-dtype", "fp8")
	if got := DefaultName("agents/a1-4b-fp8", args, prev, true, at); !strings.HasPrefix(got, "a1-4b-fp8 · kv-cache-dtype fp8, ") {
		t.Errorf("after a run without it, the new flag does not lead: %q", got)
	}
	changed := []string{"--max-model-len", "262144", "--gpu-memory-utilization", "0.95", "--max-num-seqs", "64", "--enable-prefix-caching"}
	if got := DefaultName("agents/a1-4b-fp8", changed, prev, true, at); !strings.HasPrefix(got, "a1-4b-fp8 · max-num-seqs 64, ") {
		t.Errorf("a changed value does not lead: %q", got)
	}
	if a, b := DefaultName("agents/a1-4b-fp8", args, nil, true, at), DefaultName("agents/a1-4b-fp8", args, prev, true, at); a == b {
		t.Errorf("the previous run changes nothing: %q", a)
	}
}

package history

import (
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

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

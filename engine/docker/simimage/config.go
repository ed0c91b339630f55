package simimage

import "github.com/rigbench/rigbench/engine/vllm"

// Config is a launch of the DefaultTag image as if it were vLLM: the
// simulator's tiny model, the given vLLM flags (name, value pairs), an
// inline HF token (to check it never leaks), and the simulator at speed 50
// so start-up and runs take little real time.
func Config(hfToken string, flags ...string) vllm.LaunchConfig {
	c := vllm.LaunchConfig{Image: "rigbench-sim", Tag: "test", Model: "sim/tiny-model", GPUs: "all",
		TokenSource: vllm.TokenInline, HFToken: hfToken}
	for i := 0; i+1 < len(flags); i += 2 {
		c.Set(flags[i], flags[i+1])
	}
	c.Extra = []string{"--speed", "50"}
	return c
}

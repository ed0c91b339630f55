package vllm_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/vllm"
)

func TestTensorParallelFollowsThePickedGPUs(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name, gpus string
		set        func(*vllm.LaunchConfig)
		wantTP     string // "" = no --tensor-parallel-size added
	}{
		{"two devices", "0,1", nil, "2"},
		{"four by count", "count=4", nil, "4"},
		{"one device", "1", nil, ""},
		{"all: the count is the rig's", "all", nil, ""},
		{"set by the user", "0,1", func(c *vllm.LaunchConfig) { c.Set("-tp", "1") }, "1"},
		{"pipeline instead", "0,1", func(c *vllm.LaunchConfig) { c.Set("--pipeline-parallel-size", "2") }, ""},
		{"in the extra arguments", "0,1,2,3", func(c *vllm.LaunchConfig) { c.Extra = []string{"-tp", "2"} }, ""},
	} {
		cfg := vllm.LaunchConfig{Model: "m", GPUs: c.gpus}
		if c.set != nil {
			c.set(&cfg)
		}
		args := cfg.LaunchArgs()
		i := slices.Index(args, "--tensor-parallel-size")
		got := ""
		if i >= 0 {
			got = args[i+1]
		}
		if got != c.wantTP {
			t.Errorf("%s: container args %q, want --tensor-parallel-size %q", c.name, args, c.wantTP)
		}
		if c.wantTP != "" && (!strings.Contains(cfg.DockerCommand(true), "--tensor-parallel-size "+c.wantTP) ||
			!strings.Contains(cfg.Record().ServeCommand, "--tensor-parallel-size "+c.wantTP)) {
			t.Errorf("%s: the shown commands lack it: %s", c.name, cfg.DockerCommand(true))
		}
	}
}

func TestPickedGPUs(t *testing.T) {
	t.Parallel()
	for gpus, want := range map[string]int{"": 0, "all": 0, "0": 1, "0,1": 2, "GPU-a,GPU-b,GPU-c": 3, "count=2": 2, "count=x": 0} {
		if got := (vllm.LaunchConfig{GPUs: gpus}).PickedGPUs(); got != want {
			t.Errorf("PickedGPUs(%q) = %d, want %d", gpus, got, want)
		}
	}
}

func TestWorldSizeAgainstThePick(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		gpus, tp, pp string
		want         int
		field        string // the refused flag, "" when it fits
	}{
		{"0,1", "", "", 2, ""},
		{"0,1", "", "2", 2, ""},
		{"0,1", "2", "2", 4, "--pipeline-parallel-size"},
		{"0", "2", "", 2, "--tensor-parallel-size"},
		{"all", "4", "", 4, ""}, // the rig's count is not known here
	} {
		cfg := vllm.LaunchConfig{Model: "m", GPUs: c.gpus}
		if c.tp != "" {
			cfg.Set("--tensor-parallel-size", c.tp)
		}
		if c.pp != "" {
			cfg.Set("--pipeline-parallel-size", c.pp)
		}
		if got := cfg.WorldSize(); got != c.want {
			t.Errorf("%+v: world size %d, want %d", c, got, c.want)
		}
		var field string
		for _, e := range vllm.Errors(cfg.Validate()) {
			if strings.Contains(e.Message, "needs") {
				field = e.Field
			}
		}
		if field != c.field {
			t.Errorf("%+v: refused on %q, want %q", c, field, c.field)
		}
	}
}

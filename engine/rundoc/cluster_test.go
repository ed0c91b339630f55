package rundoc

import (
	"strings"
	"testing"
)

func TestClusterTextAndValidation(t *testing.T) {
	c := &Cluster{Rigs: []string{"ssh://a", "ssh://b"}, TP: 1, PP: 2, Interface: "enp1s0"}
	if got, want := c.Text(), "2 rigs, TP 1 × PP 2 over enp1s0"; got != want {
		t.Errorf("Text() = %q, want %q", got, want)
	}
	if got, want := c.RigName(), "ssh://a + ssh://b (2 rigs, TP 1 × PP 2 over enp1s0)"; got != want {
		t.Errorf("RigName() = %q, want %q", got, want)
	}
	c.Link = &ClusterLink{Gbps: 9.41, RTTUS: 120.4, Rig: "ssh://b"}
	if got, want := c.Text(), "2 rigs, TP 1 × PP 2 over enp1s0 at 9.4 Gb/s, 120 µs"; got != want {
		t.Errorf("with the measured link, Text() = %q, want %q", got, want)
	}
	c.Interface = ""
	if got, want := c.Text(), "2 rigs, TP 1 × PP 2 over 9.4 Gb/s, 120 µs"; got != want {
		t.Errorf("link without an interface: Text() = %q, want %q", got, want)
	}
	for name, bad := range map[string]*Cluster{
		"no rate":      {Rigs: []string{"a", "b"}, TP: 1, PP: 2, Link: &ClusterLink{RTTUS: 3}},
		"one rig":      {Rigs: []string{"ssh://a"}, TP: 1, PP: 1},
		"no split":     {Rigs: []string{"a", "b"}, TP: 0, PP: 2},
		"spaced iface": {Rigs: []string{"a", "b"}, TP: 1, PP: 2, Interface: "en p1"},
		"gpus short":   {Rigs: []string{"a", "b"}, TP: 1, PP: 2, GPUs: []int{2}},
		"gpus wild":    {Rigs: []string{"a", "b"}, TP: 1, PP: 2, GPUs: []int{2, -1}},
	} {
		v := &validator{}
		v.cluster(bad)
		if v.err == nil || !strings.Contains(v.err.Error(), "launch.cluster") {
			t.Errorf("%s: %v; want a launch.cluster error", name, v.err)
		}
	}
}

// A cluster run's GPUs are numbered rig after rig: with 2 GPUs on the head
// and 2 on the worker, GPUs 0-1 are the head's and 2-3 the worker's.
func TestClusterRigOfGPU(t *testing.T) {
	c := &Cluster{Rigs: []string{"ssh://a", "ssh://b"}, TP: 2, PP: 2, GPUs: []int{2, 2}}
	for i, want := range []string{"ssh://a", "ssh://a", "ssh://b", "ssh://b", ""} {
		if got := c.RigOfGPU(i); got != want {
			t.Errorf("RigOfGPU(%d) = %q, want %q", i, got, want)
		}
	}
	if got := c.RigOfGPU(-1); got != "" {
		t.Errorf("RigOfGPU(-1) = %q, want none", got)
	}
	old := &Cluster{Rigs: []string{"ssh://a", "ssh://b"}, TP: 1, PP: 2}
	if got := old.RigOfGPU(0); got != "" {
		t.Errorf("a run recorded without the rigs' GPUs: RigOfGPU(0) = %q, want none", got)
	}
	v := &validator{}
	v.cluster(c)
	if v.err != nil {
		t.Errorf("a cluster with its rigs' GPUs: %v", v.err)
	}
}

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
	} {
		v := &validator{}
		v.cluster(bad)
		if v.err == nil || !strings.Contains(v.err.Error(), "launch.cluster") {
			t.Errorf("%s: %v; want a launch.cluster error", name, v.err)
		}
	}
}

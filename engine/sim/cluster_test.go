package sim

import (
	"math"
	"strings"
	"testing"
)

func twoNodes(gpus int) []RayNode {
	return []RayNode{{ID: "node_1", Address: "10.0.0.1", GPUs: gpus, Head: true, Alive: true},
		{ID: "node_2", Address: "10.0.0.2", GPUs: gpus, Alive: true}}
}

func TestCrossings(t *testing.T) {
	for _, tc := range []struct {
		gpus, tp, pp, wantPP, wantTP int
	}{
		{1, 1, 2, 1, 0}, // one stage per node: one hand-off over the network
		{2, 2, 2, 1, 0}, // TP inside each node, PP across
		{1, 2, 1, 0, 1}, // TP across the two nodes
		{2, 1, 2, 0, 0}, // both stages on the head: nothing crosses
		{2, 1, 4, 1, 0}, // four stages, two per node: one boundary leaves a node
	} {
		pp, tp := crossings(twoNodes(tc.gpus), tc.tp, tc.pp)
		if pp != tc.wantPP || tp != tc.wantTP {
			t.Errorf("%d GPU/node, TP %d × PP %d: %d PP and %d TP crossings; want %d and %d", tc.gpus, tc.tp, tc.pp, pp, tp, tc.wantPP, tc.wantTP)
		}
	}
}

func TestClusterProfileAddsTheNetwork(t *testing.T) {
	p := DefaultProfile()
	local := p
	local.GPUs = 2
	inNode, err := parallelProfile(local, 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	net := Network{Gbps: 10, LatencyUS: 50}
	over, err := clusterProfile(p, 1, 2, twoNodes(1), net)
	if err != nil {
		t.Fatal(err)
	}
	// One hand-off between the nodes: its latency and Ray's hand-off per
	// step, its 5,120 bytes per token at 1.25 GB/s.
	if d, want := over.StepBaseS-inNode.StepBaseS, 50e-6+rayHandoffS; math.Abs(d-want) > 1e-12 {
		t.Errorf("step grew by %g s; want %g", d, want)
	}
	if d, want := over.DecodePerSeqS-inNode.DecodePerSeqS, 5120/1.25e9; math.Abs(d-want) > 1e-15 {
		t.Errorf("per-token cost grew by %g s; want %g", d, want)
	}
	// A slower link costs more per token; at a full batch TP across nodes
	// costs more than PP across them (every token's all-reduces leave the
	// node, 72 times the bytes of a hand-off), though at one stream TP's
	// halved compute can win.
	slow, _ := clusterProfile(p, 1, 2, twoNodes(1), Network{Gbps: 1, LatencyUS: 50})
	if slow.DecodePerSeqS <= over.DecodePerSeqS {
		t.Errorf("1 Gb/s per-token %g ≤ 10 Gb/s %g", slow.DecodePerSeqS, over.DecodePerSeqS)
	}
	tpOver, _ := clusterProfile(p, 2, 1, twoNodes(1), net)
	const batch = 64
	tpStep, ppStep := tpOver.StepBaseS+batch*tpOver.DecodePerSeqS, over.StepBaseS+batch*over.DecodePerSeqS
	if tpStep <= ppStep {
		t.Errorf("at %d streams TP across nodes (step %g s) is not slower than PP across nodes (%g s)", batch, tpStep, ppStep)
	}
	if _, err := clusterProfile(p, 2, 2, twoNodes(1), net); err == nil {
		t.Error("a world of 4 on 2 GPUs was accepted")
	}
}

func TestClusterDecodesSlowerThanOneNode(t *testing.T) {
	// The same server over the cluster and on one node of two cards: the
	// network makes each step longer, so one stream decodes slower.
	one := DefaultConfig()
	one.Profile.GPUs, one.PipelineParallelSize = 2, 2
	c1, _, err := size(one)
	if err != nil {
		t.Fatal(err)
	}
	two := DefaultConfig()
	two.PipelineParallelSize = 2
	nodes := twoNodes(1)
	two.RayPlacement = &nodes
	c2, _, err := size(two)
	if err != nil {
		t.Fatal(err)
	}
	s1 := c1.Profile.StepBaseS + c1.Profile.DecodePerSeqS
	s2 := c2.Profile.StepBaseS + c2.Profile.DecodePerSeqS
	if s2 <= s1 {
		t.Errorf("one-stream step over the cluster %g s ≤ on one node %g s", s2, s1)
	}
}

func FuzzParseRayMsg(f *testing.F) {
	for _, s := range []string{`{"op":"register","node":{"address":"10.0.0.2","gpus":1}}`, `{"op":"claim","tp":1,"pp":2}`,
		`{"op":"heartbeat"}`, `{"op":"node_dead","node":{"id":"node_2"}}`, `{"op":"bogus"}`, `not json`, `{"op":"claim","tp":0}`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		m, err := parseRayMsg(b)
		if err != nil {
			return
		}
		if m.Op == "register" && (m.Node == nil || m.Node.Address == "") {
			t.Errorf("accepted a register without a node: %q", b)
		}
		if m.Op == "claim" && (m.TP < 1 || m.PP < 1) {
			t.Errorf("accepted a claim of %d × %d", m.TP, m.PP)
		}
	})
}

func FuzzParseRayStart(f *testing.F) {
	for _, s := range []string{"--head --port 6379 --block", "--address=10.0.0.1:6379 --block --num-gpus 2",
		"--head --port=x", "--head --address=a:1", "--node-ip-address", "--head --dashboard-host 0.0.0.0 --disable-usage-stats"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		a, err := parseRayStart(strings.Fields(s))
		if err != nil {
			return
		}
		if a.head == (a.address != "") {
			t.Errorf("%q: head %v with address %q", s, a.head, a.address)
		}
		if a.port < 0 || a.port > 65535 || a.gpus < -1 {
			t.Errorf("%q: port %d, gpus %d", s, a.port, a.gpus)
		}
	})
}

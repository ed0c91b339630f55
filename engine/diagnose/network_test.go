package diagnose_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// clusterRun is a two-rig pipeline (PP 2) of a model of hidden size 4096
// over link, with one decode cell of 8 streams at perStream tok/s.
func clusterRun(link *rundoc.ClusterLink, pp int, perStream float64) (*rundoc.Run, *rundoc.Cell) {
	run := &rundoc.Run{Launch: &rundoc.Launch{Cluster: &rundoc.Cluster{Rigs: []string{"a", "b"}, TP: 1, PP: pp, Link: link, HiddenSize: 4096}},
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 8, Status: rundoc.StatusValid, PerRequestTokS: perStream, TotalTokS: 8 * perStream}}}
	return run, &run.Cells[0]
}

// The transfer is (P − 1) × tokens × hidden × 2 bytes at the rate plus P
// one-way latencies: at 1 Gb/s and 400 µs round trip, 8 × 4096 × 2 =
// 65,536 bytes take 0.524 ms and the two latencies 0.4 ms, 0.924 ms of a
// 1/40 s = 25 ms step (3.7%): not network-bound; the same link under a
// 2.5 ms step (400 tok/s a stream) is 37%: network-bound, with the
// figures as evidence, and advice.
func TestNetworkTransferMaths(t *testing.T) {
	link := &rundoc.ClusterLink{Gbps: 1, RTTUS: 400}
	run, c := clusterRun(link, 2, 40)
	n, ok := diagnose.Transfer(run, c)
	if !ok || n.Bytes != 65536 || n.Hops != 1 || math.Abs(n.TransferS-0.000924288) > 1e-9 || math.Abs(n.StepS-0.025) > 1e-12 {
		t.Fatalf("Transfer = %+v, %v; want 65,536 bytes over 1 hop in 0.924 ms of 25 ms", n, ok)
	}
	for _, b := range diagnose.Cell(run, c) {
		if b.Kind == diagnose.Network {
			t.Errorf("a 3.7%% share is diagnosed: %s", b.Text())
		}
	}
	run, c = clusterRun(link, 2, 400)
	var got string
	for _, b := range diagnose.Cell(run, c) {
		if b.Kind == diagnose.Network {
			got = b.Text()
		}
	}
	if want := "0×8: network-bound (1 pipeline hand-off(s) a step of 65.5 KB each over the measured link (1 Gb/s, 400 µs) take 0.92 ms of a 2.50 ms decode step (37%))"; got != want {
		t.Errorf("diagnosis %q, want %q", got, want)
	}
	var advice string
	for _, a := range diagnose.Advise(run) {
		if a.Moves == diagnose.Network {
			advice = a.Text()
		}
	}
	if !strings.HasPrefix(advice, "0×8 is network-bound") || !strings.Contains(advice, "fewer pipeline stages") || !strings.Contains(advice, "faster link") {
		t.Errorf("advice %q", advice)
	}
}

// No diagnosis without what it rests on: a single-rig run, a cluster of
// one stage, no measured link, no hidden size.
func TestNetworkNeedsItsEvidence(t *testing.T) {
	link := &rundoc.ClusterLink{Gbps: 0.01, RTTUS: 10000}
	for name, edit := range map[string]func(*rundoc.Run){
		"one rig":   func(r *rundoc.Run) { r.Launch.Cluster = nil },
		"PP 1":      func(r *rundoc.Run) { r.Launch.Cluster.PP = 1 },
		"no link":   func(r *rundoc.Run) { r.Launch.Cluster.Link = nil },
		"no hidden": func(r *rundoc.Run) { r.Launch.Cluster.HiddenSize = 0 },
	} {
		run, c := clusterRun(link, 2, 400)
		if _, ok := diagnose.Transfer(run, c); !ok {
			t.Fatalf("%s: the unedited run has no transfer", name)
		}
		edit(run)
		if n, ok := diagnose.Transfer(run, c); ok {
			t.Errorf("%s: transfer %+v", name, n)
		}
	}
}

package cluster_test

import (
	"math"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/cluster"
)

// The client's line is found among other output, and a line without both
// figures, or none at all, is refused in a sentence.
func TestParseLink(t *testing.T) {
	l, err := cluster.ParseLink("warming up\nrigbench-link rtt_us=120.5 gbps=9.4100\n(RigBench simulator: a stand-in)\n")
	if err != nil || l.RTTUS != 120.5 || l.Gbps != 9.41 {
		t.Fatalf("ParseLink = %+v, %v", l, err)
	}
	if got := l.Text(); got != "9.41 Gb/s, 120 µs round trip" {
		t.Errorf("Text = %q", got)
	}
	for _, bad := range []string{"", "Traceback: ConnectionRefusedError", "rigbench-link rtt_us=NaN gbps=1", "rigbench-link rtt_us=3 gbps=-1"} {
		if _, err := cluster.ParseLink(bad); err == nil {
			t.Errorf("ParseLink(%q) accepted", bad)
		}
	}
}

func FuzzParseLink(f *testing.F) {
	for _, s := range []string{"rigbench-link rtt_us=120.5 gbps=9.41", "rigbench-link gbps=1", "x\nrigbench-link rtt_us=1e308 gbps=1e-308\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		l, err := cluster.ParseLink(s)
		if err == nil && (!(l.Gbps > 0) || !(l.RTTUS > 0) || math.IsInf(l.Gbps, 0) || math.IsInf(l.RTTUS, 0)) {
			t.Errorf("ParseLink(%q) = %+v without an error", s, l)
		}
	})
}

// Both images' commands: the stand-in's ray linktest, or Python's, toward
// the head's address on LinkPort.
func TestLinkCommands(t *testing.T) {
	if cluster.LinkPort(6379) != 6390 || cluster.LinkPort(65530) != 65519 {
		t.Errorf("link ports %d, %d", cluster.LinkPort(6379), cluster.LinkPort(65530))
	}
	srv, cl := cluster.LinkCommands(true, "10.0.0.1", 6390, 2)
	if strings.Join(srv, " ") != "ray linktest --serve 6390 --clients 2" || !strings.Contains(strings.Join(cl, " "), "--address 10.0.0.1:6390") {
		t.Errorf("stand-in commands %q, %q", srv, cl)
	}
	srv, cl = cluster.LinkCommands(false, "10.0.0.1", 6390, 1)
	if srv[0] != "python3" || !strings.Contains(srv[2], "create_server(('',6390))") || !strings.Contains(cl[2], "('10.0.0.1',6390)") {
		t.Errorf("python commands %q, %q", srv, cl)
	}
}

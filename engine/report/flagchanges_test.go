package report_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

func launched(args ...string) *rundoc.Run {
	return &rundoc.Run{Launch: &rundoc.Launch{Model: "m", Args: args}}
}

// TestFlagChanges (issue 41): Compare's flag differences read the flags
// as vLLM does: "=" or a space, "0.90" or "0.9" and a written-out default is no difference, a
// left-out flag is its catalog default, switches read on/off, the port
// RigBench picks is no launch flag, and a run without a launch record says
// so.
func TestFlagChanges(t *testing.T) {
	a := launched("--max-num-seqs", "16", "--gpu-memory-utilization", "0.90", "--port", "8000")
	b := launched("--max-num-seqs=16", "--kv-cache-dtype", "fp8", "--gpu-memory-utilization=0.9", "--enforce-eager", "--port", "8123")
	var got []string
	for _, c := range report.FlagChanges([]*rundoc.Run{a, b}) {
		got = append(got, c.Text())
	}
	want := "--enforce-eager: off → on\n--kv-cache-dtype: auto → fp8"
	if strings.Join(got, "\n") != want {
		t.Errorf("changes:\n%s\nwant:\n%s", strings.Join(got, "\n"), want)
	}

	// A third run without a launch record is named, not taken for
	// defaults; unknown arguments are compared as written.
	c := &rundoc.Run{}
	b.Launch.Args = append(b.Launch.Args, "--some-new-flag", "x")
	got = nil
	for _, ch := range report.FlagChanges([]*rundoc.Run{a, b, c}) {
		got = append(got, ch.Text())
	}
	if want := "--kv-cache-dtype: auto → fp8 → " + chart.FlagsNotRecorded; got[1] != want {
		t.Errorf("with an unrecorded run: %q, want %q", got[1], want)
	}
	if want := report.OtherArgs + ": none → --some-new-flag x → " + chart.FlagsNotRecorded; got[len(got)-1] != want {
		t.Errorf("other arguments: %q, want %q", got[len(got)-1], want)
	}

	if ch := report.FlagChanges([]*rundoc.Run{a, launched("--max-num-seqs=16")}); len(ch) != 0 {
		t.Errorf("a written-out default is a change: %v", ch)
	}
	if ch := report.FlagChanges([]*rundoc.Run{a, c}); ch != nil {
		t.Errorf("one recorded run compared: %v", ch)
	}
}

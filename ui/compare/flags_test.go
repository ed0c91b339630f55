//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package compare_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/compare"
)

// TestCompareShowsFlagChanges (issue 41): two runs that differ in one
// launch flag say which, with each run's value, under the legend; two
// with the same flags say so; runs without launch records say nothing.
func TestCompareShowsFlagChanges(t *testing.T) {
	test.NewTempApp(t)
	v := compare.New()
	a, b := run("base", 50), run("fp8", 60)
	a.Launch = &rundoc.Launch{Model: "m", Args: []string{"--max-num-seqs", "16"}}
	b.Launch = &rundoc.Launch{Model: "m", Args: []string{"--max-num-seqs", "16", "--kv-cache-dtype", "fp8"}}
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{a, b}, func() { close(done) })
	<-done
	want := compare.FlagsHeading + "\n--kv-cache-dtype: auto → fp8"
	if got := v.Flags(); got != want {
		t.Errorf("flags %q, want %q", got, want)
	}
	if got := report.FlagChanges([]*rundoc.Run{a, b}); len(got) != 1 || !strings.Contains(v.Flags(), got[0].Text()) {
		t.Errorf("the view does not show report.FlagChanges %v", got)
	}

	b.Launch.Args = a.Launch.Args
	done = make(chan struct{})
	v.SetRuns([]*rundoc.Run{a, b}, func() { close(done) })
	<-done
	if got := v.Flags(); got != compare.SameFlags {
		t.Errorf("same flags: %q, want %q", got, compare.SameFlags)
	}

	done = make(chan struct{})
	v.SetRuns([]*rundoc.Run{run("x", 50), run("y", 60)}, func() { close(done) })
	<-done
	if got := v.Flags(); got != "" {
		t.Errorf("runs without launch records: %q", got)
	}
}

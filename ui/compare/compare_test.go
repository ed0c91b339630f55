//go:build !race

// The race detector is left out here: Fyne's test driver runs the chart
// gallery's fyne.Do inline on its goroutine, which it flags (pass 2 of make
// test runs these).

package compare_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/compare"
)

// Two runs: the second's 20% higher rate shows as +20.0% against the first.
func TestChangeAgainstFirstRun(t *testing.T) {
	test.NewTempApp(t)
	v := compare.New()
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{run("base", 50), run("tuned", 60)}, func() { close(done) })
	<-done
	rows := v.Rows()
	if len(rows) != 2 || len(rows[0]) != 3 {
		t.Fatalf("table = %v, want a header and one row of two runs", rows)
	}
	if !strings.Contains(rows[0][1], "base") || !strings.Contains(rows[0][2], "tuned") {
		t.Errorf("header %v does not name the runs in order", rows[0])
	}
	if rows[1][0] != "0×1" || !strings.HasPrefix(rows[1][1], "50") || !strings.Contains(rows[1][2], "+20.0%") {
		t.Errorf("row %v, want 0×1, 50 and 60 (+20.0%%)", rows[1])
	}
	if n := v.ChartsRendered(); n == 0 {
		t.Error("no comparison chart drawn")
	}
}

// A run that failed before its first cell is left out and said to be, not
// labelled as a measured run.
func TestRunWithoutCellsLeftOut(t *testing.T) {
	test.NewTempApp(t)
	v := compare.New()
	failed := &rundoc.Run{UUID: "d5c84cbc-0000-4000-8000-000000000000", Status: rundoc.RunFailed, Error: "connection refused"}
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{run("base", 50), failed, run("tuned", 60)}, func() { close(done) })
	<-done
	if n := len(v.Runs()); n != 2 {
		t.Fatalf("%d runs compared, want the two with measurements", n)
	}
	if rows := v.Rows(); len(rows[0]) != 3 || strings.Contains(strings.Join(rows[0], " "), "d5c84cbc") {
		t.Errorf("header %v lists the run without cells", rows[0])
	}
	if l := v.Legend(); !strings.Contains(l, "Run d5c84cbc") || !strings.Contains(l, "nothing was measured") {
		t.Errorf("legend %q does not say the failed run was left out", l)
	}
}

// Runs of two boxes are labelled by rig ("the 3090 box vs the 4090 box");
// runs of one rig are not.
func TestLegendNamesRigsWhereTheyDiffer(t *testing.T) {
	test.NewTempApp(t)
	on := func(r *rundoc.Run, rig string) *rundoc.Run {
		r.Rig = &rundoc.Rig{Kind: rundoc.RigSSH, Name: rig}
		return r
	}
	v := compare.New()
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{on(run("qwen", 50), "ssh://box3090"), on(run("qwen 2", 60), "ssh://box4090")}, func() { close(done) })
	<-done
	if l := v.Legend(); !strings.Contains(l, "A: qwen on ssh://box3090") || !strings.Contains(l, "B: qwen 2 on ssh://box4090") {
		t.Errorf("legend %q does not name each run's rig", l)
	}
	done = make(chan struct{})
	v.SetRuns([]*rundoc.Run{on(run("qwen", 50), "local"), on(run("qwen 2", 60), "local")}, func() { close(done) })
	<-done
	if l := v.Legend(); strings.Contains(l, " on ") {
		t.Errorf("legend %q names the one rig both ran on", l)
	}
}

// Issue 41 (helper's note on minor 10): a compared run deleted in History
// is named as deleted above the charts, as Results says of its run; a
// deletion of other runs says nothing, and comparing other runs clears it.
func TestDeletedRunIsSaidSo(t *testing.T) {
	test.NewTempApp(t)
	v := compare.New()
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{run("base", 50), run("tuned", 60)}, func() { close(done) })
	<-done
	v.MarkDeleted([]string{"other"})
	if n := v.DeletedNote(); n != "" {
		t.Errorf("another run's deletion says %q", n)
	}
	v.MarkDeleted([]string{"tuned"})
	if n := v.DeletedNote(); !strings.HasPrefix(n, "B was deleted from History") {
		t.Errorf("after deleting the second run: %q", n)
	}
	again := make(chan struct{})
	v.SetRuns([]*rundoc.Run{run("base", 50), run("third", 70)}, func() { close(again) })
	<-again
	if n := v.DeletedNote(); n != "" {
		t.Errorf("comparing other runs still says %q", n)
	}
}

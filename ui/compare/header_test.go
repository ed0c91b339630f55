//go:build !race

// Left out of the race detector's pass: the chart gallery's fyne.Do runs
// inline on its goroutine under Fyne's test driver (pass 2 runs it).

package compare

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Issue 16 item 1: long run titles stay inside their header cells (they
// overlapped into one unreadable line), and Export hands over the runs.
func TestHeadersFitTheirColumnsAndExportGivesRuns(t *testing.T) {
	test.NewTempApp(t)
	v := New()
	long := func(name string) *rundoc.Run {
		return &rundoc.Run{UUID: name, Name: name, Status: rundoc.RunComplete, Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50},
		}}
	}
	runs := []*rundoc.Run{long("demo baseline 10s windows on a simulated RTX 3060"), long("rtx3060 reference run imported from the published CSV")}
	var exported []*rundoc.Run
	v.OnExport = func(rs []*rundoc.Run) { exported = rs }
	if !v.export.Disabled() {
		t.Error("Export is enabled with nothing to compare")
	}
	v.SetRuns(runs, nil)
	w := test.NewWindow(v.Content())
	defer w.Close()
	w.Resize(fyne.NewSize(1280, 800))
	for col := 1; col <= len(runs); col++ {
		o := v.table.CreateHeader()
		v.table.UpdateHeader(widget.TableCellID{Row: -1, Col: col}, o)
		l := o.(*widget.Label)
		if !strings.Contains(l.Text, runs[col-1].Name) {
			t.Errorf("header %d = %q, want the run's title", col, l.Text)
		}
		if wd := l.MinSize().Width; wd > colWidth {
			t.Errorf("header %d needs %.0f px in a %d px column: it overlaps the next", col, wd, colWidth)
		}
	}
	v.Export()
	if len(exported) != 2 || exported[0] != runs[0] {
		t.Errorf("Export gave %d runs, want the 2 compared", len(exported))
	}
}

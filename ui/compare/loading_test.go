//go:build !race

package compare_test

import (
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/compare"
)

// TestChartsSayLoading (issue 41 minor 15): from the moment runs are
// compared until their charts are drawn the chart area says it is
// loading, and not after. (Not under -race: the drawing goroutine hands
// its result back with fyne.Do, which Fyne's test driver does not
// serialise with the test's own reads.)
func TestChartsSayLoading(t *testing.T) {
	test.NewTempApp(t)
	v := compare.New()
	if v.ChartsLoading() {
		t.Fatal("an empty Compare says it is loading")
	}
	loadingAtDone := true
	done := make(chan struct{})
	v.SetRuns([]*rundoc.Run{run("base", 50), run("tuned", 60)}, func() { loadingAtDone = v.ChartsLoading(); close(done) })
	if !v.ChartsLoading() {
		t.Error("no loading state while the charts are drawn")
	}
	<-done
	if loadingAtDone || v.ChartsLoading() {
		t.Error("still loading after the charts were drawn")
	}
}

//go:build !tour

package ui

import "testing"

// The shipping build has no screenshot tour (it runs external programs):
// RIGBENCH_TOUR neither starts one nor speeds the demo up.
func TestShippingBuildHasNoTour(t *testing.T) {
	if tourHook != nil {
		t.Fatal("the tour is linked into a build without the tour tag")
	}
	t.Setenv(TourEnv, t.TempDir())
	t.Setenv("RIGBENCH_SIM_SPEED", "")
	if got := tourSpeed(1); got != 1 {
		t.Errorf("tourSpeed with %s set = %g, want the default 1", TourEnv, got)
	}
}

package ui

import (
	"fmt"
	"os"
	"strconv"
)

// AppID is RigBench's application id (preferences live under it).
const AppID = "io.github.rigbench.rigbench"

// TourEnv names the environment variable that starts the screenshot tour:
// RIGBENCH_TOUR=DIR makes the app run a small demo benchmark, visit every
// view, write one PNG per view into DIR, and quit. The tour (tour.go) runs
// external programs to grab the screen, so it is built only with the
// "tour" tag (make screenshots, scripts/screenshots.sh), never into the
// shipping app.
const TourEnv = "RIGBENCH_TOUR"

// TourSizeEnv and TourThemeEnv set the window size ("1280x800") and the
// theme (light or dark) the tour shoots in.
const (
	TourSizeEnv  = "RIGBENCH_TOUR_SIZE"
	TourThemeEnv = "RIGBENCH_TOUR_THEME"
)

// TourFailed reports whether the screenshot tour could not set up what it
// shows (cmd/rigbench then exits with status 1, so `make screenshots`
// fails loudly instead of leaving a History of one run).
func (u *UI) TourFailed() bool { return u.tourFailed.Load() }

// tourSimSpeed makes the tour's demo run take seconds, not minutes.
const tourSimSpeed = 30

// tourHook is the tour, set by tour.go in a build with the "tour" tag.
var tourHook func(u *UI, dir string)

// startTour starts the tour when the environment asks for it, or says
// that this build has none.
func (u *UI) startTour() {
	dir := os.Getenv(TourEnv)
	switch {
	case dir == "":
	case tourHook == nil:
		fmt.Fprintln(os.Stderr, "rigbench: "+TourEnv+" is set, but this build has no screenshot tour (build with -tags tour)")
	default:
		go tourHook(u, dir)
	}
}

// tourSpeed returns the simulator speed the environment asks for:
// RIGBENCH_SIM_SPEED, or the tour's default when the tour runs.
func tourSpeed(def float64) float64 {
	if s, err := strconv.ParseFloat(os.Getenv("RIGBENCH_SIM_SPEED"), 64); err == nil && s >= 1 {
		return s
	}
	if tourHook != nil && os.Getenv(TourEnv) != "" {
		return tourSimSpeed
	}
	return def
}

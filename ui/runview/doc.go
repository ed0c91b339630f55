// Package runview is the Run view: the plan editor with a preview of which
// cells will run and which are predicted over capacity, the estimated
// duration, the predicted figures of the cells that will run
// (SetPrediction), Start/Cancel, progress with ETA, the decode matrix filling in
// live, the current cell's tok/s and GPU sparklines.
//
// Runner events arrive on the runner's goroutine; the view copies what it
// needs under a lock and repaints at most a few times a second through
// fyne.Do, so a 128-stream run never causes one redraw per token.
package runview

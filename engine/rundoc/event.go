package rundoc

import (
	"time"
)

// EventKind says what happened in a run.
type EventKind int

// Event kinds, in the order a run emits them.
const (
	// EventRunStarted: Run holds the plan and server facts; no cells yet.
	EventRunStarted EventKind = iota
	// EventCellStarted: Cell names the cell about to run (no figures yet).
	EventCellStarted
	// EventCellProgress: about once a second during a window; LiveTokS is
	// the current cell's output rate so far.
	EventCellProgress
	// EventCellDone: Cell holds the finished cell with its figures.
	EventCellDone
	// EventRunDone: Run holds the whole document with its final status.
	EventRunDone
	// EventRunProgress comes before EventRunStarted, while the runner sends
	// the server its first requests (the options probe, prompt-length
	// probes): Message says what the run waits for and when it gives up.
	// It has no Cell.
	EventRunProgress
)

// Event is one progress report of a run. Observers receive events in order
// on the runner's goroutine and must return quickly (a UI hands them to its
// own loop; the history store writes one cell per transaction).
type Event struct {
	Kind EventKind
	// Run is the document as it stands; observers must not modify it.
	Run *Run
	// Cell is the cell concerned (CellStarted, CellProgress, CellDone).
	Cell *Cell
	// Index is the 0-based position of Cell among the Total cells to run.
	Index, Total int
	// Elapsed since the run started, and the estimated time left.
	Elapsed, ETA time.Duration
	// LiveTokS is the output rate of the current window so far.
	LiveTokS float64
	// Message is a human-readable line for logs ("warming up 8 prompts").
	Message string
}

// Observer receives the events of a run.
type Observer interface {
	Observe(Event)
}

// ObserverFunc adapts a function to Observer.
type ObserverFunc func(Event)

// Observe calls f(e).
func (f ObserverFunc) Observe(e Event) { f(e) }

var _ Observer = ObserverFunc(nil)

// Observers fans one event out to several observers, in order.
type Observers []Observer

// Observe sends e to each observer.
func (os Observers) Observe(e Event) {
	for _, o := range os {
		if o != nil {
			o.Observe(e)
		}
	}
}

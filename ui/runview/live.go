package runview

import (
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// sparkPoints bounds the sparkline history: at one sample a second this is
// the last four minutes, enough to see a cell's ramp and the next one's.
const sparkPoints = 240

// live is the view's observer. Observe runs on the runner's goroutine and
// only copies under the lock; the view's ticker takes a snapshot when
// something changed, so the UI repaints at its own pace whatever the event
// rate. The runner keeps mutating its *rundoc.Run, so nothing here keeps a
// pointer into it: the header is copied by value and finished cells are
// copied one by one.
type live struct {
	mu    sync.Mutex
	dirty bool
	s     snapshot
}

// snapshot is what one repaint shows.
type snapshot struct {
	run          rundoc.Run
	started      bool
	current      [2]int
	measuring    bool
	index, total int
	elapsed, eta time.Duration
	liveTokS     float64
	message      string
	power, clock []float64
}

var _ rundoc.Observer = (*live)(nil)

// Observe records one event.
func (l *live) Observe(e rundoc.Event) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.dirty = true
	// The run-done event counts the cells finished, not those planned: a
	// run that stopped part-way must not read as 100%.
	if e.Total > 0 && e.Kind != rundoc.EventRunDone {
		l.s.index, l.s.total = e.Index, e.Total
	}
	if e.Elapsed > 0 {
		l.s.elapsed, l.s.eta = e.Elapsed, e.ETA
	}
	if e.Message != "" {
		l.s.message = e.Message
	}
	switch e.Kind {
	case rundoc.EventRunStarted:
		if e.Run != nil {
			cells := l.s.run.Cells
			l.s.run = *e.Run
			l.s.run.Cells = cells
		}
		l.s.started = true
	case rundoc.EventCellStarted:
		if e.Cell != nil && e.Cell.Phase == rundoc.PhaseDecode {
			l.s.current, l.s.measuring = [2]int{e.Cell.Context, e.Cell.Concurrency}, true
		}
		l.s.liveTokS = 0
	case rundoc.EventCellProgress:
		l.s.liveTokS = e.LiveTokS
	case rundoc.EventCellDone:
		if e.Cell != nil {
			c := *e.Cell
			l.s.run.Cells = append(l.s.run.Cells, c)
			l.addTelemetry(c)
			l.s.index = e.Index + 1
		}
		l.s.measuring = false
	case rundoc.EventRunDone:
		if e.Run != nil {
			l.s.run.Status = e.Run.Status
			l.s.run.Error = e.Run.Error
		}
		l.s.measuring = false
		l.s.eta = 0
	}
}

// addTelemetry appends a finished cell's GPU samples to the sparklines:
// power summed over GPUs at each sample time (as GPUStats does) and the
// mean SM clock across GPUs.
func (l *live) addTelemetry(c rundoc.Cell) {
	type agg struct {
		power, clock float64
		n            int
	}
	var order []float64
	byT := map[float64]*agg{}
	for _, s := range c.GPUSamples {
		a, ok := byT[s.T]
		if !ok {
			a = &agg{}
			byT[s.T] = a
			order = append(order, s.T)
		}
		a.power += s.PowerW
		a.clock += s.SMClockMHz
		a.n++
	}
	for _, t := range order {
		a := byT[t]
		l.s.power = appendCapped(l.s.power, a.power)
		l.s.clock = appendCapped(l.s.clock, a.clock/float64(a.n))
	}
}

func appendCapped(xs []float64, v float64) []float64 {
	xs = append(xs, v)
	if len(xs) > sparkPoints {
		xs = xs[len(xs)-sparkPoints:]
	}
	return xs
}

// take returns a copy of the state when it changed since the last take.
func (l *live) take() (snapshot, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if !l.dirty {
		return snapshot{}, false
	}
	l.dirty = false
	s := l.s
	s.run.Cells = append([]rundoc.Cell(nil), l.s.run.Cells...)
	s.power = append([]float64(nil), l.s.power...)
	s.clock = append([]float64(nil), l.s.clock...)
	return s, true
}

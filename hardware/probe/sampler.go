package probe

import (
	"context"
	"errors"
	"fmt"
	"github.com/rigbench/rigbench/hardware"
	"slices"
	"sync"
	"time"
)

// gpuReaders reads the telemetry of every GPU of the machine. openDevices
// (per platform) returns one with NVML initialised; close shuts it down.
type gpuReaders interface {
	// read returns one sample per GPU, T left 0.
	read() []hardware.GPUSample
	close()
}

// Sampler samples GPU telemetry at an interval (DefaultInterval) between
// Start and Stop, for the windows opened with StartWindow. It implements
// the benchmark runner's Telemetry interface. It reads NVML only while a
// window is open, so an idle app costs the driver nothing.
//
// One goroutine owns the windows and takes the readings; StartWindow, the
// stop functions and the ticks reach it over channels, so every tick the
// goroutine has received is in the samples a later stop returns.
type Sampler struct {
	o options

	mu   sync.Mutex
	reqs chan windowReq // nil when not running
	quit chan struct{}
	done chan struct{}
}

// window is one StartWindow…stop span; the loop goroutine owns samples
// until done is closed or the window's stop is answered.
type window struct {
	start   time.Time
	samples []hardware.GPUSample
}

type windowReq struct {
	w     *window
	open  bool // open the window, else close it
	reply chan struct{}
}

// NewSampler returns a stopped sampler. Options: WithInterval, WithClock,
// WithTimeout (for NVML's start) and, on Linux, WithNVML.
func NewSampler(opts ...Option) *Sampler {
	return &Sampler{o: newOptions(opts)}
}

// ErrSamplerRunning is returned by Start on a sampler already started.
var ErrSamplerRunning = errors.New("the telemetry sampler is already running; stop it first")

// Start initialises NVML (waiting at most the timeout, as Detect does) and
// starts ticking. It fails when no GPU can be read: a run without a GPU
// simply passes no Telemetry.
func (s *Sampler) Start(ctx context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reqs != nil {
		return ErrSamplerRunning
	}
	readers, err := s.openWithTimeout(ctx)
	if err != nil {
		return err
	}
	s.reqs = make(chan windowReq)
	s.quit = make(chan struct{})
	s.done = make(chan struct{})
	go s.loop(readers, s.o.clock.NewTicker(s.o.interval), s.reqs, s.quit, s.done)
	return nil
}

// openWithTimeout runs openDevices on its own goroutine: nvmlInit can hang
// on a broken driver. A late success is closed again.
func (s *Sampler) openWithTimeout(ctx context.Context) (gpuReaders, error) {
	type result struct {
		r   gpuReaders
		err error
	}
	ch := make(chan result, 1)
	open := openDevices
	if s.o.read != nil {
		open = openReadings
	}
	go func() {
		r, err := open(s.o)
		ch <- result{r, err}
	}()
	timer := time.NewTimer(s.o.timeout)
	defer timer.Stop()
	abandon := func() {
		go func() {
			if res := <-ch; res.r != nil {
				res.r.close()
			}
		}()
	}
	select {
	case res := <-ch:
		return res.r, res.err
	case <-timer.C:
		abandon()
		return nil, fmt.Errorf("the NVIDIA driver did not answer within %s; check that nvidia-smi works, then start again", s.o.timeout)
	case <-ctx.Done():
		abandon()
		return nil, ctx.Err()
	}
}

// Stop ends sampling and shuts NVML down. Windows still open keep the
// samples taken so far. Stop on a stopped sampler does nothing.
func (s *Sampler) Stop() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.reqs == nil {
		return
	}
	close(s.quit)
	<-s.done
	s.reqs, s.quit, s.done = nil, nil, nil
}

// StartWindow opens a window; stop closes it and returns the samples taken
// since, one per GPU per tick, T in seconds since StartWindow. A window
// that saw no tick (shorter than the interval) gets one reading at stop,
// so short cells still report power. On a stopped sampler the window
// collects nothing and stop returns nil.
func (s *Sampler) StartWindow() (stop func() []hardware.GPUSample) {
	s.mu.Lock()
	reqs, done := s.reqs, s.done
	s.mu.Unlock()
	if reqs == nil {
		return func() []hardware.GPUSample { return nil }
	}
	w := &window{start: s.o.clock.Now()}
	if !send(reqs, done, windowReq{w: w, open: true, reply: make(chan struct{})}) {
		return func() []hardware.GPUSample { return nil }
	}
	var once sync.Once
	return func() []hardware.GPUSample {
		once.Do(func() { send(reqs, done, windowReq{w: w, reply: make(chan struct{})}) })
		return w.samples
	}
}

// send hands req to the loop and waits for its answer; false when the loop
// has ended (after which the window's samples are safe to read).
func send(reqs chan<- windowReq, done <-chan struct{}, req windowReq) bool {
	select {
	case reqs <- req:
		<-req.reply
		return true
	case <-done:
		return false
	}
}

// loop owns the windows: on each tick it reads every GPU once and adds the
// readings to every open window.
func (s *Sampler) loop(r gpuReaders, t Ticker, reqs <-chan windowReq, quit <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	defer r.close()
	defer t.Stop()
	open := map[*window]bool{}
	for {
		select {
		case <-quit:
			return
		case tick := <-t.C():
			if len(open) > 0 {
				s.record(r.read(), tick, open)
			}
		case req := <-reqs:
			if req.open {
				open[req.w] = true
			} else if open[req.w] {
				delete(open, req.w)
				if len(req.w.samples) == 0 {
					s.record(r.read(), s.o.clock.Now(), map[*window]bool{req.w: true})
				}
			}
			close(req.reply)
		}
	}
}

// record stamps readings taken at time at with each window's T and appends
// them. A tick that fired just before a window opened but was received
// after counts as T = 0: the reading itself is taken after the start.
func (s *Sampler) record(readings []hardware.GPUSample, at time.Time, windows map[*window]bool) {
	for w := range windows {
		t := max(at.Sub(w.start).Seconds(), 0)
		for _, g := range readings {
			g.T = t
			g.Throttle = slices.Clone(g.Throttle)
			w.samples = append(w.samples, g)
		}
	}
}

// funcReaders reads telemetry through WithReadings' function.
type funcReaders struct {
	fn func() ([]hardware.GPUSample, error)
}

// openReadings takes the first reading, so a source that cannot be read
// fails Start as NVML does.
func openReadings(o options) (gpuReaders, error) {
	s, err := o.read()
	if err != nil {
		return nil, fmt.Errorf("cannot sample the GPU: %w", err)
	}
	if len(s) == 0 {
		return nil, errors.New("cannot sample the GPU: no GPU was read")
	}
	return funcReaders{o.read}, nil
}

func (f funcReaders) read() []hardware.GPUSample {
	s, err := f.fn()
	if err != nil {
		return nil
	}
	return s
}

func (funcReaders) close() {}

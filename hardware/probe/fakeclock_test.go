package probe_test

import (
	"sync"
	"sync/atomic"
	"time"

	"github.com/rigbench/rigbench/hardware/probe"
)

// fakeClock is a hardware.Clock whose time moves only when the test ticks.
// Tick sends on an unbuffered channel, so it returns once the sampler has
// received the tick; the sampler handles it before any later request.
type fakeClock struct {
	mu     sync.Mutex
	now    time.Time
	ticker *fakeTicker
}

type fakeTicker struct {
	c       chan time.Time
	period  time.Duration
	stopped atomic.Bool
}

func newFakeClock() *fakeClock {
	return &fakeClock{now: time.Date(2025, 1, 2, 3, 4, 5, 0, time.UTC)}
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

func (c *fakeClock) NewTicker(d time.Duration) probe.Ticker {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.ticker = &fakeTicker{c: make(chan time.Time), period: d}
	return c.ticker
}

// Advance moves the time without a tick.
func (c *fakeClock) Advance(d time.Duration) {
	c.mu.Lock()
	c.now = c.now.Add(d)
	c.mu.Unlock()
}

// Tick advances by one period and delivers the tick.
func (c *fakeClock) Tick() {
	c.mu.Lock()
	c.now = c.now.Add(c.ticker.period)
	now, ch := c.now, c.ticker.c
	c.mu.Unlock()
	ch <- now
}

func (c *fakeClock) period() time.Duration {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ticker.period
}

func (c *fakeClock) tickerStopped() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ticker.stopped.Load()
}

func (t *fakeTicker) C() <-chan time.Time { return t.c }
func (t *fakeTicker) Stop()               { t.stopped.Store(true) }

package sim

import (
	"runtime"
	"time"
)

// sleepSlack is the shortest wait worth a timer: a step due sooner than
// this is released at once (at most this early), so high speed factors with
// sub-millisecond steps batch several steps per wake-up instead of paying a
// timer each.
const sleepSlack = 200 * time.Microsecond

// loop drives the engine core in real time. Each step runs at once and its
// tokens are released at the step's absolute deadline start + end/speed,
// never at "now + cost", so the simulated clock cannot drift from the wall
// clock however many steps there are. When the engine is behind, steps run
// back to back until it catches up. When it is idle, its clock follows the
// wall clock, so a request's arrival gets the simulated time it arrived at.
func (s *Server) loop() {
	defer close(s.loopDone)
	for {
		s.mu.Lock()
		if s.closed || s.dead {
			s.mu.Unlock()
			return
		}
		c := s.core
		if !c.busy() {
			next, ok := c.nextEvent()
			if ok && time.Until(s.realAt(next)) < sleepSlack {
				c.idleUntil(next) // due (or overdue): start it on its own time
			} else {
				c.idleUntil(s.simNow()) // idle: follow the wall clock
			}
			if !c.busy() {
				s.mu.Unlock()
				var deadline time.Time
				if ok {
					deadline = s.realAt(next)
				}
				s.sleep(deadline, true)
				continue
			}
		}
		out := c.step()
		deadline := s.realAt(c.now)
		s.mu.Unlock()
		s.sleep(deadline, false)
		s.mu.Lock()
		s.publish(out)
		s.mu.Unlock()
		if s.speedInf() {
			runtime.Gosched()
		}
	}
}

func (s *Server) speedInf() bool { return s.realDuration(1) == 0 }

// sleep waits until deadline (zero: indefinitely), or until Close; when
// wakeable, also until a new request or abort nudges the loop.
func (s *Server) sleep(deadline time.Time, wakeable bool) {
	var timer <-chan time.Time
	if !deadline.IsZero() {
		d := time.Until(deadline)
		if d < sleepSlack {
			return
		}
		t := time.NewTimer(d)
		defer t.Stop()
		timer = t.C
	}
	var wake chan struct{}
	if wakeable {
		wake = s.wake
	}
	select {
	case <-timer:
	case <-wake:
	case <-s.done:
	case <-s.exited:
	}
}

// publish releases a step's tokens to the waiting handlers.
func (s *Server) publish(out []emission) {
	s.publishFailed()
	for _, e := range out {
		st, ok := s.streams[e.s]
		if !ok || e.s.aborted {
			continue
		}
		if st.published == 0 && e.tokens > 0 {
			s.onFirstToken(e.s)
			st.rec.SimFirstTokenS = e.s.firstTokenAt
			// The prefix hit was settled when the engine scheduled the
			// request: the record says it from the first token on, not
			// only once the handler ends (a busy machine runs a cancelled
			// stream's release late, and a test reading the truth at once
			// saw 0 cached tokens).
			st.rec.CachedTokens = e.s.cached
		}
		if st.stamped && e.tokens > 0 {
			st.steps = append(st.steps, stepOut{n: e.tokens, at: e.s.lastTokenAt, first: st.published == 0})
		}
		if e.tokens > 0 {
			// Kept for a handler that stamps only later (streamResponse).
			if st.published == 0 {
				st.firstAt = e.s.lastTokenAt
			}
			st.lastAt = e.s.lastTokenAt
		}
		st.published += e.tokens
		if e.finished {
			st.finished = true
			s.onFinish(e.s)
		}
		signal(st.notify)
	}
}

// Package job keeps the state of one background job of a view (a run, a
// sweep): whether it is going, how to stop it, and a channel closed once
// its goroutine has ended, which tests wait on. The views' goroutines and
// the UI goroutine both read it, so it is guarded by its own mutex.
package job

import (
	"context"
	"sync"
)

// Job is one background job at a time. The zero value is idle.
type Job struct {
	mu     sync.Mutex
	cancel context.CancelFunc
	done   chan struct{}
}

// Begin records a job started with cancel and returns the channel its
// goroutine closes when it returns.
func (j *Job) Begin(cancel context.CancelFunc) chan struct{} {
	done := make(chan struct{})
	j.mu.Lock()
	j.cancel, j.done = cancel, done
	j.mu.Unlock()
	return done
}

// End records that the job's outcome is known: it no longer runs (its done
// channel is closed by its goroutine as it returns).
func (j *Job) End() {
	j.mu.Lock()
	j.cancel = nil
	j.mu.Unlock()
}

// Running reports whether a job is going.
func (j *Job) Running() bool {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.cancel != nil
}

// Cancel stops the job in progress, if any, and reports whether there was
// one.
func (j *Job) Cancel() bool {
	j.mu.Lock()
	cancel := j.cancel
	j.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	return cancel != nil
}

// Done is closed when the job started last has returned; a closed channel
// when none was started.
func (j *Job) Done() <-chan struct{} {
	j.mu.Lock()
	defer j.mu.Unlock()
	if j.done == nil {
		c := make(chan struct{})
		close(c)
		return c
	}
	return j.done
}

package probe

import (
	"time"

	"github.com/rigbench/rigbench/hardware"
)

// Default settings of Detect and NewSampler.
const (
	// DefaultTimeout bounds NVML initialisation and the device queries. A
	// healthy driver answers in well under a second; a broken one (a GPU
	// fallen off the bus, a driver mid-upgrade) can block nvmlInit forever.
	DefaultTimeout = 10 * time.Second
	// DefaultInterval is the telemetry sampling interval: NVML refreshes
	// power and utilisation about once a second, so sampling faster only
	// repeats readings.
	DefaultInterval = time.Second
)

// Option configures Detect and NewSampler (functional options with the
// named defaults above). WithInterval and WithClock matter only to the
// sampler.
type Option func(*options)

type options struct {
	timeout  time.Duration
	interval time.Duration
	clock    Clock
	// lib is the NVML binding (an NVML value on Linux with cgo); nil means
	// the system's libnvidia-ml. It is typed any so that this file builds
	// everywhere; WithNVML (Linux, cgo) is the only way to set it.
	lib any
	// read replaces NVML as the sampler's source (WithReadings).
	read func() ([]hardware.GPUSample, error)
}

func newOptions(opts []Option) options {
	o := options{timeout: DefaultTimeout, interval: DefaultInterval, clock: realClock{}}
	for _, opt := range opts {
		if opt != nil {
			opt(&o)
		}
	}
	return o
}

// WithTimeout bounds how long detection (or the sampler's start) waits for
// the NVIDIA driver. Values ≤ 0 keep DefaultTimeout.
func WithTimeout(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.timeout = d
		}
	}
}

// WithInterval sets the sampler's interval. Values ≤ 0 keep DefaultInterval.
func WithInterval(d time.Duration) Option {
	return func(o *options) {
		if d > 0 {
			o.interval = d
		}
	}
}

// WithClock replaces the wall clock of the sampler (tests pass a fake one
// whose ticks they fire by hand). A nil clock keeps the wall clock.
func WithClock(c Clock) Option {
	return func(o *options) {
		if c != nil {
			o.clock = c
		}
	}
}

// WithReadings makes the sampler take its readings from read instead of
// NVML: a GPU RigBench cannot open here, such as a remote rig's, read
// with nvidia-smi in its serving container. read returns one sample per
// GPU, T left 0 (the sampler stamps it). Start takes one reading and
// fails with its error, so a rig whose GPUs cannot be read runs without
// telemetry and says why; a later failed reading only costs that tick.
// A nil read keeps NVML.
func WithReadings(read func() ([]hardware.GPUSample, error)) Option {
	return func(o *options) {
		if read != nil {
			o.read = read
		}
	}
}

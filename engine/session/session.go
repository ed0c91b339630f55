package session

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
)

// Kind says what the session benchmarks.
type Kind string

// Target kinds.
const (
	// Endpoint: an OpenAI-compatible server already running.
	Endpoint Kind = "endpoint"
	// Demo: RigBench's simulated vLLM server, in process on 127.0.0.1.
	Demo Kind = "demo"
	// Launch: vLLM in Docker, started and stopped by the session.
	Launch Kind = "launch"
)

// Options describe one session.
type Options struct {
	Kind Kind
	// Endpoint and APIKey address an existing server (Kind Endpoint).
	Endpoint, APIKey string
	// Sim configures the simulator (Kind Demo). The zero value means
	// sim.DefaultConfig() (default profile, prefix caching on, speed 1);
	// otherwise start from DefaultConfig and change what you need.
	Sim sim.Config
	// SimLaunch (Kind Demo, may be nil) records the vLLM flags the
	// simulator was given, as a launch records its command line, so a demo
	// run shows which flags it measured.
	SimLaunch *rundoc.Launch
	// Launcher starts the container (Kind Launch); see launch.go.
	Launcher Launcher
	// Model to benchmark ("" = the server's first).
	Model string
	// Plan to run.
	Plan rundoc.Plan
	// Name, Tags and Notes label the run.
	Name  string
	Tags  []string
	Notes string
	// Observers receive the run's events (CLI progress, UI, history store).
	Observers []rundoc.Observer
	// Hardware is the snapshot to record; nil detects it (DetectTimeout).
	Hardware *hardware.Snapshot
	// Telemetry samples GPUs in windows; nil: a sampler is made when the
	// snapshot lists a GPU.
	Telemetry bench.Telemetry
	// NoTelemetry turns GPU sampling off.
	NoTelemetry bool
	// Log receives server log lines (simulator start-up, container logs).
	Log func(line string)
}

// DetectTimeout bounds hardware detection: NVML init can hang on a broken
// driver, and a benchmark must not.
const DetectTimeout = 10 * time.Second

// Run performs the session and returns the run document, which holds every
// finished cell even when err is not nil.
func Run(ctx context.Context, o Options) (*rundoc.Run, error) {
	if o.Log == nil {
		o.Log = func(string) {}
	}
	doc := &rundoc.Run{Name: o.Name, Tags: o.Tags, Notes: o.Notes}
	if o.Hardware == nil {
		hctx, cancel := context.WithTimeout(ctx, DetectTimeout)
		snap := probe.Detect(hctx)
		cancel()
		o.Hardware = &snap
	}
	doc.Hardware = o.Hardware

	endpoint, apiKey, kvFromLog := o.Endpoint, o.APIKey, 0
	switch o.Kind {
	case Endpoint, "":
	case Demo:
		if reflect.ValueOf(o.Sim).IsZero() {
			o.Sim = sim.DefaultConfig()
		}
		stop, url, err := startSim(o.Sim, o.Log)
		if err != nil {
			return doc, err
		}
		defer stop()
		endpoint, apiKey = url, o.Sim.APIKey
		doc.Simulated = true
		doc.Launch = o.SimLaunch
	case Launch:
		if o.Launcher == nil {
			return doc, errors.New("no launcher configured for a launch session")
		}
		srv, err := o.Launcher.Launch(ctx, o.Log)
		if err != nil {
			return doc, err
		}
		defer func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
			defer cancel()
			if err := srv.Stop(sctx); err != nil {
				o.Log("stopping the server: " + err.Error())
			}
		}()
		endpoint, apiKey, kvFromLog = srv.Endpoint, srv.APIKey, srv.KVCapacity
		doc.Launch = srv.Record
		doc.Simulated = srv.Simulated
	default:
		return doc, fmt.Errorf("unknown session kind %q", o.Kind)
	}

	c, err := client.New(endpoint, client.WithAPIKey(apiKey), client.WithConcurrency(maxInt(o.Plan.Concurrency)))
	if err != nil {
		return doc, err
	}
	defer c.CloseIdle()

	tel := o.Telemetry
	if tel == nil && !o.NoTelemetry && len(o.Hardware.GPUs) > 0 {
		s := probe.NewSampler()
		if err := s.Start(ctx); err == nil {
			defer s.Stop()
			tel = s
		} else {
			o.Log("GPU telemetry is off: " + err.Error())
		}
	}
	r := &bench.Runner{
		Client:            c,
		Model:             o.Model,
		Plan:              o.Plan,
		Observer:          rundoc.Observers(o.Observers),
		Telemetry:         tel,
		KVCapacityFromLog: kvFromLog,
		Doc:               doc,
	}
	return r.Run(ctx)
}

func maxInt(xs []int) int {
	m := 1
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// startSim serves the simulator on a free 127.0.0.1 port.
func startSim(cfg sim.Config, log func(string)) (stop func(), url string, err error) {
	s, err := sim.New(cfg)
	if err != nil {
		return nil, "", err
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return nil, "", fmt.Errorf("start the simulator: %w", err)
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	log(fmt.Sprintf("simulated vLLM server on http://%s (model %s, KV cache %d tokens)", l.Addr(), s.Model(), s.KVCapacityTokens()))
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Close()
		hs.Shutdown(ctx)
		hs.Close()
	}
	return stop, "http://" + l.Addr().String(), nil
}

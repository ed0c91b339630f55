package session

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"reflect"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
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
	// OnSim (Kind Demo, may be nil) is handed the simulator before it
	// serves: tests read its ground truth (sim.Server.SpecTruth, TrueRate)
	// over a cell's window.
	OnSim func(*sim.Server)
	// SimLaunch (Kind Demo, may be nil) records the vLLM flags the
	// simulator was given, as a launch records its command line, so a demo
	// run shows which flags it measured.
	SimLaunch *rundoc.Launch
	// Launcher starts the container (Kind Launch); see launch.go.
	Launcher Launcher
	// WeightsGiB is the model's size in memory as the user gives it
	// (0: unknown), for an endpoint RigBench did not start; it replaces
	// the start-up log's in the roofline figure (METHOD.md: Roofline).
	WeightsGiB float64
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
	// StopWhenNothingRuns stops the run at its start, once the server's
	// limits are known, when no cell of the plan can run on it (CheckPlan):
	// such a run would measure nothing yet end "complete". The run then
	// reaches no observer and Run returns the *NothingRunsError.
	StopWhenNothingRuns bool
	// Resume, when set, continues that run (one that stopped, say because
	// its server died) into the same document: its plan, name and
	// hardware stand, its cells with a result stay exactly as they are, and
	// only its Failed, Cancelled and missing cells are measured (Plan and
	// Hardware are ignored). The server must be the one the run measured.
	Resume *rundoc.Run
	// Quality, when set, is asked of the server after a complete run, before
	// it stops (RunQuality); nil asks nothing.
	Quality *RunQuality
}

// DetectTimeout bounds hardware detection: NVML init can hang on a broken
// driver, and a benchmark must not.
const DetectTimeout = 10 * time.Second

// DetectHardware is the snapshot a run or a sweep records when it is given
// none: every probe (the NVIDIA driver's, and the CPU, memory and OS
// reads) bounded by DetectTimeout, so a hung driver delays a run by at
// most that and the snapshot says why its GPUs are missing.
func DetectHardware(ctx context.Context) hardware.Snapshot {
	hctx, cancel := context.WithTimeout(ctx, DetectTimeout)
	defer cancel()
	return probe.Detect(hctx, probe.WithTimeout(DetectTimeout))
}

// Run performs the session and returns the run document, which holds every
// finished cell even when err is not nil.
func Run(ctx context.Context, o Options) (*rundoc.Run, error) {
	if o.Log == nil {
		o.Log = func(string) {}
	}
	doc := &rundoc.Run{Name: o.Name, Tags: o.Tags, Notes: o.Notes}
	var kept []rundoc.Cell
	if o.Resume != nil {
		d := *o.Resume
		// The model is left to the server (or o.Model): the runner
		// refuses a server whose model is not the one the run measured.
		doc, kept, o.Plan, o.Hardware = &d, o.Resume.Cells, o.Resume.Plan, o.Resume.Hardware
	}
	if o.Resume != nil {
		// Refused before anything starts where the launch is known now,
		// else once the server has started, before any cell runs.
		if planned, ok := plannedLaunch(o); ok {
			if err := checkResumeLaunch(o.Resume, planned, demoSpeed(o)); err != nil {
				return o.Resume, err
			}
		}
	}
	remote := remoteRig(o)
	_, cluster := o.Launcher.(*ClusterLauncher) // reads its rigs' hardware itself (Server.Hardware)
	if o.Hardware == nil && o.Resume == nil && remote == nil && !cluster {
		snap := DetectHardware(ctx)
		o.Hardware = &snap
	}
	if o.Resume == nil {
		doc.Hardware = o.Hardware
	}

	resumed := doc.Launch
	t, err := startTarget(ctx, &o, doc)
	if err != nil {
		return doc, err
	}
	defer t.stop()
	if o.Resume != nil {
		if _, known := plannedLaunch(o); !known {
			if err := checkResumeLaunch(o.Resume, doc.Launch, demoSpeed(o)); err != nil {
				doc.Launch = resumed
				return o.Resume, err
			}
		}
	}
	if remote != nil && o.Hardware == nil && o.Resume == nil {
		// Read after the launch, with the image just started: it is on
		// the rig now, and nvidia-smi runs in it.
		snap, err := RigHardware(ctx, remote.Rig, []string{remote.Config.ImageRef()}, remote.Options...)
		if err != nil {
			snap.GPUAbsentReason = "reading the rig's hardware failed: " + err.Error()
		}
		o.Hardware, doc.Hardware = &snap, &snap
	}
	if doc.Name == "" {
		doc.Name = defaultRunName(o, doc, time.Now())
	}

	c, err := client.New(t.endpoint, client.WithAPIKey(t.apiKey), client.WithConcurrency(maxInt(o.Plan.Concurrency)), client.WithDial(t.dial))
	if err != nil {
		return doc, err
	}
	defer c.CloseIdle()

	tel := o.Telemetry
	// A server behind a tunnel (launched here on a rig, or the app's
	// Launch page's server on a rig, reused) is read with nvidia-smi in its
	// container: this machine's GPUs are not the ones it runs on.
	if t.telemetry != nil && tel == nil && !o.NoTelemetry {
		// A cluster: every rig's GPUs, each read on its own rig.
		if s, err := t.telemetry(ctx, o.Log); err == nil {
			defer s.Stop()
			tel = s
		} else {
			o.Log("GPU telemetry is off: " + err.Error())
		}
	} else if tunnelled := remote != nil || t.dial != nil; tunnelled && tel == nil && !o.NoTelemetry {
		var conn *rig.Conn
		if remote != nil {
			conn = remote.Rig
		}
		if s, err := startRigTelemetry(ctx, conn, t.exec, o.Log); err == nil {
			defer s.Stop()
			tel = s
		} else {
			o.Log("GPU telemetry is off: " + err.Error())
		}
	} else if tel == nil && !o.NoTelemetry && o.Hardware != nil && len(o.Hardware.GPUs) > 0 {
		s := probe.NewSampler()
		if err := s.Start(ctx); err == nil {
			defer s.Stop()
			tel = s
		} else {
			o.Log("GPU telemetry is off: " + err.Error())
		}
	}
	var obs rundoc.Observer = rundoc.Observers(o.Observers)
	var guard *planGuard
	if o.StopWhenNothingRuns {
		var cancel context.CancelCauseFunc
		ctx, cancel = context.WithCancelCause(ctx)
		defer cancel(nil)
		guard = &planGuard{next: obs, cancel: cancel}
		obs = guard
	}
	var held *heldEnd
	if o.Quality != nil {
		held = &heldEnd{next: obs}
		obs = held
	}
	r := &bench.Runner{
		Client:                c,
		Model:                 o.Model,
		Plan:                  o.Plan,
		Observer:              obs,
		Telemetry:             tel,
		KVCapacityFromLog:     t.startup.KVCacheTokens,
		Roofline:              runRoofline(o, doc, t),
		CachedWeightsGiB:      cachedWeights(o),
		CachedKVBytesPerToken: cachedKV(o),
		SlotsFromLaunch:       slotsOf(o, doc),
		Doc:                   doc,
		Kept:                  kept,
		Exited:                t.exited,
		ExitReport:            t.exitReport,
		LinkLost:              t.linkLost,
	}
	if o.Kind != Demo {
		// The demo's simulator runs in this process: its work is not the
		// client's, so only a server elsewhere gets RigBench's share.
		r.ClientCPU = bench.ProcessCPU
	}
	run, err := r.Run(ctx)
	if held != nil {
		if err == nil && run != nil && run.Status == rundoc.RunComplete {
			probeRun(ctx, &o, c, run)
		}
		held.release(run)
	}
	if guard != nil && guard.err != nil {
		return run, guard.err
	}
	return run, err
}

// planGuard stands in front of a run's observers: at the run's first
// event, when the server's limits are known and before any cell runs, it
// stops a run in which no cell can run. The stopped run reaches none of
// the observers behind it (no progress, no history).
type planGuard struct {
	next   rundoc.Observer
	cancel context.CancelCauseFunc
	// err is why the run was stopped; read it after the runner returns.
	err error
}

// Observe implements rundoc.Observer.
func (g *planGuard) Observe(e rundoc.Event) {
	if g.err != nil {
		return
	}
	if e.Kind == rundoc.EventRunStarted && e.Run != nil {
		if err := CheckPlan(e.Run.Plan, e.Run.Server); err != nil {
			g.err = err
			g.cancel(err)
			return
		}
	}
	g.next.Observe(e)
}

// target is a started server: how to reach it, what its start-up told,
// how to learn that it exited (a launched container) and how to stop it.
type target struct {
	endpoint, apiKey string
	// startup is what the server's start-up log told (the simulator's,
	// or the launched container's); empty for an endpoint.
	startup    vllm.FactsSnapshot
	exited     <-chan struct{}
	exitReport func() string
	dial       func(ctx context.Context, network, addr string) (net.Conn, error)
	linkLost   func() error
	exec       func(ctx context.Context, cmd []string) (string, error)
	// telemetry is Server.Telemetry (nil: none of its own).
	telemetry func(ctx context.Context, log func(string)) (*probe.Sampler, error)
	stop      func()
}

// startTarget starts what o benchmarks (nothing for an endpoint, the
// simulator, or the launcher's server), notes in doc whether it is
// simulated and how it was launched, and returns the target.
func startTarget(ctx context.Context, o *Options, doc *rundoc.Run) (target, error) {
	t := target{endpoint: o.Endpoint, apiKey: o.APIKey, stop: func() {}}
	switch o.Kind {
	case Endpoint, "":
	case Demo:
		if reflect.ValueOf(o.Sim).IsZero() {
			o.Sim = sim.DefaultConfig()
		}
		stop, endpoint, startup, err := startSim(o.Sim, o.Log, o.OnSim)
		if err != nil {
			return target{}, err
		}
		t.stop, t.endpoint, t.apiKey, t.startup = stop, endpoint, o.Sim.APIKey, startup
		doc.Simulated = true
		doc.Launch = o.SimLaunch
	case Launch:
		if o.Launcher == nil {
			return target{}, errors.New("no launcher configured for a launch session")
		}
		srv, err := o.Launcher.Launch(ctx, o.Log)
		if err != nil {
			return target{}, err
		}
		t.stop = func() {
			sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 60*time.Second)
			defer cancel()
			if err := srv.Stop(sctx); err != nil {
				o.Log("stopping the server: " + err.Error())
			}
		}
		t.endpoint, t.apiKey = srv.Endpoint, srv.APIKey
		t.startup = vllm.FactsSnapshot{KVCacheTokens: srv.KVCapacity, KVCacheGiB: srv.KVCacheGiB, WeightsGiB: srv.WeightsGiB}
		t.exited, t.exitReport = srv.Exited, srv.ExitReport
		t.dial, t.linkLost, t.exec, t.telemetry = srv.Dial, srv.LinkLost, srv.Exec, srv.Telemetry
		doc.Launch = srv.Record
		doc.Rig = srv.Rig
		if srv.Hardware != nil && o.Hardware == nil && o.Resume == nil {
			o.Hardware, doc.Hardware = srv.Hardware, srv.Hardware
		}
		doc.Simulated = srv.Simulated
	default:
		return target{}, fmt.Errorf("unknown session kind %q", o.Kind)
	}
	return t, nil
}

// slotsOf is how many requests the target runs at once, where RigBench
// knows it from the launch: vLLM's --max-num-seqs of the launched server,
// or the demo's (0: unknown).
func slotsOf(o Options, doc *rundoc.Run) int {
	if o.Kind == Demo {
		return demoSlots(o.Sim)
	}
	return launchSlots(doc.Launch)
}

// remoteRig is the Docker launcher of a session whose server runs on a
// remote rig, nil otherwise: its hardware is read through the rig, and
// this machine's GPUs are neither recorded nor sampled for it.
func remoteRig(o Options) *DockerLauncher {
	if d, ok := o.Launcher.(*DockerLauncher); ok && o.Kind == Launch && d.Rig.Remote() {
		return d
	}
	return nil
}

func maxInt(xs []int) int {
	m := 1
	for _, x := range xs {
		m = max(m, x)
	}
	return m
}

// startSim serves the simulator on a free 127.0.0.1 port and returns what
// its start-up log tells, read by the recognisers that read vLLM's.
func startSim(cfg sim.Config, log func(string), onSim func(*sim.Server)) (stop func(), url string, startup vllm.FactsSnapshot, err error) {
	s, err := sim.New(cfg)
	if err != nil {
		return nil, "", startup, err
	}
	if onSim != nil {
		onSim(s)
	}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		s.Close()
		return nil, "", startup, fmt.Errorf("start the simulator: %w", err)
	}
	var startLog bytes.Buffer
	s.WriteStartupLog(&startLog)
	facts := vllm.NewStartupFacts(cfg.Profile.BlockSize)
	for _, line := range strings.Split(startLog.String(), "\n") {
		facts.Observe(line)
	}
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second}
	go hs.Serve(l)
	log(fmt.Sprintf("simulated vLLM server on http://%s (model %s, KV cache %s)", l.Addr(), s.Model(), rundoc.TokensText(s.KVCapacityTokens())))
	stop = func() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.Close()
		hs.Shutdown(ctx)
		hs.Close()
	}
	return stop, "http://" + l.Addr().String(), facts.Snapshot(), nil
}

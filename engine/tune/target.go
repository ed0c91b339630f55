package tune

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Target starts the variants of a sweep: it turns a launch configuration
// into the options of an engine/session run, which owns the one launch
// sequence (start, wait until ready, measure, stop).
type Target interface {
	// Session returns the options that start cfg. An error is the variant's
	// start-up failure (the simulator refuses its flags as vLLM would).
	Session(cfg vllm.LaunchConfig) (session.Options, error)
	// Speed is the factor by which windows are shorter than the plan's
	// (the simulator's speed; 1 for a real server).
	Speed() float64
	// StartupGuess is the expected launch time before one was measured.
	StartupGuess() time.Duration
}

// Demo runs each variant on RigBench's simulated vLLM server in process,
// as the app's Demo target does, with the variant's vLLM flags parsed by
// the simulator (engine/sim.ParseArgs): fp8 KV, max-num-seqs and the rest
// take effect as on a card.
type Demo struct {
	// Sim holds the simulator settings that are not vLLM flags: the
	// profile (the card imitated, unless the flags name one with
	// --profile) and the speed factor.
	Sim sim.Config
}

var _ Target = Demo{}

// Session parses the variant's command line into the simulator's
// configuration.
func (d Demo) Session(cfg vllm.LaunchConfig) (session.Options, error) {
	c, err := session.DemoConfig(cfg, d.Speed())
	if err != nil {
		return session.Options{}, err
	}
	if d.Sim.Profile.Name != "" && !hasFlag(session.DemoArgs(cfg), "--profile") {
		c.Profile = d.Sim.Profile
	}
	// The simulator validates its sizing when session starts it, as vLLM
	// does at start-up, so that failure surfaces from session.Run.
	return session.Options{Kind: session.Demo, Sim: c, SimLaunch: session.DemoLaunch(cfg, c)}, nil
}

// Facts is the simulator's sizing for cfg, computed without starting it
// (session.DemoFacts), to predict which cells fit (for the estimate):
// max_model_len and KV capacity.
func (d Demo) Facts(cfg vllm.LaunchConfig) (maxModelLen, kvCapacity int, ok bool) {
	o, err := d.Session(cfg)
	if err != nil {
		return 0, 0, false
	}
	f, err := session.DemoFacts(o.Sim)
	if err != nil {
		return 0, 0, false
	}
	return f.MaxModelLen, f.KVCapacity, true
}

// Speed is the simulator's speed factor.
func (d Demo) Speed() float64 { return max(1, d.Sim.Speed) }

// StartupGuess: the simulator starts at once.
func (d Demo) StartupGuess() time.Duration { return 100 * time.Millisecond }

func hasFlag(args []string, name string) bool {
	for _, a := range args {
		if a == name || strings.HasPrefix(a, name+"=") {
			return true
		}
	}
	return false
}

// Docker launches each variant as a container through engine/session's
// DockerLauncher (the Hugging Face cache folder of the base launch is
// mounted every time, so weights download once).
type Docker struct {
	// Launching is how the front end has each variant's server started
	// (session.NewDockerLauncher): the rig's connection, pull progress,
	// its leftovers policy; tests add docker options there.
	Launching session.Launching
	// SimSpeed is the --speed of a simulator image, which shortens its
	// windows; 0 or 1 for vLLM.
	SimSpeed float64
	// Startup is the expected launch time (0: a minute, a model load).
	Startup time.Duration
	// Cluster launches each variant over several rigs (Spec.Cluster; nil:
	// one rig).
	Cluster *session.ClusterInput
}

var _ Target = Docker{}

// Session returns a launch session for cfg.
func (d Docker) Session(cfg vllm.LaunchConfig) (session.Options, error) {
	if cfg.Model == "" {
		return session.Options{}, errors.New("a launch sweep needs the model to serve")
	}
	if d.Cluster != nil {
		// The one constructor run --launch --rigs and the app use: the
		// variant's flags (its split among them) planned over the rigs.
		in := session.TargetInput{Kind: session.Launch, Launch: cfg, Cluster: *d.Cluster}
		return in.Options(d.Launching)
	}
	return session.Options{Kind: session.Launch, Launcher: session.NewDockerLauncher(cfg, d.Launching)}, nil
}

// targetOf is the target variant v launches on: the sweep's, or for a
// variant with its own interface (InterfaceDimension) the sweep's cluster
// with that interface, so its nodes' NCCL and Gloo take that link and its
// run records it.
func (r *Runner) targetOf(v Variant) Target {
	d, ok := r.Target.(Docker)
	if !ok || v.Interface == "" || d.Cluster == nil {
		return r.Target
	}
	c := *d.Cluster
	c.Interface = v.Interface
	d.Cluster = &c
	return d
}

// Speed is the simulator image's speed factor, 1 for vLLM.
func (d Docker) Speed() float64 { return max(1, d.SimSpeed) }

// StartupGuess is the expected launch time.
func (d Docker) StartupGuess() time.Duration {
	if d.Startup > 0 {
		return d.Startup
	}
	return time.Minute
}

// NewRunner builds a sweep's runner from its spec, in both front ends and
// for a new sweep (SpecInput.Runner) as for a resume: on the demo, the
// simulator of the spec's profile (SimProfile, "" for the default) at its
// speed; on Docker, each variant started as how says (the front end's
// observers and leftovers policy; UseRig sets its rig), with the windows
// of a simulator image shortened by its --speed (SimImageSpeed).
func NewRunner(spec Spec, how session.Launching) (*Runner, error) {
	r := &Runner{Spec: spec}
	switch spec.Target {
	case TargetDemo:
		cfg := sim.DefaultConfig()
		if spec.SimProfile != "" {
			p, err := sim.ProfileByName(spec.SimProfile)
			if err != nil {
				return nil, err
			}
			cfg.Profile = p
		}
		cfg.Speed = max(1, spec.SimSpeed)
		r.Target = Demo{Sim: cfg}
	case TargetLaunch:
		r.Target = Docker{SimSpeed: SimImageSpeed(spec.Base), Launching: how, Cluster: spec.Cluster}
	default:
		return nil, fmt.Errorf("sweep %s does not say where it runs (%q): the demo or a Docker launch", spec.ID, spec.Target)
	}
	return r, nil
}

// UseRig has a launch sweep's variants start on conn, the rig its spec
// names, which the front end connects once for all of them after checking
// the sweep (nil: this machine's daemon). It does nothing on the demo.
func (r *Runner) UseRig(conn *rig.Conn) {
	if d, ok := r.Target.(Docker); ok {
		d.Launching.Rig = conn
		r.Target = d
	}
}

// SimImageSpeed is the --speed a launch of RigBench's simulator image
// passes it (after the model, in Extra), 1 for vLLM: the factor by which
// its windows, and so the sweep's estimate, are shorter.
func SimImageSpeed(c vllm.LaunchConfig) float64 {
	for i, a := range c.Extra {
		if a == "--speed" && i+1 < len(c.Extra) {
			if s, err := strconv.ParseFloat(c.Extra[i+1], 64); err == nil && s > 1 && !math.IsInf(s, 0) {
				return s
			}
		}
	}
	return 1
}

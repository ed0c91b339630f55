package session

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// The inputs of a target, named as the CLI's flags are (rundoc.Field's
// rule), so that each front end words a *rundoc.FieldError about one in
// its own terms: "--weights-gib" in the CLI, "Model size" in the app.
const (
	// FieldEndpoint is an existing server's address.
	FieldEndpoint rundoc.Field = "endpoint"
	// FieldWeightsGiB is an endpoint's model size on the card in GiB.
	FieldWeightsGiB rundoc.Field = "weights-gib"
	// FieldSimProfile is the demo's simulator profile.
	FieldSimProfile rundoc.Field = "sim-profile"
	// FieldSimSpeed is the demo's speed factor.
	FieldSimSpeed rundoc.Field = "sim-speed"
	// FieldRig is where a launch starts its server.
	FieldRig rundoc.Field = "rig"
	// FieldModel is the model a launch serves.
	FieldModel rundoc.Field = "model"
	// FieldFlags is the vLLM flags of a launch or the demo: the CLI's
	// arguments after "--", the app's Launch page.
	FieldFlags rundoc.Field = "vllm-flags"
	// FieldRigs, FieldInterface and FieldNodeIPs are a cluster launch's
	// rigs, link interface and node addresses (cluster_target.go).
	FieldRigs      rundoc.Field = "rigs"
	FieldInterface rundoc.Field = "interface"
	FieldNodeIPs   rundoc.Field = "node-ips"
)

// MaxWeightsGiB bounds an endpoint's model size as the user gives it: no
// card holds a million GiB, so a larger number is a typo.
const MaxWeightsGiB = 1e6

// TargetInput is where a run goes as the user gave it, in either front end:
// the CLI's target flags (--endpoint, --api-key, --weights-gib, --demo,
// --sim-profile, --sim-speed, --launch, --rig, the vLLM flags after "--")
// or the app's target chooser and Launch page, one text each, read by one
// set of rules (Options), so the same text gives the same target, or the
// same *rundoc.FieldError, whichever front end it was typed in.
type TargetInput struct {
	// Kind is the target: Endpoint, Demo or Launch.
	Kind Kind
	// URL, APIKey and WeightsGiB address an existing server (Endpoint).
	// URL is read by client.ParseEndpoint's rule; WeightsGiB is the
	// model's size on the card in GiB ("" for unknown), for the roofline
	// figure; it belongs to an endpoint only.
	URL, APIKey, WeightsGiB string
	// SimProfile and SimSpeed set the demo's simulator: a profile name
	// ("" the one the flags name with --profile, else the default), or a
	// card RigBench knows, imitated as predicted (SimProfile), and a
	// speed factor from 1 to rundoc.MaxSimSpeed ("" for 1). They belong to
	// the demo only.
	SimProfile, SimSpeed string
	// Launch is the launch's configuration (Launch), or the flags the
	// demo's simulator runs (Demo): the CLI's --model, --image, … and the
	// vLLM flags after "--", the app's Launch form.
	Launch vllm.LaunchConfig
	// Rig is where a launch starts its server, as rig.Parse reads it ("" or
	// "local" for this machine's Docker); it belongs to a launch only.
	Rig string
	// Server is a server already started (the app's Launch page): a Launch
	// target then measures it rather than starting one.
	Server *Server
	// Cluster, when its Rigs are given, launches one server over several
	// rigs instead of one (cluster_target.go).
	Cluster ClusterInput
}

// Launching is how a front end has a server started, apart from what
// starts (the configuration): where, its observers, and the policies the
// front end chooses. NewDockerLauncher joins it to a configuration.
type Launching struct {
	// Rig is the connection to the rig the server starts on (nil: this
	// machine's Docker daemon). The caller closes it.
	Rig *rig.Conn
	// Pull receives image pull progress (nil: none).
	Pull func(docker.PullProgress)
	// KeepLeftovers leaves the containers an earlier RigBench left behind
	// (DockerLauncher.KeepLeftovers): the app removed them at start-up.
	KeepLeftovers bool
	// Keep marks a server that outlives its command (`launch --keep`): it
	// is labelled kept, so a later launch's clean-up leaves it running,
	// and it removes no leftovers itself.
	Keep bool
	// NoGPU requests no GPU (the simulator image on a machine without
	// one).
	NoGPU bool
	// ReadyTimeout is how long to wait for the server (0: docker's
	// DefaultReadyTimeout).
	ReadyTimeout time.Duration
	// Getenv reads the environment a launch passes on (HF_TOKEN); nil:
	// the process's.
	Getenv func(string) string
	// Options are more engine/docker options (tests turn the GPU request
	// off and poll faster).
	Options []docker.Option
}

// NewDockerLauncher is the one constructor of the product's DockerLauncher:
// the CLI's launch, run --launch and tune, the app's Launch page and
// sweeps, and engine/tune's launch variants all start their servers
// through it, each with its own Launching.
func NewDockerLauncher(cfg vllm.LaunchConfig, how Launching) *DockerLauncher {
	opts := how.dockerOptions(&cfg)
	if how.Keep {
		// A kept server is not a leftover: a later launch must not remove it.
		opts = append(opts, docker.WithLabels(map[string]string{docker.LabelManaged: "kept"}))
	}
	return &DockerLauncher{Config: cfg, Options: append(opts, how.Options...), KeepLeftovers: how.KeepLeftovers || how.Keep,
		Pull: how.Pull, Rig: how.Rig}
}

// dockerOptions are the engine/docker options of how's policies (the
// environment, the ready timeout, no GPU, which also clears cfg's GPU
// request), before how.Options.
func (how Launching) dockerOptions(cfg *vllm.LaunchConfig) []docker.Option {
	var opts []docker.Option
	if how.Getenv != nil {
		opts = append(opts, docker.WithGetenv(how.Getenv))
	}
	if how.ReadyTimeout > 0 {
		opts = append(opts, docker.WithReadyTimeout(how.ReadyTimeout))
	}
	if how.NoGPU {
		cfg.GPUs = ""
		opts = append(opts, docker.WithoutGPU())
	}
	return opts
}

// Options reads the input into the target half of a session's options
// (Kind; Endpoint, APIKey and WeightsGiB; Sim and SimLaunch; Launcher: the
// Server's Reuse, or NewDockerLauncher with how); the front end adds the
// plan, the labels and its observers. It starts nothing, so a front end
// calls it to check its fields before anything runs. An error naming one
// input is a *rundoc.FieldError.
func (in TargetInput) Options(how Launching) (Options, error) {
	if err := in.belongs(); err != nil {
		return Options{}, err
	}
	o := Options{Kind: in.Kind}
	switch in.Kind {
	case Endpoint:
		u := strings.TrimSpace(in.URL)
		if u == "" {
			return o, &rundoc.FieldError{Field: FieldEndpoint, Msg: "is needed: the server's address, such as http://127.0.0.1:8000"}
		}
		if _, err := client.ParseEndpoint(u); err != nil {
			return o, &rundoc.FieldError{Field: FieldEndpoint, Msg: fmt.Sprintf("must be a server's address, such as http://127.0.0.1:8000, not %q", in.URL)}
		}
		gib, err := readWeightsGiB(in.WeightsGiB)
		if err != nil {
			return o, err
		}
		o.Endpoint, o.APIKey, o.WeightsGiB = u, in.APIKey, gib
	case Demo:
		s, rec, err := in.Demo()
		if err != nil {
			return o, err
		}
		o.Sim, o.SimLaunch = s, rec
	case Launch:
		if _, err := in.rig(); err != nil {
			return o, err
		}
		if in.Server != nil {
			o.Launcher = in.Server.Reuse()
			break
		}
		if strings.TrimSpace(in.Launch.Model) == "" {
			return o, &rundoc.FieldError{Field: FieldModel, Msg: "is needed: the Hugging Face id of the model to serve"}
		}
		if in.Cluster.Given() {
			if strings.TrimSpace(in.Rig) != "" {
				return o, &rundoc.FieldError{Field: FieldRig, Msg: "names one rig, and --rigs several: give the head and the others in --rigs alone"}
			}
			l, err := in.Cluster.launcher(in.Launch, how)
			if err != nil {
				return o, err
			}
			o.Launcher = l
			break
		}
		o.Launcher = NewDockerLauncher(in.Launch, how)
	default:
		return o, errors.New("choose a target: an existing endpoint, the demo or a launch")
	}
	return o, nil
}

// belongs refuses an input given for another kind of target: a typo or a
// forgotten switch the user would otherwise not notice.
func (in TargetInput) belongs() error {
	for _, f := range []struct {
		field rundoc.Field
		text  string
		kind  Kind
		why   string
	}{
		{FieldWeightsGiB, in.WeightsGiB, Endpoint, "applies only to an existing endpoint: RigBench reads the size from the start-up log of a server it starts"},
		{FieldSimProfile, in.SimProfile, Demo, "applies only to the demo (the simulated server)"},
		{FieldSimSpeed, in.SimSpeed, Demo, "applies only to the demo (the simulated server)"},
		{FieldRig, in.Rig, Launch, "applies only to a launch: the server starts on that rig"},
		{FieldRigs, in.Cluster.Rigs, Launch, "applies only to a launch: the server starts over those rigs"},
		{FieldInterface, in.Cluster.Interface, Launch, "applies only to a launch over several rigs"},
		{FieldNodeIPs, in.Cluster.NodeIPs, Launch, "applies only to a launch over several rigs"},
	} {
		if in.Kind != f.kind && strings.TrimSpace(f.text) != "" {
			return &rundoc.FieldError{Field: f.field, Msg: f.why}
		}
	}
	return nil
}

// Demo is the demo's simulator: the Launch flags' configuration
// (DemoConfig) at SimSpeed, with SimProfile's profile when one is named
// (it wins over the flags' --profile), and what the run records of the
// flags (DemoLaunch, nil for none).
func (in TargetInput) Demo() (sim.Config, *rundoc.Launch, error) {
	speed, err := readSimSpeed(in.SimSpeed)
	if err != nil {
		return sim.DefaultConfig(), nil, err
	}
	s, err := DemoConfig(in.Launch, speed)
	if err != nil {
		return s, nil, &rundoc.FieldError{Field: FieldFlags, Msg: "are not valid for the simulator: " + err.Error()}
	}
	if name := strings.TrimSpace(in.SimProfile); name != "" {
		p, err := SimProfile(name, in.Launch.Model)
		if err != nil {
			return s, nil, &rundoc.FieldError{Field: FieldSimProfile, Msg: ": " + err.Error()}
		}
		s.Profile = p
	}
	return s, DemoLaunch(in.Launch, s), nil
}

// rig reads Rig (rig.Parse), an error naming the address's part.
func (in TargetInput) rig() (rig.Spec, error) {
	s, err := rig.Parse(in.Rig)
	var fe *rig.FieldError
	if errors.As(err, &fe) {
		return s, &rundoc.FieldError{Field: FieldRig, Msg: fmt.Sprintf("%q: the %s %s", fe.Value, fe.Field, fe.Reason)}
	}
	return s, err
}

// readWeightsGiB reads an endpoint's model size in GiB ("" is 0, unknown).
func readWeightsGiB(text string) (float64, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 0, nil
	}
	gib, err := strconv.ParseFloat(t, 64)
	if err != nil || !(gib > 0 && gib < MaxWeightsGiB) {
		return 0, &rundoc.FieldError{Field: FieldWeightsGiB, Msg: fmt.Sprintf("must be the model's size on the card in GiB, more than 0, such as 4.6, not %q", text)}
	}
	return gib, nil
}

// readSimSpeed reads the demo's speed factor ("" is 1). The simulator runs
// as fast as the card or faster (a slower one would stretch each window
// past its length), and an infinite speed leaves no time to measure.
func readSimSpeed(text string) (float64, error) {
	t := strings.TrimSpace(text)
	if t == "" {
		return 1, nil
	}
	s, err := strconv.ParseFloat(t, 64)
	if err != nil || s < 1 || s > rundoc.MaxSimSpeed || math.IsNaN(s) {
		return 1, &rundoc.FieldError{Field: FieldSimSpeed, Msg: fmt.Sprintf("must be a number from 1 (the card's own pace) to %d, not %s", rundoc.MaxSimSpeed, t)}
	}
	return s, nil
}

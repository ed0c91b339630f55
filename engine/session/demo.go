package session

import (
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// The demo takes the same vLLM flags as a launch: these three functions are
// the one place that turns a launch configuration into the simulator's, for
// the app's Demo target, `rigbench-cli run --demo -- FLAGS` and Tune's demo
// sweeps.

// FirstDemoSpeed is the demo's speed in the app until the user picks
// another: fast enough that QuickPlan's first result comes within a minute
// of Start (its estimate is about 15 s), slow enough that a busy 2-core
// machine keeps up with the simulator's clock (at 100× a starved client
// fell behind and its cells came out Unreliable: issue 35). Figures stay
// in the simulated card's time at any speed.
const FirstDemoSpeed = 10

// DemoArgs is the part of a launch configuration the simulator runs: the
// catalog flags and extra arguments, without the model (the simulator
// serves its profile's model) and without the port, host and API key,
// which the session picks.
func DemoArgs(c vllm.LaunchConfig) []string {
	args := c.LaunchArgs()
	if len(args) >= 2 && args[0] == "--model" {
		args = args[2:]
	}
	return args
}

// DemoConfig is the simulator configuration for a launch configuration's
// flags at the given speed. An argument vLLM would refuse is an error
// worded as vLLM's (*sim.ArgError).
func DemoConfig(c vllm.LaunchConfig, speed float64) (sim.Config, error) {
	cfg, err := sim.ParseArgs(DemoArgs(c))
	if err != nil {
		return sim.DefaultConfig(), err
	}
	cfg.Speed = max(1, speed)
	return cfg, nil
}

// DemoLaunch is what a demo run records of its flags (Options.SimLaunch):
// the simulated model and the arguments, as a launch records its command
// line; nil when there are none.
func DemoLaunch(c vllm.LaunchConfig, s sim.Config) *rundoc.Launch {
	args := vllm.RedactArgs(DemoArgs(c))
	if len(args) == 0 {
		return nil
	}
	model := DemoModel(s)
	return &rundoc.Launch{Model: model, Args: args,
		ServeCommand: vllm.JoinArgs(append([]string{"rigbench-cli", "sim", "--model", model}, args...))}
}

// DemoModel is the model the simulator serves.
func DemoModel(s sim.Config) string {
	if s.Model != "" {
		return s.Model
	}
	return s.Profile.Model
}

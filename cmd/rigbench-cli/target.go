package main

import (
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
)

// The target flags of run and tune are filled into session.TargetInput and
// read there, by the app's rules too; only which flags go together (one
// target, vLLM flags after "--") is the CLI's own.

// flagName is the CLI's name of an input a *rundoc.FieldError names: its
// flag, or the vLLM flags after "--".
func flagName(f rundoc.Field) string {
	if f == session.FieldFlags {
		return "the vLLM flags after --"
	}
	return "--" + string(f)
}

// targetInput is the target flags as session.TargetInput takes them: a
// flag left out is empty; the launch's configuration is read from
// --model, --image, … and the vLLM flags after "--" (launchOptions.config),
// the demo's from those flags alone. sweep chooses tune's targets (the demo
// or a launch) over run's (an endpoint too). Its errors are the CLI's own
// (which flags go together); the input's are Options', as in the app.
func (f *runFlags) targetInput(e *env, set map[string]bool, vllmArgs []string, sweep bool) (session.TargetInput, error) {
	in := session.TargetInput{URL: f.endpoint, APIKey: f.apiKey, SimProfile: f.simProfile, Rig: f.launch.rig, Cluster: f.launch.cluster.input()}
	if set["weights-gib"] {
		in.WeightsGiB = f.weightsGiB
	}
	if set["sim-speed"] {
		in.SimSpeed = f.simSpeed
	}
	switch {
	case sweep && f.endpoint != "":
		return in, usagef("%v; use --launch (or --demo)", tune.ErrEndpoint)
	case sweep && f.demo == f.launch.enabled:
		return in, usagef("choose one target: --demo or --launch")
	case !sweep && count(f.endpoint != "", f.demo, f.launch.enabled) != 1:
		return in, usagef("choose one target: --endpoint URL, --demo or --launch")
	case f.endpoint != "":
		in.Kind = session.Endpoint
	case f.demo:
		in.Kind = session.Demo
		if sweep && f.model != "" {
			return in, usagef("--model applies to --launch; the demo serves the simulator's model")
		}
		cfg, err := vllm.ParseArgs(vllmArgs)
		if err != nil {
			return in, usagef("the vLLM flags after -- are not valid: %v", err)
		}
		if cfg.Model == "" {
			cfg.Model = f.model // what a --sim-profile naming a card serves
		}
		in.Launch = cfg
	default:
		in.Kind = session.Launch
		if f.model == "" {
			return in, usagef("--launch needs --model with the Hugging Face id to serve")
		}
		// The launch reads its flags as `launch` does.
		o := f.launch.options(f.model, f.saveFlags.db)
		cfg, err := o.config(e, vllmArgs)
		if err != nil {
			return in, err
		}
		in.Launch = cfg
	}
	return in, nil
}

// readTarget is targetInput checked by session.TargetInput's rules, each
// mistake a usage error naming its flag, before anything starts.
func (f *runFlags) readTarget(e *env, set map[string]bool, vllmArgs []string, sweep bool) (session.TargetInput, error) {
	in, err := f.targetInput(e, set, vllmArgs, sweep)
	if err != nil {
		return in, err
	}
	if _, err := in.Options(session.Launching{}); err != nil {
		return in, usagef("%v", flagError(err))
	}
	return in, nil
}

// count is how many of on are true.
func count(on ...bool) int {
	n := 0
	for _, b := range on {
		if b {
			n++
		}
	}
	return n
}

// options are `run --launch`'s launch flags as `launch` takes them, for
// model, with the compile cache beside history (the command's --db).
func (l *launchFlags) options(model, history string) launchOptions {
	return launchOptions{model: model, image: l.image, gpus: l.gpus, hfCache: l.hfCache, compileCache: l.compileCache,
		noGPU: l.noGPU, rig: l.rig, history: history, cluster: l.cluster}
}

// launching is how the CLI has a server started (session.Launching): the
// environment's token, the --timeout, --no-gpu and --keep policies, and
// pull progress on stderr; the rig's connection is added once made.
func (o launchOptions) launching(e *env) session.Launching {
	return session.Launching{Getenv: e.getenv, ReadyTimeout: o.timeout, NoGPU: o.noGPU, Keep: o.keep, Pull: pullPrinter(e.stderr)}
}

// simSpeedOf reads a --sim-speed given alone (tune --from-advice) by the
// demo's rule.
func simSpeedOf(text string) (float64, error) {
	s, _, err := session.TargetInput{Kind: session.Demo, SimSpeed: text}.Demo()
	if err != nil {
		return 0, fmt.Errorf("%v", flagError(err))
	}
	return s.Speed, nil
}

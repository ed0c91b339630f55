package session_test

import (
	"context"
	"errors"
	"testing"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestTargetInputFields: each input of a target is read by one rule, and
// one that cannot be read, or that belongs to another kind of target, is a
// *rundoc.FieldError naming it, so each front end words it in its terms.
func TestTargetInputFields(t *testing.T) {
	endpoint := func(url, gib string) session.TargetInput {
		return session.TargetInput{Kind: session.Endpoint, URL: url, WeightsGiB: gib}
	}
	var fp8 vllm.LaunchConfig
	fp8.Set("--kv-cache-dtype", "fp8")
	refused := vllm.LaunchConfig{Extra: []string{"--no-such-flag"}}
	for name, c := range map[string]struct {
		in   session.TargetInput
		want rundoc.Field // "" when it reads
	}{
		"an endpoint":                  {endpoint("http://127.0.0.1:8000", "4.61"), ""},
		"an endpoint without scheme":   {endpoint("127.0.0.1:8000", ""), ""},
		"no URL":                       {endpoint("  ", ""), session.FieldEndpoint},
		"not a server's URL":           {endpoint("ftp://box", ""), session.FieldEndpoint},
		"a size with a comma":          {endpoint("http://box:8000", "4,6"), session.FieldWeightsGiB},
		"a size of nothing":            {endpoint("http://box:8000", "0"), session.FieldWeightsGiB},
		"a size for the demo":          {session.TargetInput{Kind: session.Demo, WeightsGiB: "4"}, session.FieldWeightsGiB},
		"the demo at 20×":              {session.TargetInput{Kind: session.Demo, SimSpeed: "20", Launch: fp8}, ""},
		"the demo slower than a card":  {session.TargetInput{Kind: session.Demo, SimSpeed: "0.5"}, session.FieldSimSpeed},
		"the demo at no speed":         {session.TargetInput{Kind: session.Demo, SimSpeed: "fast"}, session.FieldSimSpeed},
		"a speed for an endpoint":      {session.TargetInput{Kind: session.Endpoint, URL: "http://box", SimSpeed: "2"}, session.FieldSimSpeed},
		"an unknown profile":           {session.TargetInput{Kind: session.Demo, SimProfile: "a100"}, session.FieldSimProfile},
		"flags the simulator refuses":  {session.TargetInput{Kind: session.Demo, Launch: refused}, session.FieldFlags},
		"a launch without a model":     {session.TargetInput{Kind: session.Launch}, session.FieldModel},
		"a launch on a bad rig":        {session.TargetInput{Kind: session.Launch, Launch: vllm.LaunchConfig{Model: "m"}, Rig: "tcp://box"}, session.FieldRig},
		"a rig for the demo":           {session.TargetInput{Kind: session.Demo, Rig: "ssh://me@box"}, session.FieldRig},
		"a launch on an SSH rig":       {session.TargetInput{Kind: session.Launch, Launch: vllm.LaunchConfig{Model: "m"}, Rig: "ssh://me@box"}, ""},
		"the Launch page's own server": {session.TargetInput{Kind: session.Launch, Server: &session.Server{Endpoint: "http://127.0.0.1:9"}}, ""},
	} {
		o, err := c.in.Options(session.Launching{})
		var fe *rundoc.FieldError
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: %v", name, err)
		case c.want != "" && (!errors.As(err, &fe) || fe.Field != c.want):
			t.Errorf("%s: %v, want a field error about %s", name, err, c.want)
		case c.want == "" && o.Kind != c.in.Kind:
			t.Errorf("%s: options of kind %q", name, o.Kind)
		}
	}
	o, err := endpoint(" http://127.0.0.1:8000 ", "4.61").Options(session.Launching{})
	if err != nil || o.Endpoint != "http://127.0.0.1:8000" || o.WeightsGiB != 4.61 {
		t.Errorf("endpoint options %+v, %v", o, err)
	}
	o, err = session.TargetInput{Kind: session.Demo, SimSpeed: "20", SimProfile: "tiny", Launch: fp8}.Options(session.Launching{})
	if err != nil || o.Sim.Speed != 20 || o.Sim.Profile.Name != "tiny" || o.SimLaunch == nil || o.SimLaunch.Model != vllm.ModelTiny {
		t.Errorf("demo options %+v, %v: want the tiny profile at 20× with the flags recorded", o, err)
	}
}

// TestReusedServerIsNotLaunchedAgain: a Launch target given the server the
// Launch page runs measures it: its launcher hands that server back and
// stopping the run leaves it running.
func TestReusedServerIsNotLaunchedAgain(t *testing.T) {
	stopped := false
	srv := &session.Server{Endpoint: "http://127.0.0.1:9", Stop: func(context.Context) error { stopped = true; return nil }}
	o, err := session.TargetInput{Kind: session.Launch, Server: srv}.Options(session.Launching{})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := o.Launcher.(*session.DockerLauncher); ok {
		t.Fatal("a Docker launcher for a server already running")
	}
	got, err := o.Launcher.Launch(context.Background(), nil)
	if err != nil || got.Endpoint != srv.Endpoint {
		t.Fatalf("reused launch: %+v, %v", got, err)
	}
	if err := got.Stop(context.Background()); err != nil || stopped {
		t.Errorf("stopping the run stopped the Launch page's server (%v)", err)
	}
}

// TestNewDockerLauncher: the one constructor applies a front end's
// policies: a kept server removes no leftovers (and is labelled, so a later
// launch's clean-up leaves it); no GPU means no GPU request in the record
// either; the rest passes through.
func TestNewDockerLauncher(t *testing.T) {
	cfg := vllm.LaunchConfig{Model: "m", GPUs: "all"}
	pull := func(docker.PullProgress) {}
	kept := session.NewDockerLauncher(cfg, session.Launching{Keep: true, NoGPU: true, Pull: pull})
	if !kept.KeepLeftovers || kept.Config.GPUs != "" || kept.Pull == nil || len(kept.Options) != 2 {
		t.Errorf("a kept launch without GPU: keep leftovers %v, GPUs %q, %d options", kept.KeepLeftovers, kept.Config.GPUs, len(kept.Options))
	}
	if cfg.GPUs != "all" {
		t.Error("the constructor changed the caller's configuration")
	}
	plain := session.NewDockerLauncher(cfg, session.Launching{})
	if plain.KeepLeftovers || plain.Config.GPUs != "all" || len(plain.Options) != 0 || plain.Rig != nil {
		t.Errorf("a plain launch: %+v", plain)
	}
	if rec := kept.Config.Record(); rec.GPUs != "" {
		t.Errorf("a launch without GPU records GPUs %q", rec.GPUs)
	}
}

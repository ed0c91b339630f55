package session

import (
	"context"
	"math"
	"net"
	"net/url"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// QualityTarget is where a quality probe asks (issue 37): an endpoint
// already running, or the demo's simulator started with vLLM flags.
type QualityTarget struct {
	// Endpoint and APIKey name a running server.
	Endpoint, APIKey string
	// Model is the model to ask ("": the server's first, as a run picks).
	Model string
	// Dial opens connections to Endpoint (nil: this machine's network):
	// a server launched on a remote rig is reached through its SSH
	// connection (Server.Dial).
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// Demo starts the simulator with DemoArgs (vLLM flags) instead.
	Demo     bool
	DemoArgs []string
	// OnSim, when set, is handed the demo's simulator before the probe
	// runs (tests read its truth).
	OnSim func(*sim.Server)
}

// QualityProbe is a probe that asks an endpoint's model
// (quality.TaskProbe.Run, quality.AgreementProbe.Run).
type QualityProbe func(ctx context.Context, a quality.Answerer, model string) (*quality.Result, error)

// Quality runs probe against the target's model (client.PickModel's rule),
// starting and stopping the demo's simulator around it, and stamps the
// result with what answered. The demo runs unthrottled: a probe measures
// answers, not speed, and the simulator's answers do not depend on its
// clock.
func Quality(ctx context.Context, t QualityTarget, probe QualityProbe) (*quality.Result, error) {
	endpoint, key, simulated := t.Endpoint, t.APIKey, t.Demo
	var flags []string
	if t.Demo {
		cfg, err := sim.ParseArgs(t.DemoArgs)
		if err != nil {
			return nil, err
		}
		cfg.Speed = math.Inf(1)
		stop, u, _, err := startSim(cfg, func(string) {}, t.OnSim)
		if err != nil {
			return nil, err
		}
		defer stop()
		endpoint, key = u, ""
		flags = vllm.RedactArgs(t.DemoArgs)
	}
	c, err := client.New(endpoint, client.WithAPIKey(key), client.WithDial(t.Dial))
	if err != nil {
		return nil, err
	}
	defer c.CloseIdle()
	models, err := c.Models(ctx)
	if err != nil {
		return nil, err
	}
	m, err := client.PickModel(models, t.Model)
	if err != nil {
		return nil, err
	}
	if v, err := c.Version(ctx); err == nil && v.Simulated {
		simulated = true // an endpoint that is the simulator says so
	}
	res, err := probe(ctx, c, m.ID)
	if err != nil {
		return nil, err
	}
	res.Endpoint, res.Flags, res.Simulated = withoutUserinfo(c.Endpoint()), flags, simulated
	return res, nil
}

// withoutUserinfo drops any user:password@ from an address: a result is
// shared, credentials never are.
func withoutUserinfo(endpoint string) string {
	u, err := url.Parse(endpoint)
	if err != nil {
		return endpoint
	}
	u.User = nil
	return u.String()
}

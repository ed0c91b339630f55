package session

import (
	"context"
	"math"
	"net"
	"net/url"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
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

// RunQuality is the quality probe a run asks of its own server after its
// matrix, before the server stops (issue 37): `run --quality` and each
// variant of `tune --quality`. The run's speed figures come first and are
// not touched by it; the probe's result lands in the run document
// (rundoc.Run.Quality) before the run's end reaches its observers, so the
// history keeps it with the run.
type RunQuality struct {
	// Name is the probe as the user named it ("gsm8k:200", "agreement").
	Name string
	// Probe asks the server (quality.TaskProbe.Run,
	// quality.AgreementProbe.Run).
	Probe QualityProbe
	// Baseline, when set, is the probe this one is paired with (a sweep's
	// base launch), from run BaselineRunID, named BaselineLabel.
	Baseline                     *quality.Result
	BaselineRunID, BaselineLabel string
	// Started, when set, is told when the probe begins (a front end says
	// what the run is waiting for).
	Started func()
}

// probeRun asks q's probe of the run's server through c and keeps the
// result, or the probe's error, in doc. A cancelled probe keeps nothing:
// a half-asked probe is no measurement.
//
// The demo asks a second simulator with the same configuration, without
// its speed limit: the simulator's answers are a function of its flags and
// the prompt alone, not of its clock, and a probe measures answers, not
// speed, so a demo at its card's speed does not spend minutes of waiting
// on 200 answers (as `quality --demo` runs unthrottled).
func probeRun(ctx context.Context, o *Options, c *client.Client, doc *rundoc.Run) {
	q := o.Quality
	if q.Started != nil {
		q.Started()
	}
	check := &quality.Check{Probe: q.Name}
	ask := quality.Answerer(c)
	if o.Kind == Demo {
		cfg := o.Sim
		cfg.Speed = math.Inf(1)
		stop, u, _, err := startSim(cfg, func(string) {}, nil)
		if err != nil {
			doc.Quality = &rundoc.Quality{Probe: q.Name, Error: "the quality probe could not start its simulator: " + err.Error()}
			return
		}
		defer stop()
		fast, err := client.New(u, client.WithAPIKey(cfg.APIKey))
		if err != nil {
			doc.Quality = &rundoc.Quality{Probe: q.Name, Error: "the quality probe could not reach its simulator: " + err.Error()}
			return
		}
		defer fast.CloseIdle()
		ask = fast
	}
	res, err := q.Probe(ctx, ask, doc.Server.Model)
	if ctx.Err() != nil {
		return
	}
	if err != nil {
		check.Error = "the quality probe failed: " + err.Error()
	} else {
		res.Endpoint, res.Simulated = withoutUserinfo(c.Endpoint()), doc.Simulated
		if doc.Launch != nil {
			res.Flags = vllm.RedactArgs(doc.Launch.Args)
		}
		// The probe's own name is canonical ("gsm8k" asks
		// "gsm8k:1319"): the run names it so, as its result does.
		check.Probe, check.Result = res.Probe, res
		if q.Baseline != nil {
			check.Baseline = quality.Pair(q.Baseline, res, q.BaselineRunID, q.BaselineLabel)
		}
	}
	qd, err := check.Doc()
	if err != nil {
		qd = &rundoc.Quality{Probe: q.Name, Error: err.Error()}
	}
	doc.Quality = qd
}

// heldEnd holds back a run's end from its observers while the quality
// probe runs, so the history records the run once, with its probe.
type heldEnd struct {
	next rundoc.Observer
	end  *rundoc.Event
}

// Observe implements rundoc.Observer.
func (h *heldEnd) Observe(e rundoc.Event) {
	if e.Kind == rundoc.EventRunDone {
		h.end = &e
		return
	}
	h.next.Observe(e)
}

// release sends the held end, if any, with the run as it stands now.
func (h *heldEnd) release(run *rundoc.Run) {
	if h.end == nil {
		return
	}
	e := *h.end
	if run != nil {
		e.Run = run
	}
	h.next.Observe(e)
}

package predict

import (
	"context"
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
)

// Request is a prediction as a front end asks for it: the CLI's predict
// and the app's Launch and Run views fill one and call Do, so both give the
// same figures for the same launch.
type Request struct {
	// Demo predicts for the simulator's card (Profile, zero: the default
	// profile), learning from demo runs.
	Demo    bool
	Profile sim.Profile
	// GPU names a known card to predict for instead of the detected one
	// (FindCard); Snapshot is the detected hardware (this machine's or a
	// rig's) used when GPU is empty.
	GPU      string
	Snapshot *hardware.Snapshot
	// Cards overrides how many of the card the rig has (0: the detected
	// count, else 1); NVLink joins them by NVLink.
	Cards  int
	NVLink bool
	// Model is the model's id; Facts, when it has a weights' size, is used
	// instead of looking the id up (facts given by hand).
	Model string
	Facts *Model
	// Lookup finds the model's facts.
	Lookup Lookup
	// Args are the launch's vLLM flags; Plan the matrix to predict.
	Args []string
	Plan rundoc.Plan
	// History, when set, is learned from (LearnFromHistory).
	History History
}

// ErrNoCard: there is no card to predict for (none detected, none named).
type ErrNoCard struct{ Why string }

func (e *ErrNoCard) Error() string {
	return fmt.Sprintf("no card to predict for (%s): name one (such as \"RTX 3060\"), or use the demo", e.Why)
}

// Card is the request's card and how many of it: the demo's profile's,
// the named one, or the detected one.
func (r Request) Card() (Card, int, error) {
	var c Card
	n := 1
	switch {
	case r.Demo:
		p := r.Profile
		if p.Name == "" {
			p = sim.DefaultProfile()
		}
		c, n = ProfileCard(p)
	case r.GPU != "":
		k, err := FindCard(r.GPU)
		if err != nil {
			return Card{}, 0, err
		}
		c = k
	default:
		k, cards, ok := DetectedCard(r.Snapshot)
		if !ok {
			why := "the card reports no memory size or bandwidth"
			if r.Snapshot == nil || len(r.Snapshot.GPUs) == 0 {
				why = "no NVIDIA card was detected"
				if r.Snapshot != nil && r.Snapshot.GPUAbsentReason != "" {
					why = r.Snapshot.GPUAbsentReason
				}
			}
			return Card{}, 0, &ErrNoCard{Why: why}
		}
		c, n = k, cards
	}
	if r.Cards > 0 {
		n = r.Cards
	}
	return c, n, nil
}

// Do resolves the card and the model's facts, learns from the history's
// runs on the card and predicts.
func (r Request) Do(ctx context.Context) (*Prediction, error) {
	card, cards, err := r.Card()
	if err != nil {
		return nil, err
	}
	id := r.Model
	if id == "" && r.Demo {
		p := r.Profile
		if p.Name == "" {
			p = sim.DefaultProfile()
		}
		id = p.Model
	}
	var m Model
	if r.Facts != nil && r.Facts.WeightsGiB > 0 {
		m = *r.Facts
	} else if m, err = r.Lookup.Model(ctx, id); err != nil {
		return nil, err
	}
	// The runs' models are looked up as this one was, offline: learning
	// never waits on the network.
	offline := r.Lookup
	offline.Offline = true
	models := func(id string) (Model, bool) {
		m, err := offline.Model(ctx, id)
		return m, err == nil
	}
	eff := LearnFromHistory(ctx, r.History, Prior(card, m.ID), card, r.Demo, models)
	// A demo's cards are joined as its profile's are (the two H100s of
	// h100-80gb-x2 by NVLink).
	nvlink := r.NVLink || r.Demo && r.Profile.Link == sim.LinkNVLink
	return Predict(Input{Card: card, Cards: cards, NVLink: nvlink, Model: m, Args: r.Args, Efficiency: eff, Plan: r.Plan})
}

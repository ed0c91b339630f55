package session

import (
	"context"
	"fmt"
	"time"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/sim"
)

// lookupTimeout bounds the model lookup of a predicted profile: the Hub's
// API answers in a second; a demo must not hang on a dead network.
const lookupTimeout = 20 * time.Second

// SimProfile is the simulator profile a name gives: a built-in profile
// (sim.ProfileByName), or a card RigBench knows ("RTX 4090",
// predict.FindCard), which the demo then imitates serving model (the
// default profile's when empty) as engine/predict predicts it from the
// card's data sheet and the model's facts: a user without the card can try
// a launch on it. Its name is "predicted"; the model's facts are looked up
// as predict.Lookup does (the Hugging Face cache, else the Hub).
func SimProfile(name, model string) (sim.Profile, error) {
	p, err := sim.ProfileByName(name)
	if err == nil {
		return p, nil
	}
	card, cerr := predict.FindCard(name)
	if cerr != nil {
		return p, fmt.Errorf("%v, or a card RigBench knows (%v)", err, cerr)
	}
	if model == "" {
		model = sim.DefaultProfile().Model
	}
	ctx, cancel := context.WithTimeout(context.Background(), lookupTimeout)
	defer cancel()
	m, err := predict.Lookup{}.Model(ctx, model)
	if err != nil {
		return p, err
	}
	pr, err := predict.Predict(predict.Input{Card: card, Cards: 1, Model: m})
	if err != nil {
		return p, err
	}
	return pr.SimProfile(), nil
}

// Package predict answers "will it fit, and how fast?" before anything is
// downloaded or launched: from a card (or several), a model's facts and the
// launch flags it predicts vLLM's memory split (weights, activation peak,
// the rest, the KV pool in tokens), says by how much a launch does not fit
// and the smallest flag change that does, and predicts every cell of a
// plan: its status by METHOD.md's plan check and its decode tok/s, TTFT and
// prompt tok/s from the bandwidth and compute roofline times the card's
// efficiencies.
//
// The memory rule is vllm.Memory and the time model is the simulator's
// (sim.Profile), so a prediction and the simulator never disagree on a
// rule; the prediction builds a simulator profile from the card's data
// sheet, the model's facts and the efficiencies. The efficiencies start
// from the simulator profiles' figures and are learned from the user's own
// runs on the card (Learn). METHOD.md ("Prediction") derives the model and
// its limits.
package predict

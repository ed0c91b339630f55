package report

import (
	"slices"
	"strings"

	"github.com/rigbench/rigbench/engine/vllm"
)

// NormaliseModel gives a model id read from a file name ("agents-a1-4b-fp8",
// with its "/" written as "-") the spelling of a known id with the same
// letters ("agents/a1-4b-fp8"), so one model does not show under two names
// after an import. The ids it knows are the simulator's models (the
// reference runs' among them, vllm.SimulatorModels) and history, the models of the history's
// runs: one list for both front ends' imports, which call it. An id that
// already has a "/", or matches none, is kept.
func NormaliseModel(id string, history []string) string {
	if id == "" || strings.Contains(id, "/") {
		return id
	}
	slug := modelSlug(id)
	for _, k := range slices.Concat(vllm.SimulatorModels(), history) {
		if strings.Contains(k, "/") && modelSlug(k) == slug {
			return k
		}
	}
	return id
}

// modelSlug is a model id as a file name writes it: "/" and "--" read
// as "-", case folded.
func modelSlug(id string) string {
	s := strings.ToLower(strings.ReplaceAll(id, "/", "-"))
	return strings.ReplaceAll(s, "--", "-")
}

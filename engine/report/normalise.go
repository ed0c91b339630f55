package report

import "strings"

// NormaliseModel gives a model id read from a file name ("agents-a1-4b-fp8",
// with its "/" written as "-") the spelling of a known id with the same
// letters ("agents/a1-4b-fp8"), so one model does not show under two names
// after an import. known are the ids the importer knows: the simulator's
// models and those of the history's runs. An id that already has a "/", or
// matches none, is kept. Both front ends' imports call it.
func NormaliseModel(id string, known []string) string {
	if id == "" || strings.Contains(id, "/") {
		return id
	}
	slug := modelSlug(id)
	for _, k := range known {
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

package tune

import (
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// DefaultMaxOutput is a sweep's max_tokens per request: shorter than a
// run's (rundoc.DefaultMaxOutput), since a sweep measures each variant's few
// cells many times and a shorter request reaches steady state sooner.
const DefaultMaxOutput = 1024

// Workload reads the cells every variant measures from the plan inputs as
// typed (the CLI's flags, the Tune view's fields): decode contexts and
// concurrency levels are required, max output defaults to
// DefaultMaxOutput, and there is no prefill phase (the objective scores
// decode cells). Errors are rundoc.PlanInput's, a *rundoc.FieldError
// naming the input.
func Workload(in rundoc.PlanInput) (rundoc.Plan, error) {
	for _, f := range []struct {
		field rundoc.Field
		text  string
		eg    string
	}{{rundoc.FieldContexts, in.Contexts, "16K or 1K,16K"}, {rundoc.FieldConcurrency, in.Concurrency, "8 or 1,8"}} {
		if t := strings.ToLower(strings.TrimSpace(f.text)); t == "" || t == "none" || t == "-" {
			return rundoc.Plan{}, &rundoc.FieldError{Field: f.field, Msg: "is needed: a sweep measures every variant on these cells, e.g. " + f.eg}
		}
	}
	in.Prefill = "none"
	if strings.TrimSpace(in.MaxOutput) == "" {
		in.MaxOutput = strconv.Itoa(DefaultMaxOutput)
	}
	p, err := in.Plan()
	p.PrefillContexts, p.TrimContexts = nil, false
	return p, err
}

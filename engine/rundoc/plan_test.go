package rundoc_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// A window shorter than a second or longer than an hour, and a simulator
// faster than RigBench can time, are refused with the bound, before
// anything is sent (issue 12 #11: --duration 1ns read as Over capacity,
// 1000h was taken without a word).
func TestPlanBounds(t *testing.T) {
	t.Parallel()
	base := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1}, DurationS: 30, MaxOutput: 16}
	if err := base.Validate(); err != nil {
		t.Fatalf("the base plan: %v", err)
	}
	for _, tc := range []struct {
		edit func(p *rundoc.Plan)
		want string
	}{
		{func(p *rundoc.Plan) { p.DurationS = 1e-9 }, "the window length must be from 1s to 1h, not 1ns"},
		{func(p *rundoc.Plan) { p.DurationS = 1000 * 3600 }, "the window length must be from 1s to 1h, not 1000h0m0s"},
		{func(p *rundoc.Plan) { p.SimSpeed = 1e9 }, "RigBench measures one up to 1000×"},
	} {
		p := base
		tc.edit(&p)
		if err := p.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
}

package rundoc

import (
	"reflect"
	"strings"
	"testing"
)

// TestBurstInput: the burst fields read as the issue asks (--burst: after
// the matrix; --request-count K alone: instead of it), render back to the
// same plan, and refuse what is no count or no length with the field's fix.
func TestBurstInput(t *testing.T) {
	for _, tc := range []struct {
		in          PlanInput
		burst       string
		k           int
		limitS      float64
		kFor4       int
		errContains string
	}{
		{in: PlanInput{}, kFor4: 16},
		{in: PlanInput{Burst: "true"}, burst: BurstAfter, kFor4: 16},
		{in: PlanInput{Burst: "false"}, kFor4: 16},
		{in: PlanInput{RequestCount: "10"}, burst: BurstOnly, k: 10, kFor4: 10},
		{in: PlanInput{Burst: "on", RequestCount: "10", BurstLimit: "5m"}, burst: BurstAfter, k: 10, limitS: 300, kFor4: 10},
		{in: PlanInput{Burst: "only"}, burst: BurstOnly, kFor4: 16},
		{in: PlanInput{Burst: "maybe"}, errContains: "burst must be on"},
		{in: PlanInput{RequestCount: "8K"}, errContains: "request-count must be a whole number"},
		{in: PlanInput{RequestCount: "0"}, errContains: "request-count must be a whole number"},
		{in: PlanInput{Burst: "on", BurstLimit: "soon"}, errContains: "burst-limit must be a length"},
	} {
		p, err := tc.in.Plan()
		if tc.errContains != "" {
			if err == nil || !strings.Contains(err.Error(), tc.errContains) {
				t.Errorf("%+v: %v, want an error with %q", tc.in, err, tc.errContains)
			}
			continue
		}
		if err != nil || p.Burst != tc.burst || p.RequestCount != tc.k || p.BurstLimitS != tc.limitS || p.RequestCountFor(4) != tc.kFor4 {
			t.Errorf("%+v: plan burst %q K %d limit %g (K at N=4: %d), %v; want %q %d %g (%d)", tc.in, p.Burst, p.RequestCount,
				p.BurstLimitS, p.RequestCountFor(4), err, tc.burst, tc.k, tc.limitS, tc.kFor4)
		}
		if back, err := p.Input().Plan(); err != nil || !reflect.DeepEqual(back, p) {
			t.Errorf("%+v rendered %+v, read back %+v, %v", p, p.Input(), back, err)
		}
	}
}

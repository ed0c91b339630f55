package rundoc_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestSignificant: a change counts only beyond the two half-widths'
// combined √(h₁² + h₂²); without any half-width every change counts.
func TestSignificant(t *testing.T) {
	for _, tc := range []struct {
		a, ha, b, hb float64
		want         bool
	}{
		{100, 3, 104, 4, false}, // |4| < 5
		{100, 3, 106, 4, true},  // |6| > 5
		{100, 3, 94, 4, true},   // falls count too
		{100, 0, 100.1, 0, true},
		{100, 0, 101, 2, false}, // one side's ± alone
	} {
		if got := rundoc.Significant(tc.a, tc.ha, tc.b, tc.hb); got != tc.want {
			t.Errorf("Significant(%v ± %v → %v ± %v) = %v, want %v", tc.a, tc.ha, tc.b, tc.hb, got, tc.want)
		}
	}
}

// TestWindowPlan: the default plan adapts its windows at ±1%, the label
// says which method a plan uses, and Validate refuses a method, precision
// or longest window it cannot run.
func TestWindowPlan(t *testing.T) {
	p := rundoc.DefaultPlan()
	if !p.Adaptive() || p.Precision != 0.01 || p.WindowLabel() != "auto (±1%, at most 30 s)" {
		t.Errorf("default plan: window %q, precision %v, label %q", p.Window, p.Precision, p.WindowLabel())
	}
	fixed := rundoc.Plan{DurationS: 30}
	if fixed.Adaptive() || fixed.WindowMethod() != rundoc.WindowFixed || fixed.WindowLabel() != "30 s" {
		t.Errorf("a plan from before adaptive windows: method %q, label %q", fixed.WindowMethod(), fixed.WindowLabel())
	}
	if l := (rundoc.Plan{}).WindowLabel(); l != "" {
		t.Errorf("unknown window: label %q, want none", l)
	}
	for _, tc := range []struct {
		change func(*rundoc.Plan)
		want   string
	}{
		{func(p *rundoc.Plan) { p.Window = "sometimes" }, `the window method must be "fixed" or "auto"`},
		{func(p *rundoc.Plan) { p.Precision = 0 }, "the precision of adaptive windows must be above 0%"},
		{func(p *rundoc.Plan) { p.Precision = 0.9 }, "and at most 50%, not 90%"},
		{func(p *rundoc.Plan) { p.DurationS = 2 }, "the longest adaptive window must be at least 5s"},
	} {
		q := rundoc.DefaultPlan().Resolve(32768)
		tc.change(&q)
		if err := q.Validate(); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Validate = %v, want %q", err, tc.want)
		}
	}
	if err := rundoc.DefaultPlan().Resolve(300000).Validate(); err != nil {
		t.Errorf("default plan: %v", err)
	}
}

// TestFigureCI: a figure's ± comes from the field beside it, a prefill
// cell's rate column carries the prompt rate's ±, and a tiny half-width
// keeps a significant digit rather than printing 0.0.
func TestFigureCI(t *testing.T) {
	d := &rundoc.Cell{Phase: rundoc.PhaseDecode, Status: rundoc.StatusValid, TotalTokS: 890.64, TotalTokSCI95: 4.21,
		TBTMs: 28.3, TBTMsCI95: 0.04}
	p := &rundoc.Cell{Phase: rundoc.PhasePrefill, Status: rundoc.StatusValid, PromptTokS: 2341, PromptTokSCI95: 12.5}
	for _, tc := range []struct {
		got, want string
	}{
		{rundoc.FigTotalTokS.TextCI(d), "890.6 ± 4.2"},
		{rundoc.FigTotalTokS.WithUnitCI(d), "890.6 ± 4.2 tok/s"},
		{rundoc.FigTBT.TextCI(d), "28.3 ± 0.04"},
		{rundoc.FigTTFT.TextCI(d), ""},
		{rundoc.FigRate.TextCI(p), "2341.0 ± 12.5"},
		{rundoc.FigPerRequestTokS.TextCI(d), ""},
	} {
		if tc.got != tc.want {
			t.Errorf("got %q, want %q", tc.got, tc.want)
		}
	}
	if used := rundoc.Used(rundoc.CIFigures, []rundoc.Cell{*d}); len(used) != 2 || used[0].Key != "total_tok_s_ci95" || used[1].Key != "tbt_ms_ci95" {
		t.Errorf("CI columns of the cell: %v", used)
	}
}

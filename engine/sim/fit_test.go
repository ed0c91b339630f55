package sim

import (
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// TestFitDefaultProfile re-derives the default profile's time model from the
// reference CSV with a Nelder–Mead search in virtual time. It is a tool, not
// a check: run it with RIGBENCH_SIM_FIT=1 after changing the engine model and
// copy the printed parameters into DefaultProfile.
func TestFitDefaultProfile(t *testing.T) {
	if os.Getenv("RIGBENCH_SIM_FIT") == "" {
		t.Skip("set RIGBENCH_SIM_FIT=1 to re-fit the default profile")
	}
	ref := loadReference(t)
	base := DefaultProfile()
	params := []*float64{
		&base.StepBaseS, &base.DecodePerSeqS, &base.DecodePerContextTokenS, &base.DecodeContextQuadS,
		&base.DecodeBatchExponent, &base.PrefillPerTokenS, &base.PrefillAttentionS, &base.APIBaseS, &base.APIPerTokenS,
	}
	names := []string{"StepBaseS", "DecodePerSeqS", "DecodePerContextTokenS", "DecodeContextQuadS",
		"DecodeBatchExponent", "PrefillPerTokenS", "PrefillAttentionS", "APIBaseS", "APIPerTokenS"}
	x0 := make([]float64, len(params))
	for i, p := range params {
		x0[i] = math.Log(*p)
	}
	loss := func(x []float64) float64 {
		prof := base
		ps := []*float64{
			&prof.StepBaseS, &prof.DecodePerSeqS, &prof.DecodePerContextTokenS, &prof.DecodeContextQuadS,
			&prof.DecodeBatchExponent, &prof.PrefillPerTokenS, &prof.PrefillAttentionS, &prof.APIBaseS, &prof.APIPerTokenS,
		}
		for i, p := range ps {
			*p = math.Exp(x[i])
		}
		if prof.DecodeBatchExponent > 1.5 {
			return math.Inf(1)
		}
		cfg := DefaultConfig()
		cfg.Profile = prof
		got := runReferencePlan(t, cfg, ref)
		return referenceLoss(ref, got)
	}
	best, f := nelderMead(loss, x0, 0.15, 400)
	t.Logf("loss %.5f (start %.5f)", f, loss(x0))
	for i, n := range names {
		t.Logf("%s: %.6g", n, math.Exp(best[i]))
	}
}

// referenceLoss scores a plan run against the reference: squared log errors
// of Valid total_tok_s and prefill prompt_tok_s, a lighter pull on TTFT, and
// a penalty on the worst throughput error beyond 8%.
func referenceLoss(ref []refCell, got []cellResult) float64 {
	sum, worst := 0.0, 0.0
	for i, r := range ref {
		g := got[i]
		var e float64
		switch {
		case r.phase == "prefill":
			e = math.Log(g.promptTokS / r.promptTokS)
		case r.status == "Valid" && g.totalTokS > 0:
			e = math.Log(g.totalTokS / r.totalTokS)
			if r.ttftMs > 0 && g.ttftMs > 0 {
				sum += 0.05 * math.Pow(math.Log(g.ttftMs/r.ttftMs), 2)
			}
		case r.status == "Valid":
			e = 3
		default:
			continue
		}
		sum += e * e
		worst = math.Max(worst, math.Abs(e))
	}
	return sum + 10*math.Pow(math.Max(0, worst-0.08), 2)
}

// nelderMead minimises f from x0 with an initial simplex of the given step.
func nelderMead(f func([]float64) float64, x0 []float64, step float64, iters int) ([]float64, float64) {
	n := len(x0)
	type pt struct {
		x []float64
		f float64
	}
	simplex := make([]pt, n+1)
	for i := range simplex {
		x := append([]float64(nil), x0...)
		if i > 0 {
			x[i-1] += step
		}
		simplex[i] = pt{x, f(x)}
	}
	comb := func(a []float64, ca float64, b []float64, cb float64) []float64 {
		out := make([]float64, n)
		for i := range out {
			out[i] = ca*a[i] + cb*b[i]
		}
		return out
	}
	for it := 0; it < iters; it++ {
		sort.Slice(simplex, func(i, j int) bool { return simplex[i].f < simplex[j].f })
		centroid := make([]float64, n)
		for _, p := range simplex[:n] {
			for i := range centroid {
				centroid[i] += p.x[i] / float64(n)
			}
		}
		worst := simplex[n]
		xr := comb(centroid, 2, worst.x, -1)
		fr := f(xr)
		switch {
		case fr < simplex[0].f:
			xe := comb(centroid, 3, worst.x, -2)
			if fe := f(xe); fe < fr {
				simplex[n] = pt{xe, fe}
			} else {
				simplex[n] = pt{xr, fr}
			}
		case fr < simplex[n-1].f:
			simplex[n] = pt{xr, fr}
		default:
			xc := comb(centroid, 0.5, worst.x, 0.5)
			if fc := f(xc); fc < worst.f {
				simplex[n] = pt{xc, fc}
			} else {
				for i := 1; i <= n; i++ {
					x := comb(simplex[0].x, 0.5, simplex[i].x, 0.5)
					simplex[i] = pt{x, f(x)}
				}
			}
		}
	}
	sort.Slice(simplex, func(i, j int) bool { return simplex[i].f < simplex[j].f })
	return simplex[0].x, simplex[0].f
}

// TestTryProfile prints the reference table for the default profile with
// overrides from RIGBENCH_SIM_TRY ("Field=value,…"): a quick manual probe
// while calibrating.
func TestTryProfile(t *testing.T) {
	spec := os.Getenv("RIGBENCH_SIM_TRY")
	if spec == "" {
		t.Skip("set RIGBENCH_SIM_TRY=Field=value,… to probe a profile")
	}
	p := DefaultProfile()
	fields := map[string]*float64{
		"StepBaseS": &p.StepBaseS, "DecodePerSeqS": &p.DecodePerSeqS, "DecodePerContextTokenS": &p.DecodePerContextTokenS,
		"DecodeContextQuadS": &p.DecodeContextQuadS, "DecodeBatchExponent": &p.DecodeBatchExponent,
		"PrefillPerTokenS": &p.PrefillPerTokenS, "PrefillAttentionS": &p.PrefillAttentionS,
		"APIBaseS": &p.APIBaseS, "APIPerTokenS": &p.APIPerTokenS,
	}
	for _, kv := range strings.Split(spec, ",") {
		k, v, _ := strings.Cut(kv, "=")
		f, err := strconv.ParseFloat(v, 64)
		if fields[k] == nil || err != nil {
			t.Fatalf("bad override %q", kv)
		}
		*fields[k] = f
	}
	cfg := DefaultConfig()
	cfg.Profile = p
	ref := loadReference(t)
	got := runReferencePlan(t, cfg, ref)
	table, match, worst, cell := compareReference(ref, got)
	t.Logf("\n%s\nstatus match %.1f%%, worst %.1f%% (%s), loss %.4f", table, 100*match, 100*worst, cell, referenceLoss(ref, got))
}

package bench

import (
	"math"
	"slices"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestStreamDocs: within a context a larger N keeps the smaller N's
// documents; the next context keeps each stream's document (its prompt
// grows); a context's prefill samples take the first streams; no cell has
// a document twice.
func TestStreamDocs(t *testing.T) {
	var s streamDocs
	last := 0
	fresh := func() int { last++; return last }
	check := func(context, n int, want []int, wantSent ...int) {
		t.Helper()
		cell := s.forCell(context, n, fresh)
		var got, sent []int
		for _, d := range cell {
			got, sent = append(got, d.doc), append(sent, d.sent)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%d×%d: documents %v, want %v", context, n, got, want)
		}
		if wantSent != nil && !slices.Equal(sent, wantSent) {
			t.Errorf("%d×%d: sent before %v, want %v", context, n, sent, wantSent)
		}
		seen := map[int]bool{}
		for _, d := range got {
			if seen[d] {
				t.Errorf("%d×%d: document %d held by two streams", context, n, d)
			}
			seen[d] = true
		}
	}
	check(0, 1, []int{1})
	check(0, 2, []int{1, 2})
	check(0, 4, []int{1, 2, 3, 4})
	s.seed(1024, fresh()) // 5
	s.seed(1024, fresh()) // 6
	check(1024, 1, []int{5}, 1024)
	check(1024, 4, []int{5, 6, 3, 4}, 1024, 1024, 0, 0)
	check(1024, 8, []int{5, 6, 3, 4, 7, 8, 9, 10}, 1024, 1024, 1024, 1024, 0, 0, 0, 0)
	check(2048, 2, []int{5, 6}, 1024, 1024)
	s.seed(4096, fresh()) // 11
	check(4096, 8, []int{11, 6, 3, 4, 7, 8, 9, 10}, 4096, 2048, 1024, 1024, 1024, 1024, 1024, 1024)
}

// TestCellOrder: a fixed-window plan runs the seed tool's order (every
// prefill cell first); an adaptive one runs each context's prefill cell
// just before its decode row, contexts ascending.
func TestCellOrder(t *testing.T) {
	p := rundoc.Plan{PrefillContexts: []int{1024, 4096}, Contexts: []int{0, 4096}, Concurrency: []int{1, 2}}
	label := func(specs []cellSpec) []string {
		var out []string
		for _, s := range specs {
			out = append(out, string(s.phase[0])+rundoc.CellName(s.context, s.n))
		}
		return out
	}
	if got, want := label(cellSpecs(p)), []string{"p1K×1", "p4K×1", "d0×1", "d0×2", "d4K×1", "d4K×2"}; !slices.Equal(got, want) {
		t.Errorf("fixed order %v, want %v", got, want)
	}
	p.Window = rundoc.WindowAuto
	if got, want := label(cellSpecs(p)), []string{"d0×1", "d0×2", "p1K×1", "p4K×1", "d4K×1", "d4K×2"}; !slices.Equal(got, want) {
		t.Errorf("adaptive order %v, want %v", got, want)
	}
}

// TestEstimateReusesPrompts: an adaptive plan's estimate counts only the
// prompt tokens the server does not hold yet; a fixed plan's counts N
// fresh prompts per cell.
func TestEstimateReusesPrompts(t *testing.T) {
	measured := []rundoc.Cell{
		{Phase: rundoc.PhasePrefill, Context: 8192, PromptTokS: 4096, Status: rundoc.StatusValid, CompletedRequests: 2},
		{Phase: rundoc.PhasePrefill, Context: 16384, PromptTokS: 2048, Status: rundoc.StatusValid, CompletedRequests: 2},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, MeasuredS: 6},
	}
	cold := func(c int) float64 { return float64(c) / PrefillRate(measured, c) } // 2 s at 8K, 8 s at 16K
	p := rundoc.Plan{PrefillContexts: []int{16384}, Contexts: []int{8192, 16384}, Concurrency: []int{1, 4},
		DurationS: 30, MaxOutput: 1024}
	fixed := 2*cold(16384) + // prefill cell, once, and its warm-up
		(30 + 1*cold(8192)) + (30 + 4*cold(8192)) + (30 + 1*cold(16384)) + (30 + 4*cold(16384)) +
		4*AssumedRamp.Seconds() // each decode cell's ramp to steady state
	if got := PlanDuration(p, Limits{}, measured).Seconds(); math.Abs(got-fixed) > 0.01 {
		t.Errorf("fixed estimate %.2f s, want %.2f", got, fixed)
	}
	p.Window, p.Precision = rundoc.WindowAuto, 0.01
	// 8K×1: one cold prompt; 8K×4: three more; prefill 16K: two cold
	// samples, which become streams 0 and 1 at 16K; 16K×4: streams 2 and 3
	// grow from 8K to 16K; the prefill cell's warm-up is one cold 16K more.
	auto := 6 + 1*cold(8192) + 6 + 3*cold(8192) + 3*cold(16384) + 6 + 0 + 6 + 2*(cold(16384)-cold(8192)) +
		4*AssumedRamp.Seconds()
	if got := PlanDuration(p, Limits{}, measured).Seconds(); math.Abs(got-auto) > 0.01 {
		t.Errorf("adaptive estimate %.2f s, want %.2f", got, auto)
	}
}

// TestEstimateTakesWhatRan: part-way through an adaptive run the estimate
// walks the cells that ran as they ran. A prefill cell that sent three
// samples leaves three streams' prompts cached; a decode cell skipped
// after a smaller N ran out of capacity sent no prompts, so the next
// context's streams 2 and 3 start from nothing instead of from 8K.
func TestEstimateTakesWhatRan(t *testing.T) {
	p := rundoc.Plan{PrefillContexts: []int{8192}, Contexts: []int{8192, 16384}, Concurrency: []int{2, 4},
		DurationS: 30, MaxOutput: 1024, Window: rundoc.WindowAuto, Precision: 0.01}
	measured := []rundoc.Cell{
		{Phase: rundoc.PhasePrefill, Context: 8192, PromptTokS: 4096, Status: rundoc.StatusValid, CompletedRequests: 3},
		{Phase: rundoc.PhaseDecode, Context: 8192, Concurrency: 2, Status: rundoc.StatusOverCapacity, MeasuredS: 6},
		{Phase: rundoc.PhaseDecode, Context: 8192, Concurrency: 4, Status: rundoc.StatusOverCapacity,
			Reason: notRunReason + "concurrency 2 at this context already produced no output"},
	}
	cold := func(c int) float64 { return float64(c) / PrefillRate(measured, c) }
	w := ExpectedWindow(p, measured).Seconds() + ExpectedRamp(measured).Seconds()
	specs := cellSpecs(p)
	// Left: 16K×2 (streams 0 and 1 grow from the 8K samples) and 16K×4
	// (streams 2 and 3 are new: the skipped 8K×4 sent nothing).
	want := w + 2*(cold(16384)-cold(8192)) + w + 2*cold(16384)
	if got := estimateSpecs(p, specs, 3, Limits{}, measured).Seconds(); math.Abs(got-want) > 0.01 {
		t.Errorf("estimate of the cells left %.2f s, want %.2f", got, want)
	}
	// Had 8K×4 run, streams 2 and 3 would hold 8K prompts (and the prefill
	// cell's third sample would be stream 2's).
	measured[2].Reason = ""
	want = w + 2*(cold(16384)-cold(8192)) + w + 2*(cold(16384)-cold(8192))
	if got := estimateSpecs(p, specs, 3, Limits{}, measured).Seconds(); math.Abs(got-want) > 0.01 {
		t.Errorf("estimate with 8K×4 run %.2f s, want %.2f", got, want)
	}
}

// TestEstimateSharedPrompts: under the shared policy (the default) a
// context's document is prefilled once, by its prefill cell where there
// is one, so a decode cell's warm-up costs nothing after the first of its
// context, whatever N; each decode cell adds its window and its ramp
// (measured cells' mean ramp once there are some).
func TestEstimateSharedPrompts(t *testing.T) {
	measured := []rundoc.Cell{
		{Phase: rundoc.PhasePrefill, Context: 8192, PromptTokS: 4096, Status: rundoc.StatusValid},
		{Phase: rundoc.PhasePrefill, Context: 16384, PromptTokS: 2048, Status: rundoc.StatusValid},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, CellWindow: rundoc.CellWindow{RampS: 7}},
	}
	cold := func(c int) float64 { return float64(c) / PrefillRate(measured, c) }
	p := rundoc.Plan{PrefillContexts: []int{16384}, Contexts: []int{8192, 16384}, Concurrency: []int{1, 4},
		DurationS: 30, MaxOutput: 1024, Prompts: rundoc.PromptsShared}
	// Prefill 16K (its sample is the 16K document), then 8K×1 prefills the
	// 8K document once; 8K×4, 16K×1 and 16K×4 find theirs cached. The
	// prefill cell's hidden warm-up is one cold 16K more.
	want := 2*cold(16384) + cold(8192) + 4*(30+7)
	if got := PlanDuration(p, Limits{}, measured).Seconds(); math.Abs(got-want) > 0.01 {
		t.Errorf("shared estimate %.2f s, want %.2f", got, want)
	}
}

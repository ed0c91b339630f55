package runview_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/ui/runview"
)

// With the server's KV capacity known, the grid preview marks the cells
// that cannot fit as Over capacity and the rest as will run, and the
// estimate counts them.
func TestPreviewMarksOverCapacity(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	v.SetPlanText("0, 16K", "1, 32", "", "10", "64")
	// 32 × (16384 + 64) tokens do not fit in 20,000; 1 × 16448 does.
	v.SetFacts(session.Facts{MaxModelLen: 32768, KVCapacity: 20000})
	for _, tc := range []struct {
		ctx, n int
		want   string
	}{
		{0, 1, "will run"}, {0, 32, "will run"}, {16384, 1, "will run"}, {16384, 32, string(rundoc.StatusOverCapacity)},
	} {
		if l1, _, ok := v.Matrix().Lines(tc.ctx, tc.n); !ok || l1 != tc.want {
			t.Errorf("preview %d×%d = %q, want %q", tc.ctx, tc.n, l1, tc.want)
		}
	}
	// A context longer than the model's limit is predicted too long.
	v.SetPlanText("64K", "", "", "", "")
	// (The long status takes both lines of the cell.)
	if l1, l2, _ := v.Matrix().Lines(65536, 1); l1+" "+l2 != string(rundoc.StatusExceedsLength) {
		t.Errorf("64K × 1 with max_model_len 32768 = %q / %q, want %q", l1, l2, rundoc.StatusExceedsLength)
	}
}

// A plan that cannot run says why and is not returned.
func TestInvalidPlanRejected(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	v.SetPlanText("0", "two", "", "", "")
	if _, err := v.Plan(); err == nil {
		t.Error("concurrency \"two\" accepted")
	}
	v.SetPlanText("0", "1, 2", "", "10", "64")
	p, err := v.Plan()
	if err != nil || len(p.Concurrency) != 2 || p.DurationS != 10 {
		t.Errorf("plan = %+v, %v", p, err)
	}
	if s := v.Status(); strings.Contains(s, "Running") {
		t.Errorf("status %q before any start", s)
	}
}

// In demo mode the estimate is in real time: the simulator at speed S runs
// the plan S times faster than the card it imitates.
func TestEstimateAtDemoSpeed(t *testing.T) {
	p := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 30, MaxOutput: 64}
	f := session.Facts{MaxModelLen: 4096, KVCapacity: 100000}
	real, n := session.Estimate(session.Predict(p, f), f, nil)
	f.Speed = 10
	demo, _ := session.Estimate(session.Predict(p, f), f, nil)
	if n != 2 || real.Seconds() < 60 || demo*10 != real {
		t.Errorf("estimate %v for %d cells at speed 1, %v at speed 10", real, n, demo)
	}
}

// Issue 16 item 6: at 1280 px the default plan's grid shows whole, N=128
// included (it was cut to "Ov…").
func TestDefaultGridFitsAt1280(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	v.SetPlan(rundoc.DefaultPlan())
	v.SetFacts(session.Facts{MaxModelLen: 131072, KVCapacity: 50000})
	w := test.NewWindow(v.Content())
	defer w.Close()
	w.Resize(fyne.NewSize(1280, 800))
	if !v.MatrixFits() {
		t.Errorf("the default plan's grid (%.0f wide) does not fit at 1280 px (%s)", v.Matrix().MinSize().Width, v.MatrixRoom())
	}
	if _, _, ok := v.Matrix().Lines(0, 128); !ok {
		t.Error("the default plan has no N=128 column")
	}
}

// The Prompts field (METHOD.md: Prompts) starts on the seed tool's shared
// policy, reads into the plan, and a restored plan keeps its policy.
func TestPromptPolicyField(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	v.SetPlanText("0", "1", "", "10", "64")
	if p, err := v.Plan(); err != nil || p.Prompts != rundoc.PromptsShared {
		t.Fatalf("default plan prompts %q (%v), want %q", p.Prompts, err, rundoc.PromptsShared)
	}
	restored := rundoc.DefaultPlan()
	restored.Prompts = rundoc.PromptsUnique
	v.SetPlan(restored)
	if p, err := v.Plan(); err != nil || p.Prompts != rundoc.PromptsUnique {
		t.Errorf("restored plan prompts %q (%v), want %q", p.Prompts, err, rundoc.PromptsUnique)
	}
}

// Issue 24 item 12: when every cell fits, the estimate says so instead of
// "the rest are predicted over capacity" with no rest; when some do not,
// it counts them.
func TestEstimateWordsAllCellsFit(t *testing.T) {
	test.NewTempApp(t)
	v := runview.New(nil)
	v.SetPlanText("0, 1K", "1, 2, 4", "", "10", "64")
	v.SetFacts(session.Facts{MaxModelLen: 32768, KVCapacity: 1 << 20})
	if e := v.Estimate(); !strings.Contains(e, "All 6 decode cells will run.") || strings.Contains(e, "the rest") {
		t.Errorf("estimate with every cell fitting: %q", e)
	}
	v.SetFacts(session.Facts{MaxModelLen: 32768, KVCapacity: 2000})
	if e := v.Estimate(); !strings.Contains(e, "of 6 decode cells will run; the rest") {
		t.Errorf("estimate with cells over capacity: %q", e)
	}
}

package bench

import (
	"errors"
	"github.com/rigbench/rigbench/engine/rundoc"
	"strings"
	"testing"
	"time"
)

// The budget is stuckFactor × the predicted prefill time, or the least
// wait when that is longer, and the error says which one applied.
func TestFirstTokenBudget(t *testing.T) {
	t.Parallel()
	r := &Runner{FirstTokenTimeout: time.Minute}
	run := &rundoc.Run{}
	// 100K tokens at the assumed rate shaped for 100K context.
	predicted := 100000 / PrefillRate(nil, 100000)
	got, floor := r.firstTokenBudget(run, 100000, 100000)
	if want := time.Duration(stuckFactor * predicted * float64(time.Second)); floor || got != want {
		t.Errorf("budget for 100K tokens = %v (floor %v), want %v from the prediction", got, floor, want)
	}
	if msg := (&StuckError{Waited: got, Tokens: 100000}).Error(); !strings.Contains(msg, "5× what the prefill rate predicts") {
		t.Errorf("message %q", msg)
	}
	got, floor = r.firstTokenBudget(run, 0, 10)
	if !floor || got != time.Minute {
		t.Errorf("budget for 10 tokens = %v (floor %v), want the 1m0s least wait", got, floor)
	}
	if msg := (&StuckError{Waited: got, Tokens: 10, Floor: true}).Error(); !strings.Contains(msg, "within 1 min") || !strings.Contains(msg, "least wait") {
		t.Errorf("message %q", msg)
	}
}

// N requests that failed alike are one sentence with their count, not the
// same sentence on N lines (issue 12 #11); different failures are each
// said once.
func TestJoinDistinct(t *testing.T) {
	t.Parallel()
	a, b := errors.New("the server answered HTTP 500"), errors.New("the stream broke")
	if got := joinDistinct([]error{a, nil, a, a}).Error(); got != "all 3 requests: the server answered HTTP 500" {
		t.Errorf("alike: %q", got)
	}
	if got := joinDistinct([]error{a, b, a}).Error(); got != "the server answered HTTP 500\nthe stream broke" {
		t.Errorf("different: %q", got)
	}
	if joinDistinct([]error{nil, nil}) != nil {
		t.Error("no error must join to nil")
	}
}

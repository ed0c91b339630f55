package rundoc_test

import (
	"errors"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestAcceptLenRefInput: --accept-len-ref reads as tokens per step from 1
// to 65, empty for none, and a plan gives it back as it was typed.
func TestAcceptLenRefInput(t *testing.T) {
	for text, want := range map[string]float64{"": 0, "3": 3, " 2.5 ": 2.5, "65": 65} {
		p, err := rundoc.PlanInput{AcceptLenRef: text}.Plan()
		if err != nil || p.AcceptLenRef != want {
			t.Errorf("%q: %v, %v; want %g", text, p.AcceptLenRef, err, want)
		}
		if want > 0 && p.Input().AcceptLenRef == "" {
			t.Errorf("%q: the plan's input lost it", text)
		}
	}
	for _, text := range []string{"0.5", "0", "66", "NaN", "three"} {
		_, err := rundoc.PlanInput{AcceptLenRef: text}.Plan()
		var fe *rundoc.FieldError
		if !errors.As(err, &fe) || fe.Field != rundoc.FieldAcceptLenRef {
			t.Errorf("%q: %v, want an error naming the field", text, err)
		}
	}
}

package predict_test

import (
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// The Launch view predicts on every edit of the form, so one prediction of
// the default matrix, and of a launch that does not fit (whose fixes are
// predicted again, a larger card included), must take well under a frame
// (16 ms). make bench runs these; measured 2026-12-04 on the 2-core VM:
// 0.04 ms and 0.18 ms (the fixes' re-predictions were 89 ms before they
// stopped predicting fixes of their own).
func BenchmarkPredictDefaultMatrix(b *testing.B) {
	p := sim.DefaultProfile()
	card, cards := predict.ProfileCard(p)
	in := predict.Input{Card: card, Cards: cards, Model: predict.ProfileModel(p), Plan: rundoc.DefaultPlan()}
	for b.Loop() {
		if _, err := predict.Predict(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkPredictDoesNotFit(b *testing.B) {
	card, _ := predict.FindCard("RTX 3060")
	m, _ := predict.BuiltinModel("meta-llama/Llama-3.1-8B-Instruct")
	in := predict.Input{Card: card, Model: m, Plan: rundoc.DefaultPlan()}
	for b.Loop() {
		pr, err := predict.Predict(in)
		if err != nil || pr.Fits || len(pr.Fixes) == 0 {
			b.Fatalf("%v %+v", err, pr)
		}
	}
}

//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package results_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/results"
)

// Issue 41 minor 8: one KV capacity reads the same in Results' header, its
// Diagnosis and Tune's table (rundoc.TokensText, "494,560 tokens"); it was
// "494560 tokens", "494K" and "483K tok" (a binary K).
func TestKVCapacityReadsTheSameEverywhere(t *testing.T) {
	test.NewTempApp(t)
	const kv = 494560
	want := rundoc.TokensText(kv)
	if want != "494,560 tokens" {
		t.Fatalf("TokensText(%d) = %q", kv, want)
	}
	r := &rundoc.Run{UUID: "1c2d3e4f-5a6b-4c7d-8e9f-0a1b2c3d4e5f", Simulated: true, Status: rundoc.RunComplete,
		Plan:   rundoc.Plan{Contexts: []int{0, 262144}, Concurrency: []int{1, 4}, MaxOutput: 1024},
		Server: rundoc.Server{Model: "rigbench/tiny", KVCapacityTokens: kv, KVCapacitySource: rundoc.KVSourceLog},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50},
			{Phase: rundoc.PhaseDecode, Context: 262144, Concurrency: 4, Status: rundoc.StatusOverCapacity},
		}}
	v := results.New()
	v.SetRun(r, nil)
	_, rows := (&tune.Doc{Plan: r.Plan, Variants: []tune.DocVariant{{Label: "your flags", Status: tune.Measured, KVCapacityTokens: kv}}}).Table()
	for where, text := range map[string]string{
		"Results' header": results.Summary(r),
		"Diagnosis":       v.Diagnosis(),
		"Tune's table":    strings.Join(rows[0], " | "),
	} {
		if !strings.Contains(text, want) {
			t.Errorf("%s does not say %q:\n%s", where, want, text)
		}
		for _, other := range []string{"494K", "483K", "494560"} {
			if strings.Contains(text, other) {
				t.Errorf("%s words the capacity %q:\n%s", where, other, text)
			}
		}
	}
}

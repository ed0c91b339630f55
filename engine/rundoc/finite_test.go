package rundoc_test

import (
	"bytes"
	"math"
	"slices"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestDropNonFiniteKeepsTheRunWritable: one NaN or infinity anywhere in a
// cell made encoding/json refuse the whole run (issue 36 item 1: "the
// history kept 0 of the run's 1 cells: json: unsupported value: NaN").
// After DropNonFinite the run writes and reads back, the finite figures
// untouched, and the cleared fields are named.
func TestDropNonFiniteKeepsTheRunWritable(t *testing.T) {
	nan, inf := math.NaN(), math.Inf(1)
	run := &rundoc.Run{UUID: "0b7c8d7e-3f0a-4d7e-9a53-6a5b8c1d2e3f", Status: rundoc.RunComplete,
		Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid,
			TotalTokS: 34.2}}}
	run.Cells[0].ServerTokenDiffPct, run.Cells[0].ServerDecodeTokS = &nan, inf
	var buf bytes.Buffer
	if err := rundoc.WriteRun(&buf, run); err == nil {
		t.Fatal("a NaN figure wrote as JSON; the test no longer shows what it guards against")
	}
	got := rundoc.DropNonFinite(&run.Cells[0])
	if want := []string{"server_decode_tok_s", "server_token_diff_pct"}; !slices.Equal(sorted(got), want) {
		t.Errorf("cleared %v, want %v", got, want)
	}
	c := run.Cells[0]
	if c.ServerTokenDiffPct != nil || c.ServerDecodeTokS != 0 || c.TotalTokS != 34.2 {
		t.Errorf("after: diff %v, server tok/s %v, total %v", c.ServerTokenDiffPct, c.ServerDecodeTokS, c.TotalTokS)
	}
	buf.Reset()
	if err := rundoc.WriteRun(&buf, run); err != nil {
		t.Fatalf("still not writable: %v", err)
	}
	if again := rundoc.DropNonFinite(run); len(again) != 0 {
		t.Errorf("a finite run reports %v cleared", again)
	}
}

func sorted(s []string) []string { s = slices.Clone(s); slices.Sort(s); return s }

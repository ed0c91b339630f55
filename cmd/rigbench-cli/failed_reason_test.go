package main

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestShowSaysWhyACellFailed: the matrix says only "Failed"; `show` and
// `run` give the reason beneath it, as for an Unreliable cell, so a
// stalled server's cell says why where it is shown (issue 35 item 3).
func TestShowSaysWhyACellFailed(t *testing.T) {
	run := &rundoc.Run{Cells: []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed,
			Reason: "the server stopped producing tokens 4.1 s into the window"},
	}}
	var b bytes.Buffer
	printUnreliable(&b, run)
	if want := "failed: decode 0×2: the server stopped producing tokens 4.1 s into the window"; !strings.Contains(b.String(), want) {
		t.Errorf("printed %q, want %q", b.String(), want)
	}
	if strings.Contains(b.String(), "0×1") {
		t.Errorf("a Valid cell was listed: %q", b.String())
	}
}

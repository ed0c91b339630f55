package report_test

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

func TestCompareChanges(t *testing.T) {
	ref := reference(t)
	tab := report.Compare([]*rundoc.Run{ref, tuned(t, ref)}, rundoc.CompareFigures[0])
	if len(tab.Rows) != 20 { // the reference run has 20 decode cells with figures
		t.Fatalf("%d rows, want 20", len(tab.Rows))
	}
	for _, row := range tab.Rows {
		a, b := row.Entries[0], row.Entries[1]
		if a.HasChange || !b.HasChange {
			t.Fatalf("C=%d N=%d: baseline must have no change and B one", row.Context, row.Concurrency)
		}
		if math.Abs(b.ChangePct-25) > 1e-9 {
			t.Errorf("C=%d N=%d: change %.6f%%, want +25%%", row.Context, row.Concurrency, b.ChangePct)
		}
		if want := ref.Find(rundoc.PhaseDecode, row.Context, row.Concurrency).TotalTokS; a.Value != want {
			t.Errorf("C=%d N=%d: A = %g, want %g", row.Context, row.Concurrency, a.Value, want)
		}
	}
}

// TestCompareMissingCell: a cell one run measured and the other did not
// keeps the other's status and has no change.
func TestCompareMissingCell(t *testing.T) {
	a := &rundoc.Run{Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 64, Status: rundoc.StatusOverCapacity}}}
	b := &rundoc.Run{Cells: []rundoc.Cell{{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 64, Status: rundoc.StatusValid, TotalTokS: 900}}}
	tab := report.Compare([]*rundoc.Run{a, b}, rundoc.CompareFigures[0])
	if len(tab.Rows) != 1 {
		t.Fatalf("%d rows, want 1", len(tab.Rows))
	}
	e := tab.Rows[0].Entries
	if e[0].Has || e[0].Status != rundoc.StatusOverCapacity || e[1].HasChange || !e[1].Has {
		t.Fatalf("entries = %+v", e)
	}
}

func TestCompareMarkdownGolden(t *testing.T) {
	ref := reference(t)
	var buf bytes.Buffer
	if err := report.WriteCompareMarkdown(&buf, []*rundoc.Run{ref, tuned(t, ref)}); err != nil {
		t.Fatal(err)
	}
	out := buf.String()
	for _, want := range []string{"| 0 | 32 | 890.6 | 1113.2 | +25.0% |", "| 128K | 1 | 23.4 (queued) | 29.2 (queued) | +25.0% |", "−20.0%", "differs: NVIDIA GeForce RTX 3090, 350 W, --enable-prefix-caching"} {
		if !strings.Contains(out, want) {
			t.Errorf("markdown lacks %q", want)
		}
	}
	golden(t, "compare_reference.md", buf.Bytes())
}

func TestCompareMarkdownEscapes(t *testing.T) {
	h := hostile()
	var buf bytes.Buffer
	if err := report.WriteCompareMarkdown(&buf, []*rundoc.Run{h, h}); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), "<script>") {
		t.Fatalf("raw markup in Markdown:\n%s", buf.String())
	}
	if err := report.WriteCompareMarkdown(&buf, []*rundoc.Run{h}); err == nil {
		t.Error("one run: want an error")
	}
}

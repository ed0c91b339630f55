package report_test

import (
	"bytes"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestCompareCannotCompareUnreliable (issue 35 item 1): the starved demo's
// 16K×4 read 91.2 tok/s, Valid, and Compare called it "no significant
// change" against 152.9. An Unreliable cell has no figure to compare:
// its side says why, and the change says "cannot compare: " and the head
// of the reason, whichever run it is in; the Markdown comparison says so
// too.
func TestCompareCannotCompareUnreliable(t *testing.T) {
	why := rundoc.UnreliableReason("counter +80%", "the server counted 7,663 generated tokens, RigBench 4,265 (+79.7%)")
	cell := func(st rundoc.Status, rate, half float64, reason string) rundoc.Cell {
		return rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 16384, Concurrency: 4, Status: st, TotalTokS: rate, TotalTokSCI95: half, Reason: reason}
	}
	good := &rundoc.Run{UUID: "aaaaaaaa-good", Cells: []rundoc.Cell{cell(rundoc.StatusValid, 152.9, 1.2, "")}}
	bad := &rundoc.Run{UUID: "bbbbbbbb-bad", Cells: []rundoc.Cell{cell(rundoc.StatusUnreliable, 91.2, 32381.9, why)}}
	for _, tc := range []struct {
		name   string
		runs   []*rundoc.Run
		change string
	}{
		{"unreliable second", []*rundoc.Run{good, bad}, "cannot compare: counter +80%"},
		{"unreliable baseline", []*rundoc.Run{bad, good}, "cannot compare: the baseline's counter +80%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := report.Compare(tc.runs, rundoc.FigTotalTokS)
			if len(tab.Rows) != 1 {
				t.Fatalf("%d rows, want the one cell", len(tab.Rows))
			}
			e := tab.Rows[0].Entries[1]
			if got := e.ChangeText(); got != tc.change || e.HasChange {
				t.Errorf("change %q (has %v), want %q", got, e.HasChange, tc.change)
			}
			for _, x := range tab.Rows[0].Entries {
				if x.Status == rundoc.StatusUnreliable && (x.Has || tab.EntryText(x) != "Unreliable: counter +80%") {
					t.Errorf("the Unreliable side reads %q (has a figure %v)", tab.EntryText(x), x.Has)
				}
			}
			var b bytes.Buffer
			if err := report.Write(&b, report.Markdown, tc.runs, report.Options{}); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(b.String(), tc.change) || strings.Contains(b.String(), report.NoSignificantChange) {
				t.Errorf("the Markdown comparison lacks %q:\n%s", tc.change, b.String())
			}
		})
	}
}

// TestCSVKeepsTheUnreliableReason: a run with an Unreliable cell writes a
// reason column, which the CSV reader keeps, so the cell still says why
// after a round trip; a run without one keeps the reference columns.
func TestCSVKeepsTheUnreliableReason(t *testing.T) {
	why := rundoc.UnreliableReason("usage fell", "the server's usage count went down 12 time(s) within 3 request(s)")
	r := &rundoc.Run{Cells: []rundoc.Cell{
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50.3, MeasuredS: 30},
		{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusUnreliable, TotalTokS: 2664, MeasuredS: 30, Reason: why},
	}}
	var b bytes.Buffer
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(b.String(), "\n", 2)[0]; !strings.HasSuffix(head, ","+report.ReasonColumn) {
		t.Fatalf("header %q lacks the reason column", head)
	}
	back, err := report.ReadReferenceCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	c := back.Find(rundoc.PhaseDecode, 0, 2)
	if c == nil || c.Status != rundoc.StatusUnreliable || c.Reason != why || rundoc.UnreliableHead(c) != "usage fell" {
		t.Errorf("read back %+v, want Unreliable with %q", c, why)
	}
	r.Cells = r.Cells[:1]
	b.Reset()
	if err := report.WriteCSV(&b, r); err != nil {
		t.Fatal(err)
	}
	if head := strings.SplitN(b.String(), "\n", 2)[0]; head != strings.Join(report.CSVColumns, ",") {
		t.Errorf("a run without Unreliable cells writes %q, want the reference columns", head)
	}
}

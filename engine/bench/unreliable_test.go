package bench_test

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// backwardsUsage is a ResponseWriter whose usage runs backwards: every
// completion_tokens the simulator reports, n, becomes 1000 − n, so each
// chunk claims fewer tokens than the one before (issue 35: "a server whose
// usage runs backwards gets Valid 25.2 ± 49.7").
type backwardsUsage struct{ http.ResponseWriter }

func (w backwardsUsage) Write(p []byte) (int, error) {
	out := completionTokensRE.ReplaceAllFunc(p, func(m []byte) []byte {
		n, _ := strconv.Atoi(string(completionTokensRE.FindSubmatch(m)[1]))
		return []byte(`"completion_tokens":` + strconv.Itoa(max(0, 1000-n)))
	})
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w backwardsUsage) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// lyingServer serves the tiny simulator at speed 2 through wrap, which
// rewrites what its streams say; /metrics (the server's own counter) stays
// the simulator's, which counts what it streamed.
func lyingServer(t *testing.T, wrap func(http.ResponseWriter) http.ResponseWriter) *client.Client {
	t.Helper()
	s, err := sim.New(tinyConfig(t, 2))
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.Handler().ServeHTTP(wrap(w), r)
	}))
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseIdle(); hs.Close(); s.Close() })
	return c
}

// TestLyingUsageIsNotValid (issue 35 item 1): a server whose usage claims
// 10× the tokens it streams, and one whose usage runs backwards, measured
// Valid before (352 tok/s where the truth was about 37). The chunks and the
// server's own counter contradict the usage, so no cell is Valid: each is
// Unreliable, with a reason whose head names the contradiction.
func TestLyingUsageIsNotValid(t *testing.T) {
	for _, tc := range []struct {
		name  string
		wrap  func(http.ResponseWriter) http.ResponseWriter
		heads []string // one of them starts the reason
	}{
		{"usage 10x", func(w http.ResponseWriter) http.ResponseWriter { return scaledUsage{w, 10, 1} }, []string{"counter -"}},
		{"usage backwards", func(w http.ResponseWriter) http.ResponseWriter { return backwardsUsage{w} }, []string{"usage fell"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := lyingServer(t, tc.wrap)
			plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 3, MaxOutput: 64}
			run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			if len(run.Cells) != 2 {
				t.Fatalf("%d cells, want 2", len(run.Cells))
			}
			for _, cell := range run.Cells {
				if cell.Status != rundoc.StatusUnreliable {
					t.Errorf("%s: %s %.1f tok/s (%s), want Unreliable", cell.Label(), cell.Status, cell.TotalTokS, cell.Reason)
					continue
				}
				head := rundoc.UnreliableHead(&cell)
				ok := false
				for _, h := range tc.heads {
					ok = ok || strings.HasPrefix(head, h)
				}
				if !ok || !strings.HasPrefix(cell.Reason, head+": ") {
					t.Errorf("%s: head %q of %q, want one starting %q", cell.Label(), head, cell.Reason, tc.heads)
				}
				if l1, l2 := rundoc.MatrixLines(&cell); l1 != "Unreliable" || l2 != head {
					t.Errorf("%s: the matrix shows %q / %q, want Unreliable / %q", cell.Label(), l1, l2, head)
				}
			}
			if n := bench.Remaining(run); n != 2 {
				t.Errorf("a resume would measure %d cells, want the 2 Unreliable ones", n)
			}
		})
	}
}

// TestResumeMeasuresUnreliableCells (issue 35 item 1): a resume keeps
// what the method says of a cell, but an Unreliable cell's evidence
// contradicted its figure, so the resume measures it again, on an honest
// server this time, and keeps the other cells byte for byte.
func TestResumeMeasuresUnreliableCells(t *testing.T) {
	lying := lyingServer(t, func(w http.ResponseWriter) http.ResponseWriter { return scaledUsage{w, 10, 1} })
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 3, MaxOutput: 64}
	first, err := (&bench.Runner{Client: lying, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	// One cell stands for a result the method keeps: the resume must not
	// touch it.
	first.Cells[0].Status, first.Cells[0].Reason = rundoc.StatusValid, ""
	kept, _ := json.Marshal(first.Cells[0])
	if first.Cells[1].Status != rundoc.StatusUnreliable {
		t.Fatalf("the lying server's %s is %s (%s), want Unreliable", first.Cells[1].Label(), first.Cells[1].Status, first.Cells[1].Reason)
	}
	honest := lyingServer(t, func(w http.ResponseWriter) http.ResponseWriter { return w })
	doc := *first
	var measured []string
	run, err := (&bench.Runner{Client: honest, Plan: first.Plan, Doc: &doc, Kept: first.Cells,
		Observer: rundoc.ObserverFunc(func(e rundoc.Event) {
			if e.Kind == rundoc.EventCellStarted {
				measured = append(measured, e.Cell.Label())
			}
		})}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if len(measured) != 1 || measured[0] != "decode 0×2" {
		t.Errorf("the resume measured %q, want the Unreliable decode 0×2 alone", measured)
	}
	if after, _ := json.Marshal(run.Find(rundoc.PhaseDecode, 0, 1)); string(after) != string(kept) {
		t.Errorf("the kept cell changed:\n%s\n%s", kept, after)
	}
	if c := run.Find(rundoc.PhaseDecode, 0, 2); c == nil || c.Status != rundoc.StatusValid {
		t.Errorf("0×2 after the resume on an honest server: %+v, want Valid", c)
	}
}

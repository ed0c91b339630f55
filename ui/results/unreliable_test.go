//go:build !race

// Left out of the race detector's pass: the chart gallery draws off the UI
// goroutine and shows the charts with fyne.Do, which Fyne's test driver runs
// inline there, measuring text as the test does (pass 2 of make test runs
// these without it).

package results_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/ui/results"
)

var completionTokensRE = regexp.MustCompile(`"completion_tokens":(\d+)`)

// tenfold is a ResponseWriter whose usage claims 10× the tokens the
// simulator streams; its /metrics counter stays the simulator's.
type tenfold struct{ http.ResponseWriter }

func (w tenfold) Write(p []byte) (int, error) {
	out := completionTokensRE.ReplaceAllFunc(p, func(m []byte) []byte {
		n, _ := strconv.Atoi(string(completionTokensRE.FindSubmatch(m)[1]))
		return []byte(`"completion_tokens":` + strconv.Itoa(10*n))
	})
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w tenfold) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// TestUnreliableCellsInResults (issue 35 item 1): a run against a server
// whose usage claims 10× what it streams, shown in Results: each decode
// cell says Unreliable and why on the matrix and in the measurements
// table, and Resume offers to measure them again.
func TestUnreliableCellsInResults(t *testing.T) {
	test.NewTempApp(t)
	cfg := sim.DefaultConfig()
	cfg.Profile, _ = sim.ProfileByName("tiny")
	cfg.Speed, cfg.Seed = 2, 1
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { s.Handler().ServeHTTP(tenfold{w}, r) }))
	c, err := client.New(hs.URL)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.CloseIdle(); hs.Close(); s.Close() })
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 3, MaxOutput: 64}
	run, err := (&bench.Runner{Client: c, Plan: plan}).Run(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	run.Origin = rundoc.OriginMeasured

	v := results.New()
	v.OnResume = func(*rundoc.Run) {}
	done := make(chan struct{})
	v.SetRun(run, func() { close(done) })
	<-done
	for _, n := range []int{1, 2} {
		l1, l2, ok := v.Matrix().Lines(0, n)
		if !ok || l1 != "Unreliable" || !strings.HasPrefix(l2, "counter -") {
			t.Errorf("the matrix's 0×%d reads %q / %q, want Unreliable / counter -…", n, l1, l2)
		}
	}
	rows := v.Rows()
	if len(rows) != 2 {
		t.Fatalf("%d rows, want 2", len(rows))
	}
	for _, r := range rows {
		if !strings.HasPrefix(r[3], "Unreliable: counter -") || !strings.Contains(r[len(r)-1], "the server counted") {
			t.Errorf("the table's row reads status %q, reason %q; want the head and the whole reason", r[3], r[len(r)-1])
		}
	}
	if b := v.ResumeButton(); !b.Visible() || !strings.Contains(b.Text, "2 cell(s)") {
		t.Errorf("Resume visible %v (%q), want it offering the 2 Unreliable cells", b.Visible(), b.Text)
	}
}

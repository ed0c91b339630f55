//go:build !race

// Like the journeys of app_test.go, these drive the app while the check
// calls fyne.Do from its goroutine, which Fyne's test driver does not
// serialise: they run in plain go test.

package ui

import (
	"context"
	"math"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/runview"
	"github.com/rigbench/rigbench/ui/target"
)

// simEndpoint serves the simulator with args over real HTTP on loopback.
func simEndpoint(t *testing.T, args ...string) string {
	t.Helper()
	cfg, err := sim.ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	cfg.Speed = math.Inf(1)
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	hs := httptest.NewServer(s.Handler())
	t.Cleanup(func() { hs.Close(); s.Close() })
	return hs.URL
}

// The Quality check asks an existing endpoint (the chosen target's URL):
// token agreement of an int4-cache server against a saved baseline of a
// lossless one, read from a file as Baseline file… reads it. A file that
// is not a result is refused in one sentence naming it.
func TestQualityCheckAsksTheEndpoint(t *testing.T) {
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	u := NewWithServices(test.NewTempApp(t), w, Services{Session: session.Run, SimSpeed: 20,
		Detect: func(context.Context) hardware.Snapshot { return hardware.Snapshot{GPUs: []hardware.GPU{}} }})
	<-u.Ready()

	// The baseline: the agreement probe asked of a lossless server, saved
	// as the CLI's --json saves it.
	probe := quality.AgreementProbe{}
	base, err := session.Quality(context.Background(), session.QualityTarget{Endpoint: simEndpoint(t)}, probe.Run)
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	file := filepath.Join(dir, "lossless.json")
	if err := safefile.Write(file, base.Write); err != nil {
		t.Fatal(err)
	}

	url := simEndpoint(t, "--kv-cache-dtype", "int4_per_token_head")
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Endpoint, URL: url})
		u.Run.SetQualityProbe(runview.ProbeAgreement, "")
		u.addQualityBaseline(file)
	})
	var options []string
	fyne.DoAndWait(func() { options = u.Run.QualityBaselines() })
	if len(options) != 2 || options[1] != "agreement from lossless.json" {
		t.Fatalf("baselines after Baseline file…: %q", options)
	}
	fyne.DoAndWait(u.Run.CheckQuality)
	select {
	case <-u.Run.QualityDone():
	case <-time.After(60 * time.Second):
		t.Fatal("the check did not end in 60 s")
	}
	var r *quality.Result
	var shown []string
	var status string
	fyne.DoAndWait(func() { r, shown, status = u.Run.QualityResult(), u.Run.QualityText(), u.Run.QualityStatus() })
	if r == nil || r.Endpoint != url || r.Simulated != true {
		t.Fatalf("result %+v; status %q", r, status)
	}
	ag, err := quality.CompareAgreement(base, r)
	if err != nil {
		t.Fatal(err)
	}
	if ag.PrefixShare >= 1 || len(shown) != 3 || !strings.HasPrefix(shown[1], "Against the baseline: ") || !strings.HasPrefix(shown[2], "Approximate KL divergence over the top-k: ") {
		t.Errorf("an int4 cache against a lossless one: agreement %.3f, shown %q", ag.PrefixShare, shown)
	}

	// A check is offered as a baseline; a file that is not a result adds
	// nothing.
	fyne.DoAndWait(func() { options = u.Run.QualityBaselines() })
	if len(options) != 3 {
		t.Fatalf("baselines after the check: %q", options)
	}
	bad := filepath.Join(dir, "notes.json")
	os.WriteFile(bad, []byte(`{"hello": 1}`), 0o644)
	fyne.DoAndWait(func() { u.addQualityBaseline(bad) })
	var msg string
	fyne.DoAndWait(func() {
		if top := w.Canvas().Overlays().Top(); top != nil {
			for _, l := range test.LaidOutObjects(top) {
				if lb, ok := l.(*widget.Label); ok && strings.Contains(lb.Text, "notes.json") {
					msg = lb.Text
				}
			}
		}
		options = u.Run.QualityBaselines()
	})
	if msg == "" || len(options) != 3 {
		t.Errorf("a file that is not a result: dialog %q, baselines %q", msg, options)
	}
}

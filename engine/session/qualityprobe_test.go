package session_test

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// A probe name is read by one rule in both front ends: the seed tool's
// aliases give the canonical name, a name that is no probe or asks more
// items than the set has is a *ProbeNameError, and the header is the
// probe's identity before anything is asked.
func TestNewQualityProbeNames(t *testing.T) {
	ctx := context.Background()
	for name, want := range map[string]string{
		"agreement": "agreement", "gsm8k:200": "gsm8k:200", "gsm-8k:5": "gsm8k:5", "mmlupro:30": "mmlu-pro:30",
		"gpqa:10": "gpqa-diamond:10", "gpqa_diamond": fmt.Sprintf("gpqa-diamond:%d", quality.DemoItems),
	} {
		probe, header, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: name, Demo: true})
		if err != nil || probe == nil {
			t.Errorf("%q: %v", name, err)
			continue
		}
		if header.Probe != want || header.Kind != quality.Kind {
			t.Errorf("%q reads as %q (%s), want %q", name, header.Probe, header.Kind, want)
		}
		if want != "agreement" && (header.Dataset == nil || !strings.HasPrefix(header.Dataset.Name, "demo-")) {
			t.Errorf("%q on the demo: data set %+v, want the demo's own", name, header.Dataset)
		}
	}
	for _, name := range []string{"", "gsm8k:", "gsm8k:0", "gsm8k:-3", "gsm8k:2x", "mmlu", "agreement:5", fmt.Sprintf("gsm8k:%d", quality.DemoItems+1)} {
		_, _, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: name, Demo: true})
		var pe *session.ProbeNameError
		if !errors.As(err, &pe) || strings.Contains(pe.Msg, "\n") {
			t.Errorf("%q: %v, want one sentence as a *ProbeNameError", name, err)
		}
	}
}

// A data set file is read instead of the pinned one; one that cannot be
// read says so in one sentence naming it; without it and off the demo, the
// cache folder is asked for only then, and its error is the probe's.
func TestNewQualityProbeDataset(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	file := filepath.Join(dir, "small.jsonl")
	if err := os.WriteFile(file, quality.DemoGSM8K(12), 0o644); err != nil {
		t.Fatal(err)
	}
	asked := false
	_, header, err := session.NewQualityProbe(ctx, session.QualityProbeInput{Name: "gsm8k", Dataset: file,
		DatasetDir: func() (string, error) { asked = true; return dir, nil }})
	if err != nil || header.Probe != "gsm8k:12" || asked {
		t.Fatalf("gsm8k from a file of 12: %v, %+v (cache folder asked: %v)", err, header, asked)
	}
	_, _, err = session.NewQualityProbe(ctx, session.QualityProbeInput{Name: "gsm8k:5", Dataset: filepath.Join(dir, "missing.jsonl")})
	if err == nil || !strings.Contains(err.Error(), "missing.jsonl") || !strings.HasSuffix(err.Error(), "check the path") {
		t.Errorf("a missing data set file: %v", err)
	}
	noHome := errors.New("no home folder to keep the history in")
	_, _, err = session.NewQualityProbe(ctx, session.QualityProbeInput{Name: "gsm8k:5",
		DatasetDir: func() (string, error) { return "", noHome }})
	if !errors.Is(err, noHome) {
		t.Errorf("the cache folder's error: %v, want %v", err, noHome)
	}
	if got := session.QualityDatasetDir(filepath.Join(dir, "history.db")); got != filepath.Join(dir, "datasets") {
		t.Errorf("QualityDatasetDir = %q, want the datasets folder beside the history", got)
	}
}

// The app's target becomes a probe's target by the run's rules: the
// endpoint's address and key, the demo with the Launch flags, the launched
// server (its key, model and dialer), and a launch not started is
// ErrNoServer.
func TestTargetInputQualityTarget(t *testing.T) {
	var int4 vllm.LaunchConfig
	int4.Set("--kv-cache-dtype", "int4_per_token_head")
	got, err := session.TargetInput{Kind: session.Demo, Launch: int4, SimSpeed: "20"}.QualityTarget()
	if err != nil || !got.Demo || strings.Join(got.DemoArgs, " ") != "--kv-cache-dtype int4_per_token_head" {
		t.Errorf("demo: %+v, %v", got, err)
	}
	got, err = session.TargetInput{Kind: session.Endpoint, URL: " http://127.0.0.1:8000 ", APIKey: "k"}.QualityTarget()
	if err != nil || got.Endpoint != "http://127.0.0.1:8000" || got.APIKey != "k" || got.Demo {
		t.Errorf("endpoint: %+v, %v", got, err)
	}
	if _, err := (session.TargetInput{Kind: session.Launch}).QualityTarget(); !errors.Is(err, session.ErrNoServer) {
		t.Errorf("a launch not started: %v, want ErrNoServer", err)
	}
	dialed := false
	srv := &session.Server{Endpoint: "http://10.0.0.2:8000", APIKey: "per-launch", Model: "served",
		Dial: func(context.Context, string, string) (net.Conn, error) { dialed = true; return nil, errors.New("no") }}
	got, err = session.TargetInput{Kind: session.Launch, Server: srv}.QualityTarget()
	if err != nil || got.Endpoint != srv.Endpoint || got.APIKey != srv.APIKey || got.Model != "served" || got.Dial == nil {
		t.Fatalf("launched server: %+v, %v", got, err)
	}
	got.Dial(context.Background(), "tcp", "x")
	if !dialed {
		t.Error("the launched server's dialer is not the probe's")
	}
	var fe *rundoc.FieldError
	if _, err := (session.TargetInput{Kind: session.Endpoint, URL: "http://x", SimSpeed: "5"}).QualityTarget(); !errors.As(err, &fe) || fe.Field != session.FieldSimSpeed {
		t.Errorf("a demo speed on an endpoint: %v, want the field error", err)
	}
}

// FuzzNewQualityProbe: any probe name (the CLI's --probe, the app's items
// field) is a probe with a canonical name or a one-sentence
// *ProbeNameError, never a panic; on the demo nothing is fetched.
func FuzzNewQualityProbe(f *testing.F) {
	for _, s := range []string{"agreement", "gsm8k:200", "gpqa", "mmlupro:0", "gsm8k:99999999999999999999", "gsm8k::1", ":", "gsm8k:+5", "gsm8k: 5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, name string) {
		_, header, err := session.NewQualityProbe(context.Background(), session.QualityProbeInput{Name: name, Demo: true,
			DatasetDir: func() (string, error) { t.Fatalf("%q on the demo asked for the cache folder", name); return "", nil }})
		var pe *session.ProbeNameError
		switch {
		case errors.As(err, &pe):
			if pe.Msg == "" || strings.Contains(pe.Msg, "\n") {
				t.Errorf("%q: message %q", name, pe.Msg)
			}
		case err != nil:
			t.Errorf("%q: %v, want a *ProbeNameError", name, err)
		case header.Probe != "agreement" && (header.Dataset == nil || !strings.HasSuffix(header.Probe, fmt.Sprintf(":%d", header.Dataset.Items))):
			t.Errorf("%q reads as %q", name, header.Probe)
		}
	})
}

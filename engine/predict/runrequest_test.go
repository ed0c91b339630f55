package predict_test

import (
	"context"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
)

// runsHistory is a History of fixed runs.
type runsHistory []*rundoc.Run

func (h runsHistory) RunsOnCard(_ context.Context, _ string, _ bool, _ int, keep func(*rundoc.Run) bool) ([]*rundoc.Run, error) {
	var out []*rundoc.Run
	for _, r := range h {
		if keep == nil || keep(r) {
			out = append(out, r)
		}
	}
	return out, nil
}

func TestRunRequest(t *testing.T) {
	demo := &rundoc.Run{Simulated: true, Server: rundoc.Server{Model: "served-name"},
		Launch: &rundoc.Launch{Model: "served-name", Args: []string{"--max-num-seqs", "16"}}, Plan: rundoc.QuickPlan()}
	req, ok := predict.RunRequest(demo)
	if !ok || !req.Demo || req.Model != "" || req.Profile.Name != sim.DefaultProfile().Name || len(req.Args) != 2 || len(req.Plan.Contexts) != 2 {
		t.Errorf("demo run: %+v, %v; want the default profile's demo with the run's flags and plan", req, ok)
	}
	card := &rundoc.Run{Server: rundoc.Server{Model: "org/m"},
		Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060", VRAMTotalBytes: 12 << 30, MemoryBandwidthGBs: 360}}}}
	req, ok = predict.RunRequest(card)
	if !ok || req.Demo || req.Model != "org/m" || req.Snapshot == nil || req.Snapshot.GPUs[0].Name != "NVIDIA GeForce RTX 3060" {
		t.Errorf("measured run: %+v, %v; want its card and model", req, ok)
	}
	if _, ok := predict.RunRequest(&rundoc.Run{Server: rundoc.Server{Model: "org/m"}}); ok {
		t.Error("a run without hardware gave a request")
	}
}

func TestBeforeRun(t *testing.T) {
	at := time.Date(2026, 12, 4, 12, 0, 0, 0, time.UTC)
	r := &rundoc.Run{UUID: "this", CreatedAt: at}
	h := runsHistory{{UUID: "older", CreatedAt: at.Add(-time.Hour)}, r, {UUID: "newer", CreatedAt: at.Add(time.Hour)}}
	runs, err := predict.BeforeRun(h, r).RunsOnCard(context.Background(), "x", false, 20, nil)
	if err != nil || len(runs) != 1 || runs[0].UUID != "older" {
		t.Errorf("BeforeRun kept %d runs (%v), want only the older one", len(runs), err)
	}
	if predict.BeforeRun(nil, r) != nil {
		t.Error("predict.BeforeRun(nil) is not nil")
	}
}

package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// `predict --demo` prints the memory split, the verdict and the predicted
// matrix, marked predicted; its --json is predict.Predict's own figures
// (one model for every front end).
func TestPredictDemo(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, out, errs := runCLI(t, "predict", "--demo", "--quick", "--db", db)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, errs)
	}
	for _, want := range []string{"PREDICTED: agents/a1-4b-fp8 on NVIDIA GeForce RTX 3060", "KV cache: 431,632 tokens",
		"Fits: the KV cache holds 431,632 tokens", "Predicted decode: total tok/s (simulator profile rtx3060-12gb, ±10%)", "Predicted prefill",
		"16K        2047.0         8004"} {
		if !strings.Contains(out, want) {
			t.Errorf("output lacks %q:\n%s", want, out)
		}
	}
	code, js, errs := runCLI(t, "predict", "--demo", "--quick", "--db", db, "--json")
	if code != 0 {
		t.Fatalf("--json: exit %d: %s", code, errs)
	}
	var doc struct {
		Kind string `json:"kind"`
		predict.Prediction
	}
	if err := json.Unmarshal([]byte(js), &doc); err != nil {
		t.Fatal(err)
	}
	p := sim.DefaultProfile()
	card, cards := predict.ProfileCard(p)
	want, err := predict.Predict(predict.Input{Card: card, Cards: cards, Model: predict.ProfileModel(p), Plan: rundoc.QuickPlan()})
	if err != nil {
		t.Fatal(err)
	}
	if doc.Kind != predictKind || len(doc.Cells) != len(want.Cells) || doc.Memory != want.Memory {
		t.Fatalf("--json kind %q, %d cells, memory %+v; want %d cells, %+v", doc.Kind, len(doc.Cells), doc.Memory, len(want.Cells), want.Memory)
	}
	for i, c := range doc.Cells {
		if c != want.Cells[i] {
			t.Errorf("cell %d: --json %+v, Predict %+v", i, c, want.Cells[i])
		}
	}
}

// A launch that does not fit exits 1 and lists the fixes, first the
// smallest; a model RigBench cannot look up offline says what it needs,
// and its facts given by hand are used.
func TestPredictDoesNotFitAndFacts(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, out, _ := runCLI(t, "predict", "--gpu", "RTX 3060", "--model", "agents/a1-4b-fp8", "--db", db, "--", "--gpu-memory-utilization", "0.65")
	if code != 1 || !strings.Contains(out, "Does not fit: the KV cache holds") || !strings.Contains(out, "Fix: --max-model-len 37888") {
		t.Errorf("exit %d:\n%s", code, out)
	}
	code, _, errs := runCLI(t, "predict", "--gpu", "RTX 4090", "--model", "someone/unknown-7b", "--offline", "--db", db)
	if code == 0 || !strings.Contains(errs, "config.json") {
		t.Errorf("unknown model offline: exit %d, %s", code, errs)
	}
	code, out, errs = runCLI(t, "predict", "--gpu", "RTX 4090", "--model", "someone/unknown-7b", "--offline", "--db", db,
		"--weights-gib", "13.5", "--kv-bytes", "131072", "--max-len", "32768", "--quick")
	if code != 0 || !strings.Contains(out, "13.50 GiB") || !strings.Contains(out, "generic (no run on this card yet), ±40%") {
		t.Errorf("facts by hand: exit %d\n%s\n%s", code, out, errs)
	}
	if code, _, errs = runCLI(t, "predict", "--gpu", "RTX 9999", "--model", "x/y"); code != 2 || !strings.Contains(errs, "does not know the card") {
		t.Errorf("unknown card: exit %d, %s", code, errs)
	}
	if code, out, _ = runCLI(t, "predict", "--list-cards"); code != 0 || !strings.Contains(out, "NVIDIA GeForce RTX 4090") {
		t.Errorf("--list-cards: exit %d\n%s", code, out)
	}
}

// A demo run in the history teaches the demo's prediction: it says it
// learned from one run.
func TestPredictLearnsFromTheHistory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, runOut, errs := runCLI(t, "run", "--demo", "--sim-speed", "20", "--contexts", "0,16K", "--concurrency", "1,4", "--prefill", "8K",
		"--duration", "10s", "--db", db, "--no-telemetry")
	if code != 0 {
		t.Fatalf("run: exit %d: %s", code, errs)
	}
	if !strings.Contains(runOut, "Predicted before the run (simulator profile rtx3060-12gb, ±10%): decode within") {
		t.Errorf("run does not say how close the prediction came:\n%s", runOut)
	}
	code, out, errs := runCLI(t, "predict", "--demo", "--quick", "--db", db)
	if code != 0 || !strings.Contains(out, "learned from 1 run on this card") {
		t.Errorf("exit %d:\n%s\n%s", code, out, errs)
	}
	code, out, _ = runCLI(t, "predict", "--demo", "--quick", "--db", db, "--no-learn")
	if code != 0 || strings.Contains(out, "learned from") {
		t.Errorf("--no-learn: exit %d:\n%s", code, out)
	}
}

// --json of a launch that does not fit still writes the prediction, and
// exits 1 as the text does; an ambiguous --gpu lists the candidates.
func TestPredictJSONDoesNotFitAndAmbiguousCard(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, js, _ := runCLI(t, "predict", "--gpu", "RTX 3060", "--model", "meta-llama/Llama-3.1-8B-Instruct", "--db", db, "--json")
	var doc predictDoc
	if code != 1 || json.Unmarshal([]byte(js), &doc) != nil || doc.Fits || len(doc.Fixes) == 0 || doc.Kind != predictKind {
		t.Errorf("exit %d:\n%s", code, js)
	}
	if code, _, errs := runCLI(t, "predict", "--gpu", "H100", "--model", "x/y", "--db", db); code != 2 || !strings.Contains(errs, "H100 PCIe") {
		t.Errorf("--gpu H100: exit %d, %s", code, errs)
	}
}

package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware/probe"
	"github.com/rigbench/rigbench/internal/termtext"
	"github.com/rigbench/rigbench/store"
)

func init() {
	register(&command{
		name:  "predict",
		usage: "predict --model ID [--gpu NAME [--gpus N] | --rig NAME | --demo [--sim-profile NAME]] [plan flags] [--json] [-- VLLM FLAGS]",
		summary: "Predict, before anything is downloaded or launched, whether a model fits the card and how fast each cell of the matrix " +
			"would run, learning from your runs on the card.",
		run: runPredict,
	})
}

// predictDoc is `predict --json`'s document: its own kind, so a
// prediction is never read as a run.
type predictDoc struct {
	Kind string `json:"kind"`
	*predict.Prediction
}

// predictKind names predictDoc's format.
const predictKind = "rigbench.prediction/v1"

func runPredict(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("predict", e)
	model := fs.String("model", "", "the Hugging Face id of the model (default with --demo: the profile's)")
	gpu := fs.String("gpu", "", "predict for this card instead of the detected one (\"RTX 4090\"; --list-cards lists them): what if I bought …")
	gpus := fs.Int("gpus", 0, "how many of the card the rig has (default: the detected count, else 1)")
	nvlink := fs.Bool("nvlink", false, "the cards are joined by NVLink (default PCIe)")
	rigName := fs.String("rig", "", rigUsage+"; its card is read with nvidia-smi in a short-lived container")
	demo := fs.Bool("demo", false, "predict for the demo's simulated card, learning from demo runs")
	simProfile := fs.String("sim-profile", "", "with --demo, the simulator profile: "+strings.Join(sim.ProfileNames(), ", ")+", or a card RigBench knows")
	weights := fs.String("weights-gib", "", "the model's weights in `GiB`, for a model RigBench cannot look up")
	kvBytes := fs.String("kv-bytes", "", "one token's KV cache in `BYTES` at 16 bits, for a model RigBench cannot look up")
	maxLen := fs.String("max-len", "", "the model's max_position_embeddings in `TOKENS`, for a model RigBench cannot look up")
	params := fs.String("params", "", "the parameters a token passes through, in `BILLIONS`, for a model RigBench cannot look up")
	offline := fs.Bool("offline", false, "do not ask the Hugging Face Hub for the model's facts; use the Hugging Face cache and RigBench's")
	noLearn := fs.Bool("no-learn", false, "predict from the data sheet and the simulator profiles only, not from your runs on the card")
	quick := fs.Bool("quick", false, "predict the quick plan ("+quickText(rundoc.FieldContexts)+" × "+quickText(rundoc.FieldConcurrency)+") instead of the full matrix")
	asJSON := fs.Bool("json", false, "print the prediction as JSON ("+predictKind+")")
	listCards := fs.Bool("list-cards", false, "list the cards RigBench knows and exit")
	var hist historyFlags
	hist.register(fs)
	registerPlan(fs, map[rundoc.Field]string{
		rundoc.FieldContexts:    "decode contexts in tokens, e.g. 0,16K,max",
		rundoc.FieldConcurrency: "concurrency levels",
		rundoc.FieldPrefill:     "prefill contexts in tokens, or none",
		rundoc.FieldMaxOutput:   "max_tokens of every decode request, in `TOKENS`",
		rundoc.FieldWindow:      "the window each decode cell would be measured over (the context grows during it)",
	})
	set, vllmArgs, err := parseSet(fs, args)
	if err != nil || set == nil {
		return err
	}
	if *listCards {
		return printCards(e.stdout)
	}
	req := predict.Request{Demo: *demo, GPU: *gpu, Cards: *gpus, NVLink: *nvlink, Model: *model, Args: vllmArgs}
	if *gpus < 0 {
		return usagef("--gpus: %d is not a number of cards", *gpus)
	}
	switch {
	case *demo:
		if *gpu != "" || *rigName != "" {
			return usagef("--demo predicts for the simulated card: leave out --gpu and --rig")
		}
		if req.Profile, err = session.SimProfile(*simProfile, *model); err != nil {
			return usagef("--sim-profile: %v", err)
		}
		if req.Model == "" {
			req.Model = req.Profile.Model
		}
	case *gpu != "":
		if _, err := predict.FindCard(*gpu); err != nil {
			return usagef("--gpu: %v", err)
		}
	default:
		snap, err := hwSnapshot(ctx, e, *rigName, vllm.DefaultImage+":"+vllm.DefaultTag, false, probe.DefaultTimeout)
		if err != nil {
			return err
		}
		req.Snapshot = &snap
	}
	if _, _, err := req.Card(); err != nil {
		var nc *predict.ErrNoCard
		if errors.As(err, &nc) {
			return fmt.Errorf("no card to predict for (%s): name one with --gpu, such as --gpu \"RTX 3060\" (--list-cards lists them), or use --demo", nc.Why)
		}
		return err
	}
	if req.Model == "" {
		return usagef("name the model with --model (a Hugging Face id such as meta-llama/Llama-3.1-8B-Instruct)")
	}
	histPath, err := store.ResolvePath(hist.db, e.getenv)
	if err != nil {
		return err
	}
	m, err := modelFacts(ctx, e, req.Model, filepath.Join(filepath.Dir(histPath), "models"), *offline, *weights, *kvBytes, *maxLen, *params)
	if err != nil {
		return err
	}
	req.Facts = &m
	plan := rundoc.DefaultPlan()
	if *quick {
		plan = rundoc.QuickPlan()
	}
	pin := plan.Input()
	for _, field := range rundoc.PlanFields {
		if set[string(field)] {
			pin.Set(field, fs.Lookup(string(field)).Value.String())
		}
	}
	if req.Plan, err = pin.Plan(); err != nil {
		return flagError(err)
	}
	if !*noLearn {
		if _, statErr := os.Stat(histPath); statErr == nil {
			if db, err := store.OpenForReading(ctx, histPath); err == nil {
				defer db.Close()
				req.History = db
			}
		}
	}
	pr, err := req.Do(ctx)
	if err != nil {
		return err
	}
	simulated := *demo
	if *asJSON {
		enc := json.NewEncoder(e.stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(predictDoc{Kind: predictKind, Prediction: pr}); err != nil || pr.Fits {
			return err
		}
		return exitError{code: 1} // the JSON says why
	}
	printPrediction(e.stdout, pr, simulated)
	if !pr.Fits {
		return exitError{code: 1}
	}
	return nil
}

// modelFacts are the model's facts: looked up (the simulator's models, the
// Hugging Face cache, RigBench's cache, the Hub), with the values given by
// hand replacing or standing in for them.
func modelFacts(ctx context.Context, e *env, id, cacheDir string, offline bool, weights, kv, maxLen, params string) (predict.Model, error) {
	manual := weights != "" || kv != "" || maxLen != "" || params != ""
	lookup := predict.Lookup{CacheDir: cacheDir, Getenv: e.getenv, Offline: offline}
	m, err := lookup.Model(ctx, id)
	if err != nil && !(manual && weights != "" && kv != "" && maxLen != "") {
		if manual {
			return m, fmt.Errorf("%v (by hand, give all of --weights-gib, --kv-bytes and --max-len)", err)
		}
		return m, err
	}
	if err != nil {
		m = predict.Model{ID: id, Source: "given by hand"}
	}
	for _, f := range []struct {
		flag, text string
		set        func(float64)
	}{
		{"--weights-gib", weights, func(v float64) { m.WeightsGiB = v }},
		{"--kv-bytes", kv, func(v float64) { m.KVBytesPerToken = v }},
		{"--max-len", maxLen, func(v float64) { m.MaxLen = int(v) }},
		{"--params", params, func(v float64) { m.Params = v * 1e9 }},
	} {
		if f.text == "" {
			continue
		}
		v, perr := strconv.ParseFloat(f.text, 64)
		if perr != nil || !(v > 0) || v > 1e7 {
			return m, usagef("%s: %q is not a positive number", f.flag, f.text)
		}
		f.set(v)
	}
	if m.Params == 0 {
		m.Params = m.WeightsGiB * vllm.GiB / 2 // 16-bit weights
	}
	return m, nil
}

// printCards lists the known cards.
func printCards(w io.Writer) error {
	fmt.Fprintf(w, "%-34s %9s %10s %8s\n", "card", "memory", "bandwidth", "TFLOPS")
	for _, c := range predict.Cards() {
		fmt.Fprintf(w, "%-34s %5.1f GiB %5.0f GB/s %8.0f\n", c.Name, c.MemoryGiB, c.BandwidthGBs, c.TFLOPS)
	}
	return nil
}

// printPrediction prints the memory split, the verdict and its fixes, and
// the predicted matrix, every figure marked predicted.
func printPrediction(w io.Writer, pr *predict.Prediction, simulated bool) {
	cards := ""
	if pr.Cards > 1 {
		cards = fmt.Sprintf("%d× ", pr.Cards)
	}
	fmt.Fprintf(w, "PREDICTED: %s on %s%s (%.1f GiB, %.0f GB/s; %s)\n", termtext.Safe(pr.Model.ID), cards, termtext.Safe(pr.Card.Name),
		pr.Card.MemoryGiB, pr.Card.BandwidthGBs, pr.Card.Source)
	if simulated {
		fmt.Fprintln(w, "for the demo's simulated card, learning from demo runs")
	}
	s := pr.Settings
	fmt.Fprintf(w, "\nMemory: gpu-memory-utilization %.2f of %.1f GiB = %.2f GiB for vLLM\n", s.Utilization, pr.Memory.TotalGiB, pr.Memory.UsableGiB)
	for _, p := range pr.Parts() {
		fmt.Fprintf(w, "  %-30s %6.2f GiB\n", p.Name, p.GiB)
	}
	if pr.Memory.KVTokens > 0 {
		fmt.Fprintf(w, "  KV cache: %s at %s bytes per token (%s)\n", rundoc.TokensText(pr.Memory.KVTokens),
			rundoc.GroupDigits(int(pr.Memory.KVBytesPerToken)), s.KVCacheDtype)
	}
	fmt.Fprintln(w, "\n"+termtext.Safe(pr.Verdict()))
	if !pr.Fits {
		if len(pr.Fixes) == 0 {
			fmt.Fprintln(w, "No flag change RigBench knows makes it fit.")
		}
		for i, f := range pr.Fixes {
			lead := "  or "
			if i == 0 {
				lead = "Fix: "
			}
			fmt.Fprintln(w, lead+predict.FixText(f))
		}
		return
	}
	fmt.Fprintf(w, "\nPredicted decode: total tok/s (%s)\n", pr.Basis())
	doc := &rundoc.Run{}
	for _, c := range pr.Cells {
		if c.Phase == rundoc.PhaseDecode {
			doc.Cells = append(doc.Cells, c.Doc())
		}
	}
	contexts, conc := doc.DecodeAxes()
	printMatrix(w, doc, contexts, conc)
	first := true
	for _, c := range pr.Cells {
		if c.Phase != rundoc.PhasePrefill {
			continue
		}
		if first {
			fmt.Fprintf(w, "\nPredicted prefill\n%-10s %-14s %s\n", "context", rundoc.FigPromptTokS.Label, rundoc.FigTTFT.Label)
			first = false
		}
		d := c.Doc()
		if c.Status != predict.StatusRuns {
			fmt.Fprintf(w, "%-10s %s\n", rundoc.ContextLabel(c.Context), c.Status)
			continue
		}
		fmt.Fprintf(w, "%-10s %-14s %s\n", rundoc.ContextLabel(c.Context), rundoc.FigPromptTokS.Text(&d), rundoc.FigTTFT.Text(&d))
	}
}

package main

import (
	"errors"
	"flag"
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

// launchFlags are the flags of `run --launch`: which image to start, on
// which GPUs, with which Hugging Face cache; vLLM flags follow `--`.
type launchFlags struct {
	enabled bool
	image   string
	gpus    string
	hfCache string
	noGPU   bool
}

func (l *launchFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&l.enabled, "launch", false, "start vLLM in Docker for the run (model from --model, vLLM flags after --) and stop it afterwards")
	fs.StringVar(&l.image, "image", "vllm/vllm-openai:latest", "image to launch with --launch")
	fs.StringVar(&l.gpus, "gpus", "all", "GPUs for --launch: all, or indices such as 0,1")
	fs.StringVar(&l.hfCache, "hf-cache", "~/.cache/huggingface", "Hugging Face cache folder mounted with --launch")
	fs.BoolVar(&l.noGPU, "no-gpu", false, "with --launch, request no GPU (for images such as RigBench's simulator)")
}

// launcher builds the session's Docker launcher from the flags.
func (l *launchFlags) launcher(e *env, model string, vllmArgs []string) (*session.DockerLauncher, error) {
	if model == "" {
		return nil, usagef("--launch needs --model with the Hugging Face id to serve")
	}
	line := "vllm serve " + vllm.Quote(model) + " " + strings.Join(quoteAll(vllmArgs), " ")
	cfg, err := vllm.ParseCommand(line)
	if err != nil {
		return nil, fmt.Errorf("the vLLM flags after -- are not valid: %w", err)
	}
	var image, tag string
	if i := strings.LastIndexByte(l.image, ':'); i > strings.LastIndexByte(l.image, '/') {
		image, tag = l.image[:i], l.image[i+1:]
	} else {
		image, tag = l.image, "latest"
	}
	cfg.Image, cfg.Tag, cfg.GPUs, cfg.HFCache = image, tag, l.gpus, l.hfCache
	cfg.TokenSource = vllm.TokenEnv
	if errs := vllm.Errors(cfg.Validate()); len(errs) > 0 {
		msgs := make([]string, len(errs))
		for i, fe := range errs {
			msgs[i] = fe.Error()
		}
		return nil, errors.New(strings.Join(msgs, "; "))
	}
	var opts []docker.Option
	if l.noGPU {
		opts = append(opts, docker.WithoutGPU())
	}
	opts = append(opts, docker.WithGetenv(e.getenv))
	lastPct := -1
	return &session.DockerLauncher{Config: cfg, Options: opts, Pull: func(p docker.PullProgress) {
		if p.BytesTotal > 0 {
			pct := int(100 * p.Bytes / p.BytesTotal)
			if pct/10 != lastPct/10 {
				lastPct = pct
				fmt.Fprintf(e.stderr, "pulling %s: %d%% (%d/%d layers)\n", p.Ref, pct, p.LayersDone, p.Layers)
			}
		}
	}}, nil
}

func quoteAll(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = vllm.Quote(a)
	}
	return out
}

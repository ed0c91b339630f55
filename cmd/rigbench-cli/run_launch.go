package main

import (
	"flag"

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
	// compileCache is --compile-cache (launchOptions.compileCache).
	compileCache string
	noGPU        bool
	rig          string
}

func (l *launchFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&l.enabled, "launch", false, "start vLLM in Docker for the run (model from --model, vLLM flags after --) and stop it afterwards")
	fs.StringVar(&l.image, "image", vllm.DefaultImage+":"+vllm.DefaultTag, "image to launch with --launch")
	fs.StringVar(&l.gpus, "gpus", "all", "GPUs for --launch: all, or indices such as 0,1")
	fs.StringVar(&l.hfCache, "hf-cache", vllm.DefaultHFCache, "Hugging Face cache folder mounted with --launch")
	fs.StringVar(&l.compileCache, "compile-cache", "", "with --launch, "+compileCacheUsage)
	fs.StringVar(&l.rig, "rig", "", rigUsage+"; with --launch")
	fs.BoolVar(&l.noGPU, "no-gpu", false, "with --launch, request no GPU (for images such as RigBench's simulator)")
}

// launcher builds the session's Docker launcher from the flags, through
// the same configuration and options as `launch` (a run's server is not
// kept: it stops with the run).
func (l *launchFlags) launcher(e *env, model string, vllmArgs []string) (*session.DockerLauncher, error) {
	if model == "" {
		return nil, usagef("--launch needs --model with the Hugging Face id to serve")
	}
	o := launchOptions{model: model, image: l.image, gpus: l.gpus, hfCache: l.hfCache, compileCache: l.compileCache, noGPU: l.noGPU, rig: l.rig}
	cfg, err := o.config(e, vllmArgs)
	if err != nil {
		return nil, err
	}
	return o.launcher(e, cfg), nil
}

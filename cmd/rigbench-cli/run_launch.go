package main

import (
	"flag"

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
	// cluster is --rigs, --interface, --node-ips, --ray-port and
	// --serve-port: one server over several rigs.
	cluster clusterFlags
	// history is the command's --db (launchOptions.history).
	history string
}

func (l *launchFlags) register(fs *flag.FlagSet) {
	fs.BoolVar(&l.enabled, "launch", false, "start vLLM in Docker for the run (model from --model, vLLM flags after --) and stop it afterwards")
	fs.StringVar(&l.image, "image", vllm.DefaultImage+":"+vllm.DefaultTag, "image to launch with --launch")
	fs.StringVar(&l.gpus, "gpus", "all", "GPUs for --launch: all, or indices such as 0,1")
	fs.StringVar(&l.hfCache, "hf-cache", vllm.DefaultHFCache, "Hugging Face cache folder mounted with --launch")
	fs.StringVar(&l.compileCache, "compile-cache", "", "with --launch, "+compileCacheUsage)
	fs.StringVar(&l.rig, "rig", "", rigUsage+"; with --launch")
	fs.BoolVar(&l.noGPU, "no-gpu", false, "with --launch, request no GPU (for images such as RigBench's simulator)")
	l.cluster.register(fs, "with --launch, ")
}

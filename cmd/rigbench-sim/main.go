// Command rigbench-sim is RigBench's simulated vLLM server as a static,
// dependency-free binary (CGO_ENABLED=0), so it can be the entrypoint of a
// FROM-scratch container image. It takes vLLM's flags (--model,
// --max-model-len, --gpu-memory-utilization, --port, …) plus --profile,
// --speed, --seed, --startup-delay and the --fault-* flags, prints vLLM-like
// logs to stdout, and exits like vLLM: 2 for a bad command line, 1 when the
// engine fails to start or dies, 0 after SIGTERM. With VLLM_CACHE_ROOT set
// (the image sets it) it imitates vLLM's start-up time and compile cache. Run as nvidia-smi (the
// simulator image links it so) it answers GPU queries from its profile.
package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"

	"github.com/rigbench/rigbench/engine/sim"
)

func main() {
	// Linked as nvidia-smi in the simulator image, the binary is the
	// stand-in nvidia-smi that hardware detection on a rig runs; copied as
	// nvidia-smi.exe, the one Windows detection runs (scripts/windows-e2e.sh).
	switch strings.TrimSuffix(filepath.Base(os.Args[0]), ".exe") {
	case sim.NvidiaSMIName:
		os.Exit(sim.NvidiaSMI(os.Args[1:], os.Getenv, os.Stdout, os.Stderr))
	case sim.RayName:
		// Linked as ray, the stand-in Ray a cluster launch starts on every
		// rig (engine/sim/ray_*.go).
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		code := sim.Ray(ctx, os.Args[1:], os.Getenv, os.Stdout, os.Stderr)
		stop()
		os.Exit(code)
	}
	// Linked as vllm, `vllm serve …` (ParseArgs drops "serve").
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	cfg, err := sim.ParseArgs(args)
	if err != nil {
		fmt.Fprintln(os.Stderr, "usage: api_server.py [-h] [--model MODEL] [--max-model-len MAX_MODEL_LEN] [--port PORT] ...")
		fmt.Fprintln(os.Stderr, err)
		return 2
	}
	// vLLM's own variable: the simulator image sets it to /root/.cache/vllm,
	// where a launch mounts the compile cache folder.
	cfg.CompileCache = os.Getenv("VLLM_CACHE_ROOT")
	// A "ray" backend claims its GPUs from the node's stand-in Ray head.
	cfg.RayAddress = sim.RayAddressFrom(os.Getenv)
	// The node's simulated link, which its stand-in `ray linktest` measures.
	cfg.Network = sim.NetworkFromEnv(os.Getenv, cfg.Network)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err = sim.Serve(ctx, cfg, os.Stdout, nil)
	var se *sim.StartupError
	switch {
	case err == nil:
		return 0
	case errors.Is(err, sim.ErrEngineDied), errors.As(err, &se):
		return 1 // already logged in vLLM's words
	default:
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
}

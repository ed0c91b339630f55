package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/url"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/termtext"
	"github.com/rigbench/rigbench/store"
)

func init() {
	register(&command{
		name: "launch",
		usage: "launch --model ID [--rig NAME|ssh://user@host | --rigs head=ssh://a,ssh://b [--interface IF] [--node-ips IP,IP]] [--image vllm/vllm-openai:TAG] " +
			"[--gpus all|0,1] [--port N] [--hf-cache DIR] [--compile-cache DIR|off] [--no-gpu] [--print-docker] [--keep] [--timeout D] -- <vllm flags…>",
		summary: "Start vLLM in Docker, wait until it serves the model, print its endpoint, stop it on Ctrl-C.",
		run:     runLaunch,
		cleanup: "stopping and removing the server container",
	})
}

// launchOptions are the flags of `launch`.
type launchOptions struct {
	model, image, gpus, hfCache string
	// compileCache is --compile-cache: "" for store.CompileCacheDir,
	// "off" for none, else the folder.
	compileCache string
	// history is the --db the command was given ("" for the default
	// history): the default compile cache sits beside the history in use,
	// so a run with --db elsewhere leaves the default data folder alone.
	history                  string
	rig                      string
	cluster                  clusterFlags
	port                     int
	noGPU, printDocker, keep bool
	timeout                  time.Duration
}

func (o *launchOptions) register(fs *flag.FlagSet) {
	fs.StringVar(&o.model, "model", "", "Hugging Face id of the model to serve (required)")
	fs.StringVar(&o.rig, "rig", "", rigUsage)
	fs.StringVar(&o.image, "image", vllm.DefaultImage+":"+vllm.DefaultTag, "vLLM image and tag")
	fs.StringVar(&o.gpus, "gpus", "all", "GPUs for the container: all, or indices such as 0,1")
	fs.IntVar(&o.port, "port", 0, "host port on 127.0.0.1 (default: a free one)")
	fs.StringVar(&o.hfCache, "hf-cache", vllm.DefaultHFCache, "Hugging Face cache folder to mount (keeps downloaded weights)")
	fs.StringVar(&o.compileCache, "compile-cache", "", compileCacheUsage)
	fs.BoolVar(&o.noGPU, "no-gpu", false, "request no GPU (for images such as RigBench's simulator)")
	fs.BoolVar(&o.printDocker, "print-docker", false, "only print the docker run command line")
	fs.BoolVar(&o.keep, "keep", false, "leave the server running and exit once it is ready")
	fs.DurationVar(&o.timeout, "timeout", docker.DefaultReadyTimeout, "how long to wait for the server (first downloads are slow)")
	o.cluster.register(fs, "")
}

func runLaunch(ctx context.Context, e *env, args []string) error {
	fs := newFlagSet("launch", e)
	var o launchOptions
	o.register(fs)
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return nil
		}
		return exitError{code: 2} // newFlagSet said what was wrong
	}
	cfg, err := o.config(e, fs.Args())
	if err != nil {
		return err
	}
	// The target is read by session.TargetInput, as run --launch's is.
	in := session.TargetInput{Kind: session.Launch, Launch: cfg, Rig: o.rig, Cluster: o.cluster.input()}
	if in.Cluster.Rigs != "" && o.port > 0 {
		in.Cluster.ServePort = o.port
	}
	target, err := in.Options(o.launching(e))
	if err != nil {
		return usagef("%v", flagError(err))
	}
	if cl, ok := target.Launcher.(*session.ClusterLauncher); ok {
		if o.printDocker || o.keep {
			return usagef("--print-docker and --keep are for one rig; a cluster's lines depend on each rig's GPUs, and the launch prints them")
		}
		return serveUntilStopped(ctx, e, cl)
	}
	if o.printDocker {
		if cfg.Port == 0 {
			cfg.Port = vllm.ContainerPort // what a person running it by hand would use
		}
		fmt.Fprintln(e.stdout, cfg.DockerCommand(true))
		return nil
	}
	return launchAndWait(ctx, e, o, target.Launcher.(*session.DockerLauncher))
}

// config builds the launch config from the flags and the vLLM arguments
// after "--", printing validation warnings and refusing on errors.
func (o launchOptions) config(e *env, vllmArgs []string) (vllm.LaunchConfig, error) {
	cfg, err := vllm.ParseArgs(vllmArgs)
	if err != nil {
		return cfg, fmt.Errorf("the vLLM flags after -- are not valid: %w", err)
	}
	if o.model != "" {
		cfg.Model = o.model
	}
	if cfg.Model == "" {
		return cfg, usagef("--model needs the Hugging Face id of the model to serve")
	}
	if cfg.Image, cfg.Tag, err = vllm.SplitImageRef(o.image); err != nil {
		return cfg, err
	}
	cfg.GPUs, cfg.Port, cfg.HFCache = o.gpus, o.port, o.hfCache
	if cfg.CompileCache, err = compileCacheFolder(e, o.compileCache, o.rig, o.history); err != nil {
		return cfg, err
	}
	if o.noGPU {
		cfg.GPUs = ""
	}
	if e.getenv("HF_TOKEN") != "" || e.getenv("HUGGING_FACE_HUB_TOKEN") != "" {
		cfg.TokenSource = vllm.TokenEnv
	}
	var errs []string
	for _, fe := range cfg.Validate() {
		if fe.Severity == vllm.SeverityWarning {
			fmt.Fprintln(e.stderr, "warning:", fe.Message)
		} else {
			errs = append(errs, fe.Message)
		}
	}
	if len(errs) > 0 {
		return cfg, errors.New(strings.Join(errs, " "))
	}
	return cfg, nil
}

// compileCacheUsage is the help of --compile-cache on launch, run and tune.
const compileCacheUsage = "folder mounted as vLLM's compile cache (/root/.cache/vllm), so later starts of the same configuration " +
	"skip most of torch.compile; off: none (default: compile-cache beside the history in use; on an SSH rig " + session.RigCompileCache + " there)"

// compileCacheFolder reads --compile-cache: "off" mounts none, "" the
// default folder (session.DefaultCompileCache: beside the history in use on
// this machine, in the rig user's home on an SSH rig), anything else that
// folder. A default that cannot be placed (no HOME) mounts none, said on
// stderr: the cache only saves time, so it never stops a launch.
func compileCacheFolder(e *env, flag, rigName, history string) (string, error) {
	switch flag {
	case "off":
		return "", nil
	case "":
		here, err := store.CompileCacheDir(e.getenv)
		if history == "" {
			history = e.getenv(store.EnvDB)
		}
		if history != "" {
			// Beside the history in use, not beside the default one
			// (issue 36 item 10: --db elsewhere still made the default
			// data folder).
			here, err = filepath.Join(filepath.Dir(history), "compile-cache"), nil
		}
		d := session.DefaultCompileCache(rigName, rig.Options{Getenv: e.getenv}, here)
		if d == "" {
			fmt.Fprintf(e.stderr, "no compile cache (%v): pass --compile-cache DIR to keep one\n", err)
		}
		return d, nil
	}
	return flag, nil
}

// launchAndWait starts the server, prints where it listens, and stops it on
// Ctrl-C (or leaves it running with --keep).
func launchAndWait(ctx context.Context, e *env, o launchOptions, l *session.DockerLauncher) error {
	closeRig, err := withRig(ctx, e, o.rig, l)
	if err != nil {
		return err
	}
	defer closeRig()
	if o.keep {
		srv, err := l.Launch(ctx, logPrinter(e.stderr))
		if err != nil {
			return err
		}
		printServer(e.stdout, srv)
		printRemote(e, srv)
		fmt.Fprintf(e.stdout, "kept running as %s; stop it with: docker rm -f %s\n", srv.Container, srv.Container)
		return nil
	}
	return serveUntilStopped(ctx, e, l)
}

// serveUntilStopped starts the server l launches, prints where it listens,
// and stops it on Ctrl-C or when it ends on its own: one rig's or a
// cluster's alike.
func serveUntilStopped(ctx context.Context, e *env, l session.Launcher) error {
	srv, err := l.Launch(ctx, logPrinter(e.stderr))
	if err != nil {
		return err
	}
	printServer(e.stdout, srv)
	printRemote(e, srv)
	fmt.Fprintln(e.stderr, "serving; press Ctrl-C to stop")
	select {
	case <-ctx.Done():
		return srv.Stop(context.WithoutCancel(ctx))
	case <-srv.Exited:
		srv.Stop(context.WithoutCancel(ctx))
		if srv.ExitReport != nil {
			return fmt.Errorf("the server stopped on its own (%s): read its last log lines above", srv.ExitReport())
		}
		return errors.New("the server stopped on its own: read its last log lines above")
	}
}

// printRemote says, for a server on a remote rig, that its endpoint is the
// rig's loopback.
func printRemote(e *env, srv *session.Server) {
	if srv.Dial != nil {
		// The endpoint is the rig's loopback: this machine reaches it only
		// through a tunnel of its own.
		how := "run --rig --launch"
		if srv.Record != nil && srv.Record.Cluster != nil {
			how = "run --launch --rigs" // a cluster's server is on its head rig
		}
		fmt.Fprintf(e.stdout, "on the rig: %s is the rig's loopback; reach it from here with ssh -L %s:127.0.0.1:%s …, or benchmark it with %s\n",
			srv.Endpoint, portOf(srv.Endpoint), portOf(srv.Endpoint), how)
	}
}

// portOf is the port of an endpoint URL ("8000" of http://127.0.0.1:8000).
func portOf(endpoint string) string {
	if u, err := url.Parse(endpoint); err == nil {
		return u.Port()
	}
	return ""
}

func printServer(w io.Writer, s *session.Server) {
	fmt.Fprintf(w, "endpoint: %s\n", s.Endpoint)
	fmt.Fprintf(w, "api key:  %s\n", s.APIKey)
	fmt.Fprintf(w, "model:    %s\n", termtext.Safe(s.Model))
	if s.Version != "" {
		fmt.Fprintf(w, "version:  %s\n", termtext.Safe(s.Version))
	}
	if s.KVCapacity > 0 {
		fmt.Fprintf(w, "KV cache: %s\n", rundoc.TokensText(s.KVCapacity))
	}
	if s.Record != nil && s.Record.Startup != nil {
		fmt.Fprintf(w, "start-up: %s\n", s.Record.Startup.Text())
	}
}

// logPrinter prints container and session log lines on w. A line a
// progress bar rewrote with carriage returns shows what a terminal would
// have left on screen, its last part; control characters are escaped, since
// the text comes from the container.
func logPrinter(w io.Writer) func(string) {
	return func(line string) {
		line = strings.TrimRight(line, "\r")
		if i := strings.LastIndexByte(line, '\r'); i >= 0 {
			line = line[i+1:]
		}
		fmt.Fprintln(w, termtext.Safe(line))
	}
}

// pullPrinter prints pull progress at every 10% so a log stays short.
func pullPrinter(w io.Writer) func(docker.PullProgress) {
	last := -10
	return func(p docker.PullProgress) {
		if p.BytesTotal == 0 {
			return
		}
		pct := int(100 * p.Bytes / p.BytesTotal)
		if pct >= last+10 || p.Layers > 0 && p.LayersDone == p.Layers {
			last = pct
			fmt.Fprintf(w, "pulling %s: %d%% (%d of %d layers)\n", p.Ref, pct, p.LayersDone, p.Layers)
		}
	}
}

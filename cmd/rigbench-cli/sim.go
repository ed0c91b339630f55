package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/sim"
)

func init() {
	register(&command{
		name:    "sim",
		usage:   "sim [--addr 127.0.0.1:8000] [--profile NAME] [--speed S] [vLLM flags…]",
		summary: "Serve the simulated vLLM server (demo mode, tests) until Ctrl-C.",
		run:     runSim,
	})
}

// runSim serves engine/sim. --addr is the CLI's own flag (loopback by
// default, unlike vLLM's 0.0.0.0); an explicit --host or --port wins over it.
func runSim(ctx context.Context, e *env, args []string) error {
	addr := "127.0.0.1:8000"
	var rest []string
	explicitHostPort := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-h" || a == "--help":
			printSimHelp(e)
			return nil
		case a == "--addr":
			if i+1 >= len(args) {
				return usagef("--addr needs a value such as 127.0.0.1:8000")
			}
			i++
			addr = args[i]
		case strings.HasPrefix(a, "--addr="):
			addr = strings.TrimPrefix(a, "--addr=")
		default:
			if a == "--host" || a == "--port" || strings.HasPrefix(a, "--host=") || strings.HasPrefix(a, "--port=") {
				explicitHostPort = true
			}
			rest = append(rest, a)
		}
	}
	cfg, err := sim.ParseArgs(rest)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	if !explicitHostPort {
		host, port, err := net.SplitHostPort(addr)
		n, perr := strconv.Atoi(port)
		if err != nil || perr != nil || n < 0 || n > 65535 {
			return usagef("--addr %q is not host:port; use e.g. 127.0.0.1:8000", addr)
		}
		cfg.Host, cfg.Port = host, n
	}
	err = sim.Serve(ctx, cfg, e.stdout, nil)
	var se *sim.StartupError
	if errors.As(err, &se) || errors.Is(err, sim.ErrEngineDied) {
		return exitError{code: 1} // already logged in vLLM's words
	}
	return err
}

// printSimHelp lists every flag the simulator acts on, read from the
// table that parses them (sim.FlagNames), so a flag added there is listed.
func printSimHelp(e *env) {
	fmt.Fprintln(e.stdout, "usage: rigbench-cli "+synopsis("sim"))
	fmt.Fprintln(e.stdout, commands["sim"].summary)
	fmt.Fprintln(e.stdout, "\nprofiles:", strings.Join(sim.ProfileNames(), ", "))
	var ps []string
	for _, p := range sim.Personalities() {
		ps = append(ps, string(p))
	}
	fmt.Fprintln(e.stdout, "personalities (--personality):", strings.Join(ps, ", "), "(llama-server sizes with --ctx-size, --parallel, --kv-unified)")
	fmt.Fprintln(e.stdout, "\nflags it acts on (other vLLM flags are accepted and ignored):")
	fmt.Fprintln(e.stdout, "  --addr HOST:PORT (default 127.0.0.1:8000)")
	var line string
	for _, n := range sim.FlagNames() {
		if len(line)+len(n)+1 > 76 {
			fmt.Fprintln(e.stdout, "  "+strings.TrimSpace(line))
			line = ""
		}
		line += " " + n
	}
	if line != "" {
		fmt.Fprintln(e.stdout, "  "+strings.TrimSpace(line))
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/predict"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
)

func init() {
	register(&command{
		name:    "sim",
		usage:   "sim [--addr 127.0.0.1:8000] [--profile NAME|CARD] [--speed S] [vLLM flags…]",
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
	rest, card := cardProfile(rest)
	cfg, err := sim.ParseArgs(rest)
	if err != nil {
		return exitError{code: 2, err: err}
	}
	if card != "" {
		model := cfg.Model
		if cfg.Profile.Model == model {
			model = "" // not given: the default profile's
		}
		if cfg.Profile, err = session.SimProfile(card, model); err != nil {
			return usagef("--profile: %v", err)
		}
		if model == "" {
			cfg.Model = cfg.Profile.Model
		}
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

// cardProfile takes a --profile naming a card rather than a built-in
// profile out of args, so the simulator's own parser (which knows only its
// profiles) reads the rest; session.SimProfile makes that card's profile.
func cardProfile(args []string) (rest []string, card string) {
	for i := 0; i < len(args); i++ {
		name, ok := "", false
		switch a := args[i]; {
		case a == "--profile" && i+1 < len(args):
			name, ok = args[i+1], true
		case strings.HasPrefix(a, "--profile="):
			name, ok = strings.TrimPrefix(a, "--profile="), true
		}
		if _, err := sim.ProfileByName(name); ok && err != nil {
			if _, cerr := predict.FindCard(name); cerr == nil {
				if args[i] == "--profile" {
					i++
				}
				card = name
				continue
			}
		}
		rest = append(rest, args[i])
	}
	return rest, card
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

// Command rigbench-cli is RigBench without a window: detect hardware, launch
// vLLM, run the benchmark matrix, keep and export the history, and serve the
// simulator, for people who benchmark a box over SSH.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"syscall"

	"github.com/rigbench/rigbench/internal/termtext"
	"github.com/rigbench/rigbench/store"
)

// command is one subcommand. Each lives in its own file and registers itself
// in init, so adding one never touches this file.
type command struct {
	name    string
	usage   string // one line: "run --endpoint URL [flags]"
	summary string // one sentence for the command list
	run     func(ctx context.Context, env *env, args []string) error
	// cleanup, when set, says what the command still does after Ctrl-C
	// ("stopping the server container"), and earns it cleanupGrace.
	cleanup string
}

// env is the process seam: commands write through it and read the
// environment through it, so tests can run them in-process.
type env struct {
	stdout, stderr io.Writer
	stdin          io.Reader
	getenv         func(string) string
}

var commands = map[string]*command{}

func register(c *command) { commands[c.name] = c }

func main() {
	// os.Interrupt is Ctrl-C on every platform and Ctrl-Break too on
	// Windows (Go maps both console events to it); SIGTERM is kill on Unix
	// and, on Windows, the console window closing or the user signing out.
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	e := &env{stdout: os.Stdout, stderr: os.Stderr, stdin: os.Stdin, getenv: os.Getenv}
	os.Exit(execute(ctx, e, os.Args[1:]))
}

// errUsage marks errors that should be followed by the command's usage.
// It is only ever matched with errors.Is, never printed: usagef builds the
// message the user sees.
var errUsage = errors.New("usage")

// usageError is a mistake in the command line: its message is the whole
// sentence the user reads, and errors.Is(err, errUsage) holds, so execute
// adds the usage line and exits 2 without printing the sentinel's text.
type usageError struct{ msg string }

func (e usageError) Error() string        { return e.msg }
func (e usageError) Is(target error) bool { return target == errUsage }

// usagef returns a usage error with a formatted message.
func usagef(format string, args ...any) error {
	return usageError{fmt.Sprintf(format, args...)}
}

// execute runs one command line and returns the process exit code.
func execute(ctx context.Context, e *env, args []string) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" || args[0] == "help" {
		printHelp(e.stdout)
		if len(args) == 0 {
			return 2
		}
		return 0
	}
	c, ok := commands[args[0]]
	if !ok {
		fmt.Fprintf(e.stderr, "rigbench-cli: unknown command %q\n\n", args[0])
		printHelp(e.stderr)
		return 2
	}
	if err := runInterruptible(ctx, e, c, args[1:]); err != nil {
		// Ctrl-C or SIGTERM is the user's choice, not a failure: one line
		// and the shell's status for an interrupt, whatever the command
		// was doing when it stopped.
		if ctx.Err() != nil && (errors.Is(err, errInterrupted) || errors.Is(err, context.Canceled)) {
			fmt.Fprintf(e.stderr, "rigbench-cli %s: interrupted\n", c.name)
			return exitInterrupted
		}
		var ee exitError
		if errors.As(err, &ee) {
			if ee.err != nil {
				fmt.Fprintf(e.stderr, "rigbench-cli %s: %s\n", c.name, termtext.SafeLines(cliText(ee.err)))
			}
			return ee.code
		}
		if errors.Is(err, errUsage) {
			fmt.Fprintf(e.stderr, "rigbench-cli %s: %s\nusage: rigbench-cli %s\n", c.name, termtext.SafeLines(err.Error()), c.usage)
			return 2
		}
		// Errors carry server and file text: escaped, so a message cannot
		// drive the terminal.
		fmt.Fprintf(e.stderr, "rigbench-cli %s: %s\n", c.name, termtext.SafeLines(cliText(err)))
		return 1
	}
	return 0
}

// cliText is err as the CLI says it: the advice of a history error names
// the --db flag next to the environment variable.
func cliText(err error) string {
	return store.Advice(err, func(h store.Hint) string {
		switch h {
		case store.HintOtherFile:
			return "pass --db with another file (or set " + store.EnvDB + " to one)"
		case store.HintSetPath:
			return "pass --db with a file path (or set " + store.EnvDB + " to one)"
		case store.HintListRuns:
			return "'rigbench-cli runs' lists them"
		}
		return ""
	})
}

// exitError carries a specific exit code (err may be nil for a silent exit).
type exitError struct {
	code int
	err  error
}

func (e exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func printHelp(w io.Writer) {
	fmt.Fprintln(w, "rigbench-cli: benchmark an LLM server on your own NVIDIA card, headless.")
	fmt.Fprintln(w, "\nCommands:")
	names := make([]string, 0, len(commands))
	for n := range commands {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-9s %s\n", n, commands[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'rigbench-cli COMMAND -h' for the flags of one command.")
}

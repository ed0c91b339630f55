package main

import (
	"flag"
	"fmt"
	"io"
	"strings"
)

// newFlagSet is a command's flag set whose help and mistakes read as the
// rest of the CLI does: -h prints the command's synopsis, its summary and
// its flags spelled with two dashes; a mistake prints one sentence (with
// "did you mean --contexts?" for a near miss) and the synopsis, not Go's
// fifty lines of single-dash usage.
func newFlagSet(name string, e *env) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	// The flag package prints a mistake to the output, then calls Usage;
	// help calls Usage alone. The mistake is caught here and worded in
	// Usage.
	caught := &strings.Builder{}
	fs.SetOutput(caught)
	fs.Usage = func() {
		msg := strings.TrimSpace(caught.String())
		caught.Reset()
		if msg == "" {
			printFlagHelp(e.stderr, name, fs)
			return
		}
		fmt.Fprintf(e.stderr, "rigbench-cli %s: %s\n", name, flagMistake(fs, msg))
		fmt.Fprintf(e.stderr, "usage: rigbench-cli %s\nRun 'rigbench-cli %s -h' for every flag.\n", synopsis(name), name)
	}
	return fs
}

// synopsis is a command's one-line usage.
func synopsis(name string) string {
	if c, ok := commands[name]; ok && c.usage != "" {
		return c.usage
	}
	return name + " [flags]"
}

// printFlagHelp is a command's -h: synopsis, summary, then each flag as
// --name VALUE with its help and default.
func printFlagHelp(w io.Writer, name string, fs *flag.FlagSet) {
	fmt.Fprintf(w, "usage: rigbench-cli %s\n", synopsis(name))
	if c, ok := commands[name]; ok && c.summary != "" {
		fmt.Fprintln(w, c.summary)
	}
	fmt.Fprintln(w, "\nFlags:")
	fs.VisitAll(func(f *flag.Flag) {
		value, usage := flag.UnquoteUsage(f)
		line := "  --" + f.Name
		if value != "" {
			line += " " + value
		}
		fmt.Fprintln(w, line)
		if def := f.DefValue; def != "" && def != "false" && def != "0" && !strings.Contains(usage, "(default") {
			usage += fmt.Sprintf(" (default %s)", def)
		}
		fmt.Fprintln(w, "      "+strings.ReplaceAll(usage, "\n", "\n      "))
	})
}

// flagMistake words the flag package's error with two dashes, naming the
// nearest flag for an unknown one.
func flagMistake(fs *flag.FlagSet, msg string) string {
	if bad, ok := strings.CutPrefix(msg, "flag provided but not defined: "); ok {
		bad = strings.TrimLeft(bad, "-")
		out := "unknown flag --" + bad
		if near := nearestFlag(fs, bad); near != "" {
			out += "; did you mean --" + near + "?"
		}
		return out
	}
	// "invalid value "x" for flag -sim-speed: …", "flag needs an
	// argument: -contexts"
	msg = strings.Replace(msg, "flag -", "flag --", 1)
	return strings.Replace(msg, "argument: -", "argument: --", 1)
}

// nearestFlag is the defined flag closest to bad by edit distance, "" when
// none is within a third of its length (at least 2): a typo, not another
// word.
func nearestFlag(fs *flag.FlagSet, bad string) string {
	best, bestD := "", 0
	fs.VisitAll(func(f *flag.Flag) {
		d := editDistance(bad, f.Name)
		if best == "" || d < bestD {
			best, bestD = f.Name, d
		}
	})
	if best == "" || bestD > max(2, len(bad)/3) {
		return ""
	}
	return best
}

// editDistance is the Levenshtein distance between a and b in bytes
// (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

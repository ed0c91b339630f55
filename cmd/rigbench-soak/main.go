// Command rigbench-soak is RigBench's reliability suite (`make soak`): it
// drives a built rigbench-cli as a user or a careless script would, against
// the simulator and small hostile servers on 127.0.0.1, and prints one row
// per trial: random kill -9 of a run, each way a server can fail, two
// launches at once, a full disk, a locked history, Ctrl-C and SIGTERM. Each
// row says what happened — ok, clear error or kept cells when all is well;
// else lost cells, false claim (a message says nothing was lost when cells
// were), false alarm (it says something was not saved when all was), slow
// stop, unclear error, started twice, orphan kept, container left, valid
// after death (a cell read Valid after its server died), slow (a cell held
// for minutes), wrong figure (a number read from a NaN), overwrote,
// changed the run, relabelled (a resume measured at other launch flags),
// failed (the recovery did not recover), hung or crashed;
// skipped with the reason — how many finished cells were lost,
// whether the history passed SQLite's integrity check, the run's status,
// the CLI's peak memory and how long it took. The exit status is 1 when
// any row is not well.
//
// It is not part of `make test`: it takes a few minutes and needs a built
// CLI; the Docker rows need a daemon (they build the FROM-scratch simulator
// image) and the full-disk row needs root to mount a small tmpfs.
package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"text/tabwriter"
	"time"
)

// row is one trial's outcome.
type row struct {
	name    string
	outcome string // see the package comment
	lost    int    // finished cells missing from the history (and the JSON)
	db      string // "ok", the integrity check's complaint, or "—"
	status  string // the run's status in the history, "—" when none
	rssMB   float64
	took    time.Duration
	detail  string
}

// soak holds the suite's settings.
type soak struct {
	cli     string
	dir     string
	timeout time.Duration
	image   string
	rng     *rand.Rand
	out     io.Writer
}

func main() {
	cli := flag.String("cli", "bin/rigbench-cli", "the rigbench-cli binary to drive")
	kills := flag.Int("kills", 10, "how many random kill -9 of a run")
	timeout := flag.Duration("timeout", 3*time.Minute, "how long one trial may take before it counts as hung")
	only := flag.String("only", "", "run only the rows whose name matches this regular expression")
	seed := flag.Uint64("seed", uint64(time.Now().UnixNano()), "seed of the random kill times")
	noDocker := flag.Bool("no-docker", false, "skip the rows that need Docker")
	flag.Parse()

	abs, err := filepath.Abs(*cli)
	if err == nil {
		_, err = os.Stat(abs)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "rigbench-soak: %v; build it first (make cli)\n", err)
		os.Exit(2)
	}
	dir, err := os.MkdirTemp("", "rigbench-soak-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "rigbench-soak:", err)
		os.Exit(2)
	}
	defer os.RemoveAll(dir)
	s := &soak{cli: abs, dir: dir, timeout: *timeout, image: "rigbench-sim:test",
		rng: rand.New(rand.NewPCG(*seed, 12)), out: os.Stderr}
	fmt.Fprintf(os.Stderr, "rigbench-soak: %s, seed %d, work in %s\n", abs, *seed, dir)

	trials := s.trials(*kills, !*noDocker)

	rows := s.runAll(trials, regexp.MustCompile(*only))
	printTable(os.Stdout, rows)
	if bad := notWell(rows); bad > 0 {
		fmt.Printf("\n%d of %d rows are not ok, a clear error or kept cells with none lost.\n", bad, len(rows))
		os.Exit(1)
	}
	fmt.Printf("\nAll %d rows: no finished cell lost, nothing hung or crashed, every history intact.\n", len(rows))
}

// trial is one row of the table: its name and how to run it.
type trial struct {
	name string
	run  func() row
}

// trials lists the suite's rows: kills random kill -9 trials (every other
// one as a cell ends), each server fault, the signals, the locked history,
// the full disk and, with Docker, the launch rows.
func (s *soak) trials(kills int, docker bool) []trial {
	var trials []trial
	for i := range kills {
		atCellEnd := i%2 == 1
		name := fmt.Sprintf("kill -9 of a run #%d", i+1)
		if atCellEnd {
			name += " (as a cell ends)"
		}
		trials = append(trials, trial{name, func() row { return s.killRun(name, atCellEnd) }})
	}
	for _, f := range faults {
		trials = append(trials, trial{"server " + f.name, func() row { return s.serverFault(f) }})
	}
	for _, pt := range deathPoints {
		name := "simulator dies " + pt.name
		trials = append(trials, trial{name, func() row { return s.serverDies(name, pt, false) }})
	}
	trials = append(trials, trial{"simulator dies mid-window, then --resume", func() row {
		return s.serverDies("simulator dies mid-window, then --resume", deathPoints[1], true)
	}})
	trials = append(trials,
		trial{"Ctrl-C during a run", func() row { return s.signalRun("Ctrl-C during a run") }},
		trial{"SIGTERM during import of 60 MiB", func() row { return s.signalImport("SIGTERM during import of 60 MiB") }},
		trial{"history locked 12 s from the start", func() row { return s.lockedDB("history locked 12 s from the start", false) }},
		trial{"history locked 12 s mid-run", func() row { return s.lockedDB("history locked 12 s mid-run", true) }},
		trial{"full disk", func() row { return s.fullDisk("full disk") }},
		trial{"--json onto the history", func() row { return s.outputOntoHistory("--json onto the history") }},
		trial{"sweep of 10^8 variants", func() row { return s.hugeSweep("sweep of 10^8 variants") }},
		trial{"two first opens of a new history", func() row { return s.concurrentFirstOpen("two first opens of a new history") }},
		trial{"server " + nanMetrics.name, func() row { return s.nanMetricsRun("server "+nanMetrics.name, nanMetrics) }},
		trial{"server " + infRunning.name, func() row { return s.nanMetricsRun("server "+infRunning.name, infRunning) }},
		trial{"full disk, then import of the copy", func() row { return s.fullDiskImport("full disk, then import of the copy") }},
		trial{"two run --resume of one run at once", func() row { return s.twoResumes("two run --resume of one run at once") }},
		trial{"export -o /dev/fd/N onto the open history", func() row {
			return s.exportOntoDescriptor("export -o /dev/fd/N onto the open history")
		}},
		trial{"run --resume with other launch flags", func() row { return s.resumeOtherFlags("run --resume with other launch flags") }},
		trial{"server streaming past max_tokens", func() row { return s.pastMaxTokensRun("server streaming past max_tokens") }},
	)
	if docker {
		trials = append(trials,
			trial{"second launch during a run", func() row { return s.launchDuringRun("second launch during a run") }},
			trial{"two launches on one port", func() row { return s.samePort("two launches on one port") }},
			trial{"kill -9 of run --launch, then launch", func() row { return s.orphan("kill -9 of run --launch, then launch") }},
			trial{"SIGTERM during launch", func() row { return s.signalLaunch("SIGTERM during launch") }},
			trial{"served model name 'a b; c'", func() row { return s.oddServedName("served model name 'a b; c'") }},
			trial{"docker kill of run --launch mid-window", func() row { return s.launchedServerDies("docker kill of run --launch mid-window") }},
		)
	}
	return trials
}

// runAll runs the trials whose name matches filter, saying each as it
// goes.
func (s *soak) runAll(trials []trial, filter *regexp.Regexp) []row {
	var rows []row
	for _, t := range trials {
		if !filter.MatchString(t.name) {
			continue
		}
		fmt.Fprintf(s.out, "… %s\n", t.name)
		r := t.run()
		fmt.Fprintf(s.out, "  %s: %s\n", r.outcome, r.detail)
		rows = append(rows, r)
	}
	return rows
}

// notWell counts the rows that lost a cell, left a damaged history, or
// ended other than ok, a clear error, kept cells or skipped.
func notWell(rows []row) int {
	bad := 0
	for _, r := range rows {
		if r.lost > 0 || r.db != "ok" && r.db != "—" ||
			r.outcome != "ok" && r.outcome != "clear error" && r.outcome != "kept cells" && r.outcome != "skipped" {
			bad++
		}
	}
	return bad
}

func printTable(w io.Writer, rows []row) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "TRIAL\tOUTCOME\tLOST\tHISTORY\tSTATUS\tRSS MB\tTIME\tWHAT THE USER READ")
	for _, r := range rows {
		rss := "—"
		if r.rssMB > 0 {
			rss = fmt.Sprintf("%.0f", r.rssMB)
		}
		fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\t%s\t%s\n", r.name, r.outcome, r.lost, r.db, r.status, rss,
			r.took.Round(100*time.Millisecond), cut(r.detail, 140))
	}
	tw.Flush()
}

// cut shortens s to n runes on one line.
func cut(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

// path is a fresh path under the work folder.
func (s *soak) path(name string) string {
	p := filepath.Join(s.dir, fmt.Sprintf("%d-%s", time.Now().UnixNano(), name))
	return p
}

func (s *soak) ctx() (context.Context, context.CancelFunc) {
	return context.WithTimeout(context.Background(), s.timeout)
}

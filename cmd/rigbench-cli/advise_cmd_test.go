package main

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// TestRunPrintsAdviceAndAdviseReadsHistory: a demo run that queues (4
// streams on --max-num-seqs 2) prints its roofline matrix, the queue
// bottleneck and the --max-num-seqs advice at its end, and `advise ID`
// says the same from the history.
func TestRunPrintsAdviceAndAdviseReadsHistory(t *testing.T) {
	db := filepath.Join(t.TempDir(), "history.db")
	code, stdout, stderr := runCLI(t, "run", "--demo", "--sim-profile", "tiny", "--sim-speed", "20", "--contexts", "0",
		"--concurrency", "2,4", "--prefill", "none", "--duration", "5s", "--max-output", "64", "--db", db, "--no-telemetry",
		"--", "--max-num-seqs", "2")
	if code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", code, stderr)
	}
	for _, want := range []string{
		"Decode: % of the peak memory bandwidth (weights 0.5 GiB",
		"--max-num-seqs 4: 0×4 would stop queueing",
	} {
		if !strings.Contains(stdout, want) {
			t.Errorf("run's output lacks %q:\n%s", want, stdout)
		}
	}
	// The design guarantees the bottleneck (queue-bound), its cause (2
	// slots) and the flag that sets it; which evidence proves it depends
	// on what the sampler caught: "waiting 2, running 2 = --max-num-seqs"
	// when a /metrics sample saw the queue, "4 requests in flight, 2 =
	// --max-num-seqs run at once" when a loaded host's samples missed it
	// (the cell queued by N > slots alone).
	if !queueBound.MatchString(stdout) {
		t.Errorf("run's output lacks 0×4 queue-bound on 2 = --max-num-seqs (%s):\n%s", queueBound, stdout)
	}
	id := regexp.MustCompile(`saved as run (\S+)`).FindStringSubmatch(stderr)
	if id == nil {
		t.Fatalf("no run id in stderr:\n%s", stderr)
	}
	runID := strings.TrimRight(id[1], ".,;")
	code, out, errs := runCLI(t, "advise", runID, "--db", db)
	if code != 0 || !strings.Contains(out, "--max-num-seqs 4: 0×4 would stop queueing") || !queueBound.MatchString(out) {
		t.Errorf("advise: exit %d\n%s\n%s", code, out, errs)
	}
	// The loop closes: a sweep of the advice checks its prediction.
	code, out, errs = runCLI(t, "tune", "--from-advice", runID, "--db", db, "--sim-speed", "20", "--no-telemetry")
	if want := "Predicted: 0×4 runs without queueing — measured: runs without queueing"; code != 0 || !strings.Contains(out, want) {
		t.Errorf("tune --from-advice: exit %d, want %q in\n%s\n%s", code, want, out, errs)
	}
	if code, _, errs = runCLI(t, "tune", "--from-advice", runID, "--db", db, "--vary", "max-num-seqs=8"); code != 2 || !strings.Contains(errs, "--vary belongs to a sweep of your own") {
		t.Errorf("tune --from-advice --vary: exit %d, %q", code, errs)
	}
}

// queueBound is the bottleneck line of a 0×4 cell on --max-num-seqs 2,
// whichever evidence it gives.
var queueBound = regexp.MustCompile(`0×4: queue-bound \([^)\n]*\b2 = --max-num-seqs\b[^)\n]*\)`)

// --weights-gib is for an endpoint only, and must be a size.
func TestWeightsGiBFlag(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "--demo", "--weights-gib", "4"}, "--weights-gib applies only to an existing endpoint"},
		{[]string{"run", "--endpoint", "http://127.0.0.1:1", "--weights-gib", "-1"}, "--weights-gib must be the model's size on the card in GiB, more than 0, such as 4.6, not \"-1\""},
	} {
		code, _, stderr := runCLI(t, tc.args...)
		if code != 2 || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.want)
		}
	}
}

// queueBound accepts both evidences diagnose gives for the queue (the one
// the test once demanded and the one a loaded host produced) and refuses a
// line with another bottleneck, slot count or flag.
func TestQueueBoundAcceptsEitherEvidence(t *testing.T) {
	for line, want := range map[string]bool{
		"0×4: queue-bound (waiting 2, running 2 = --max-num-seqs)":                  true,
		"0×4: queue-bound (4 requests in flight, 2 = --max-num-seqs run at once)":   true,
		"0×4: queue-bound (waiting 2, running 3 = --max-num-seqs)":                  false,
		"0×4: queue-bound (4 requests in flight, 2 = -np run at once)":              false,
		"0×4: compute-bound (4 requests in flight, 2 = --max-num-seqs run at once)": false,
		"0×2: queue-bound (waiting 2, running 2 = --max-num-seqs)":                  false,
	} {
		if got := queueBound.MatchString(line); got != want {
			t.Errorf("%q: matched %v, want %v", line, got, want)
		}
	}
}

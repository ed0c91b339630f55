package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/store"
)

// sweepRuns opens the history at path and returns the sweep's runs.
func sweepRuns(t *testing.T, path, id string) []*rundoc.Run {
	t.Helper()
	db, err := store.Open(context.Background(), path)
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	runs, err := db.RunsTagged(context.Background(), tune.Tag(id))
	if err != nil {
		t.Fatal(err)
	}
	return runs
}

// TestTuneDemoJSONAndHistory: a demo sweep prints the table and the
// verdict, writes the sweep document, and saves each variant as an
// ordinary run tagged with the sweep's id.
func TestTuneDemoJSONAndHistory(t *testing.T) {
	dir := t.TempDir()
	db, out := filepath.Join(dir, "h.db"), filepath.Join(dir, "sweep.json")
	code, stdout, stderr := runCLI(t, "tune", "--demo", "--sim-speed", "50", "--vary", "kv-cache-dtype=auto,fp8",
		"--vary", "--max-num-seqs=4,64", "--one-at-a-time", "--contexts", "1K", "--concurrency", "8",
		"--objective", "total-tok-s@1Kx8", "--constraint", "ttft_p90<=20s", "--duration", "10s", "--no-telemetry",
		"--db", db, "--json", out, "--", "--max-num-seqs", "64")
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
	}
	for _, want := range []string{"Verdict: ", "your flags", "--kv-cache-dtype fp8", "--max-num-seqs 4", "1K×8"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("stdout lacks %q:\n%s", want, stdout)
		}
	}
	for _, want := range []string{"variant 1 of 3", "variant 3 of 3", "cell 1K×8 (1 of 1)", "ETA"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := tune.ReadDoc(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Variants) != 3 || doc.Best == nil || doc.Verdict == "" || doc.Objective != "total-tok-s@1Kx8" ||
		strings.Join(doc.Base.Flags, " ") != "--max-num-seqs 64" || len(doc.Constraints) != 1 {
		t.Fatalf("document %+v", doc)
	}
	// 4 seqs queue 8 streams: no score; the others run them.
	if v := doc.Variants[2]; v.Label != "--max-num-seqs 4" || v.Score != nil || v.Cells[0].Status != rundoc.StatusQueued {
		t.Errorf("max-num-seqs 4: %+v", v)
	}
	runs := sweepRuns(t, db, doc.SweepID)
	if len(runs) != 3 {
		t.Fatalf("%d runs tagged %s in the history", len(runs), tune.Tag(doc.SweepID))
	}
	ids := map[string]bool{}
	for _, r := range runs {
		ids[r.UUID] = true
		if r.Status != rundoc.RunComplete || !r.Simulated || !strings.HasPrefix(r.Name, "tune "+doc.SweepID+" · ") {
			t.Errorf("run %s %q %s", r.UUID, r.Name, r.Status)
		}
	}
	for _, v := range doc.Variants {
		if !ids[v.RunID] {
			t.Errorf("variant %s's run %s is not in the history", v.Label, v.RunID)
		}
	}
}

func TestTuneRefusals(t *testing.T) {
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--endpoint", "http://127.0.0.1:1"}, "Tune is unavailable for an existing endpoint"},
		{[]string{"--demo", "--contexts", "1K", "--concurrency", "1"}, "nothing to vary"},
		{[]string{"--demo", "--vary", "kv-cache-dtype=auto,int3", "--contexts", "1K", "--concurrency", "1"}, "int3"},
		{[]string{"--demo", "--vary", "kv-cache-dtype=fp8", "--contexts", "1K", "--concurrency", "1", "--objective", "total-tok-s@2Kx1"}, "not in the workload"},
		{[]string{"--demo", "--vary", "kv-cache-dtype=fp8", "--contexts", "1K", "--concurrency", "1", "--no-save", "--resume", "abcdef12"}, "drop --no-save"},
		{[]string{"--resume", "../etc"}, "not a sweep id"},
		{[]string{"--resume", "abcdef12", "--contexts", "1K"}, "belongs to a new sweep"},
		{[]string{"--demo", "--vary", "kv-cache-dtype=fp8"}, "--contexts is needed"},
		{[]string{"--vary", "kv-cache-dtype=fp8", "--contexts", "1K", "--concurrency", "1"}, "choose one target"},
		{[]string{"--demo", "--vary", "kv-cache-dtype=fp8", "--contexts", "1K", "--concurrency", "1", "--", "--no-such-flag"}, "not valid"},
	} {
		args := append([]string{"tune"}, c.args...)
		if !strings.Contains(strings.Join(args, " "), "--no-save") {
			args = append([]string{"tune", "--no-save"}, c.args...)
		}
		code, _, stderr := runCLI(t, args...)
		if code != 2 || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, stderr %q, want 2 and %q", c.args, code, stderr, c.want)
		}
	}
}

// TestTuneHelperProcess is the CLI in a child process for the kill -9 test;
// it does nothing in a normal test run.
func TestTuneHelperProcess(t *testing.T) {
	args := os.Getenv("RIGBENCH_TUNE_HELPER_ARGS")
	if args == "" {
		t.Skip("helper process only")
	}
	var a []string
	if err := json.Unmarshal([]byte(args), &a); err != nil {
		t.Fatal(err)
	}
	e := &env{stdout: os.Stdout, stderr: os.Stderr, stdin: strings.NewReader(""), getenv: os.Getenv}
	os.Exit(execute(context.Background(), e, a))
}

// TestTuneKill9ThenResume kills the CLI with SIGKILL after its first
// variant is in the history; `--resume ID` then measures only the other
// variants and keeps the first one's run.
func TestTuneKill9ThenResume(t *testing.T) {
	if testing.Short() {
		t.Skip("demo runs in real time, killed and resumed (5 s or more): skipped with -short (make test runs it)")
	}
	dir := t.TempDir()
	db := filepath.Join(dir, "h.db")
	args := []string{"tune", "--demo", "--sim-speed", "20", "--vary", "kv-cache-dtype=auto,fp8", "--vary", "max-num-seqs=8",
		"--one-at-a-time", "--contexts", "1K", "--concurrency", "8", "--duration", "30s", "--no-telemetry", "--db", db}
	js, _ := json.Marshal(args)
	cmd := exec.Command(os.Args[0], "-test.run=^TestTuneHelperProcess$")
	cmd.Env = append(os.Environ(), "RIGBENCH_TUNE_HELPER_ARGS="+string(js))
	stderr, err := cmd.StderrPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	lines := make(chan string, 100)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			lines <- sc.Text()
		}
		close(lines)
	}()
	var id string
	deadline := time.After(2 * time.Minute)
wait:
	for {
		select {
		case l, ok := <-lines:
			if !ok {
				t.Fatal("the sweep ended before it could be killed")
			}
			if rest, ok := strings.CutPrefix(l, "sweep "); ok && id == "" {
				id, _, _ = strings.Cut(rest, ":")
			}
			// The second variant starts once the first is in the history.
			if strings.HasPrefix(l, "variant 2 of 3") && strings.Contains(l, "cell 1K×8") {
				break wait
			}
		case <-deadline:
			t.Fatal("the first variant did not finish in 2 minutes")
		}
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	before := sweepRuns(t, db, id)
	var first *rundoc.Run
	for _, r := range before {
		if r.Status == rundoc.RunComplete {
			if first != nil {
				t.Fatalf("two variants finished before the kill")
			}
			first = r
		}
	}
	if first == nil || !strings.HasSuffix(first.Name, tune.BaseLabel) {
		t.Fatalf("no finished base variant in the history after kill -9: %d runs", len(before))
	}

	// The id alone is enough: the sweep kept its spec beside the history.
	code, stdout, errOut := runCLI(t, "tune", "--resume", id, "--db", db, "--no-telemetry")
	if code != 0 {
		t.Fatalf("resume exit %d\n%s\n%s", code, stdout, errOut)
	}
	if !strings.Contains(errOut, "variant 1 of 3: your flags: already measured (run "+rundoc.ShortID(first.UUID)+"), skipped") ||
		strings.Count(errOut, ": starting") != 2 {
		t.Errorf("resume did not skip exactly the finished variant:\n%s", errOut)
	}
	complete := 0
	for _, r := range sweepRuns(t, db, id) {
		if r.Status == rundoc.RunComplete {
			complete++
		}
		if r.UUID == first.UUID && (r.Status != rundoc.RunComplete || len(r.Cells) != len(first.Cells)) {
			t.Errorf("the finished variant's run changed: %s", r.Status)
		}
	}
	if complete != 3 || !strings.Contains(stdout, "Verdict: ") {
		t.Errorf("%d complete runs after resume\n%s", complete, stdout)
	}
}

// TestRunDemoTakesVLLMFlags: `run --demo -- FLAGS` runs the simulator with
// the flags (fp8 KV doubles its capacity) and records them on the run; a
// flag vLLM would refuse is a usage error.
func TestRunDemoTakesVLLMFlags(t *testing.T) {
	dir := t.TempDir()
	kv := map[string]int{}
	for _, dtype := range []string{"auto", "fp8"} {
		out := filepath.Join(dir, dtype+".json")
		code, stdout, stderr := runCLI(t, "run", "--demo", "--sim-speed", "50", "--contexts", "0", "--concurrency", "1",
			"--prefill", "none", "--duration", "5s", "--no-save", "--no-telemetry", "--json", out, "--", "--kv-cache-dtype", dtype)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, stderr)
		}
		f, err := os.Open(out)
		if err != nil {
			t.Fatal(err)
		}
		run, err := rundoc.ReadRun(f)
		f.Close()
		if err != nil {
			t.Fatal(err)
		}
		if run.Launch == nil || strings.Join(run.Launch.Args, " ") != "--kv-cache-dtype "+dtype {
			t.Errorf("%s: launch record %+v", dtype, run.Launch)
		}
		kv[dtype] = run.Server.KVCapacityTokens
	}
	if r := float64(kv["fp8"]) / float64(kv["auto"]); r < 1.95 || r > 2.05 {
		t.Errorf("fp8/auto KV capacity %d/%d", kv["fp8"], kv["auto"])
	}
	code, _, stderr := runCLI(t, "run", "--demo", "--no-save", "--", "--kv-cache-dtype", "int3")
	if code != 2 || !strings.Contains(stderr, "int3") {
		t.Errorf("a refused flag: exit %d, %q", code, stderr)
	}
}

// TestTuneLaunchSimulatorImage sweeps --kv-cache-dtype on the simulator
// image through the real Docker daemon with `tune --launch`: the CLI's own
// launch path (launch's options, labels and pull progress). Each variant
// is a container of its own; none is left behind.
func TestTuneLaunchSimulatorImage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l := dockertest.Launcher(ctx, t)
	instance := "tune-test-" + uuid.NewString()
	e, out, errb := launchEnv(map[string]string{"RIGBENCH_INSTANCE": instance})
	js := filepath.Join(t.TempDir(), "sweep.json")
	code := execute(ctx, e, []string{"tune", "--launch", "--model", "sim/tiny-model", "--image", simimage.DefaultTag, "--no-gpu",
		"--vary", "kv-cache-dtype=auto,fp8", "--contexts", "1K", "--concurrency", "4", "--duration", "30s",
		"--no-save", "--no-telemetry", "--json", js, "--", "--speed", "50"})
	if code != 0 {
		t.Fatalf("exit %d\n%s\n%s", code, out.String(), errb.String())
	}
	f, err := os.Open(js)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	doc, err := tune.ReadDoc(f)
	if err != nil {
		t.Fatal(err)
	}
	if len(doc.Variants) != 2 || doc.Variants[0].Status != tune.Measured || doc.Variants[1].Status != tune.Measured ||
		doc.Variants[1].KVCapacityTokens < 19*doc.Variants[0].KVCapacityTokens/10 || doc.Base.Image != simimage.DefaultTag {
		t.Fatalf("sweep %+v\n%s", doc, errb.String())
	}
	if !strings.Contains(errb.String(), "GPU KV cache size") {
		t.Errorf("the containers' logs did not reach stderr:\n%s", errb.String())
	}
	list, err := l.API().ContainerList(ctx, container.ListOptions{All: true})
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range list {
		if c.Labels[docker.LabelInstance] == instance {
			t.Errorf("container %s of the sweep left behind", c.ID[:12])
		}
	}
}

// A sweep over more variants than MaxVariants is refused at once with a
// sentence naming the cap, instead of building a grid of 10⁸ launches.
func TestTuneRefusesTooManyVariants(t *testing.T) {
	values := func(from int) string {
		var b strings.Builder
		for i := range 10000 {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprint(&b, from+i)
		}
		return b.String()
	}
	var out, errb bytes.Buffer
	e := &env{stdout: &out, stderr: &errb, stdin: strings.NewReader(""), getenv: func(string) string { return "" }}
	args := []string{"tune", "--demo", "--vary", "max-model-len=" + values(1024), "--vary", "max-num-batched-tokens=" + values(2048),
		"--contexts", "1K", "--concurrency", "1", "--no-save"}
	code := executeWithin(t, context.Background(), e, args, 20*time.Second)
	want := fmt.Sprintf("at most %d variants", tune.MaxVariants)
	if code != 2 || !strings.Contains(errb.String(), want) || !strings.Contains(errb.String(), "100000000") {
		t.Errorf("exit %d, stderr %q; want 2 and a sentence with %q and the count", code, cut(errb.String(), 400), want)
	}
}

func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// TestProgressLineSaysWhyOrNothing: a variant that ended without a
// sentence (a cancelled one from an older sweep file) prints its status
// alone, never "cancelled: " with nothing after it.
func TestProgressLineSaysWhyOrNothing(t *testing.T) {
	var out bytes.Buffer
	pr := progressPrinter(&out)
	pr(tune.Progress{Stage: "failed", Variant: 2, Variants: 4, Label: "--max-num-seqs 64",
		Result: &tune.VariantResult{Status: tune.Cancelled}})
	pr(tune.Progress{Stage: "failed", Variant: 3, Variants: 4, Label: "--max-num-seqs 128",
		Result: &tune.VariantResult{Status: tune.Failed, Error: "the server ran out of memory."}})
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 2 || lines[0] != "variant 2 of 4: --max-num-seqs 64: cancelled" ||
		lines[1] != "variant 3 of 4: --max-num-seqs 128: failed: the server ran out of memory" {
		t.Fatalf("progress lines:\n%s", out.String())
	}
}

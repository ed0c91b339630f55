package bench_test

import (
	"bufio"
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/cputime"
)

// BenchmarkClient128Streams checks that the client is never the bottleneck
// (issue 2, speed): the simulator runs unthrottled in its own process, 128
// streams of 32K-token prompts decode through the real runner, and the
// benchmark reports this process's CPU time per received token (target
// ≤ 5 µs) and its peak RSS (target ≤ 150 MB).
func BenchmarkClient128Streams(b *testing.B) {
	// The H100 profile serves 128 streams at once; speed inf removes every
	// simulated delay, so tokens arrive as fast as the two processes allow.
	port := startSimProcess(b, "--profile", "h100-80gb", "--speed", "inf", "--max-num-seqs", "128", "--kv-cache-dtype", "fp8")
	c, err := client.New(fmt.Sprintf("http://127.0.0.1:%d", port), client.WithConcurrency(128))
	if err != nil {
		b.Fatal(err)
	}
	plan := rundoc.Plan{Contexts: []int{32768}, Concurrency: []int{128}, DurationS: 5, MaxOutput: 8192,
		KVCapacityOverride: 1 << 30} // run the cell even where the card would queue
	var tokens int
	var cpu time.Duration
	b.ResetTimer()
	for range b.N {
		run, used := runCountingCPU(b, c, plan)
		cpu += used
		tokens += run.Cells[0].OutputTokens
		b.Logf("%d tokens in %gs (%.0f tok/s), status %s", run.Cells[0].OutputTokens, plan.DurationS, run.Cells[0].TotalTokS, run.Cells[0].Status)
	}
	b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(tokens), "client-cpu-µs/token")
	if mb, ok := peakRSSMB(); ok {
		b.ReportMetric(mb, "peak-rss-MB")
	}
	b.ReportMetric(float64(tokens)/float64(b.N)/plan.DurationS, "tok/s")
}

// startSimProcess builds cmd/rigbench-sim and runs it in its own process on
// a free port of 127.0.0.1 with args, so the client's CPU time is measured
// apart from the simulator's. It returns the port once the simulator is up.
func startSimProcess(b *testing.B, args ...string) int {
	b.Helper()
	bin := filepath.Join(b.TempDir(), "rigbench-sim")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/rigbench-sim")
	build.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("build simulator: %v\n%s", err, out)
	}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	sim := exec.Command(bin, append([]string{"--host", "127.0.0.1", "--port", fmt.Sprint(port)}, args...)...)
	stdout, _ := sim.StdoutPipe()
	sim.Stderr = sim.Stdout
	if err := sim.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { sim.Process.Kill(); sim.Wait() })
	ready := make(chan struct{})
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if strings.Contains(sc.Text(), "Application startup complete") {
				close(ready)
			}
		}
	}()
	select {
	case <-ready:
	case <-time.After(30 * time.Second):
		b.Fatal("the simulator did not start")
	}
	return port
}

// runCountingCPU runs plan's one cell and returns the run and this
// process's CPU time from the moment the window opened to the cell's end:
// calibration and warm-up are not per-token work.
func runCountingCPU(b *testing.B, c *client.Client, plan rundoc.Plan) (*rundoc.Run, time.Duration) {
	b.Helper()
	var cpu0, cpu time.Duration
	obs := rundoc.ObserverFunc(func(e rundoc.Event) {
		switch {
		case e.Kind == rundoc.EventCellProgress && strings.HasPrefix(e.Message, "measuring"):
			cpu0 = cputime.Process()
		case e.Kind == rundoc.EventCellDone:
			cpu = cputime.Process() - cpu0
		}
	})
	run, err := (&bench.Runner{Client: c, Plan: plan, Observer: obs}).Run(context.Background())
	if err != nil {
		b.Fatal(err)
	}
	return run, cpu
}

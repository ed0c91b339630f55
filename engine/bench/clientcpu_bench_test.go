package bench_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

// cpuSimSpeed throttles the simulator of BenchmarkClientCPU: slow enough
// that the client reads every step's token before the next one is written,
// so each chunk carries exactly one token and the figures compare across
// machines (unthrottled, the number of tokens packed per chunk depends on
// how fast the machine is, see BenchmarkClient128Streams).
const cpuSimSpeed = 4

// BenchmarkClientCPU measures the client's own cost (issue 15): the CPU
// time of this process while a decode window runs, per content chunk
// received and per token, at 1, 16 and 128 streams, against a simulator in
// its own process throttled to 1 token per chunk. The simulator's ground
// truth (/debug/truth) counts the chunks and tokens it wrote in the window.
// Goal: at most 3 µs of CPU per chunk at 128 streams.
func BenchmarkClientCPU(b *testing.B) {
	port := startSimProcess(b, "--profile", "h100-80gb", "--speed", fmt.Sprint(cpuSimSpeed),
		"--max-num-seqs", "128", "--kv-cache-dtype", "fp8")
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	for _, n := range []int{1, 16, 128} {
		b.Run(fmt.Sprintf("streams=%d", n), func(b *testing.B) {
			c, err := client.New(url, client.WithConcurrency(n))
			if err != nil {
				b.Fatal(err)
			}
			defer c.CloseIdle()
			plan := rundoc.Plan{Contexts: []int{1024}, Concurrency: []int{n}, DurationS: 20, MaxOutput: 8192,
				KVCapacityOverride: 1 << 30}
			var cpu time.Duration
			var chunks, tokens int
			for range b.N {
				run, used := runCountingCPU(b, c, plan)
				cpu += used
				cell := run.Cells[0]
				ch, tok := writtenInWindow(b, url, cell.WindowStart, cell.WindowStart.Add(time.Duration(cell.MeasuredS/cpuSimSpeed*float64(time.Second))))
				chunks, tokens = chunks+ch, tokens+tok
			}
			b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(chunks), "cpu-µs/chunk")
			b.ReportMetric(float64(cpu.Nanoseconds())/1000/float64(tokens), "cpu-µs/token")
			b.ReportMetric(float64(tokens)/float64(chunks), "tokens/chunk")
		})
	}
}

// writtenInWindow asks the simulator's ground truth how many content
// chunks, and tokens, it wrote in [from, to).
func writtenInWindow(b *testing.B, url string, from, to time.Time) (chunks, tokens int) {
	resp, err := http.Get(url + "/debug/truth")
	if err != nil {
		b.Fatal(err)
	}
	defer resp.Body.Close()
	var recs []sim.RequestRecord
	if err := json.NewDecoder(resp.Body).Decode(&recs); err != nil {
		b.Fatal(err)
	}
	for _, r := range recs {
		for _, e := range r.Tokens {
			if !e.At.Before(from) && e.At.Before(to) {
				chunks, tokens = chunks+1, tokens+e.N
			}
		}
	}
	return chunks, tokens
}

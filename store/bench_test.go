package store

import (
	"context"
	"database/sql"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/internal/cputime"
)

// The speed targets of the history (issue 6): listing 10,000 runs ≤ 50 ms,
// saving a cell with its samples ≤ 2 ms, opening a history of 10,000 runs
// ≤ 200 ms. Run: go test -run '^$' -bench . ./store/

var (
	bigOnce sync.Once
	bigDir  string
	bigPath string
	bigErr  error
)

func TestMain(m *testing.M) {
	if os.Getenv(holdEnv) == "1" {
		holdUntilStdinCloses()
	}
	code := m.Run()
	if bigDir != "" {
		os.RemoveAll(bigDir)
	}
	os.Exit(code)
}

// bigHistory builds, once per test binary, a history of 10,000 runs shaped
// like real ones: a hardware snapshot, a launch, the 8K prefill cell and
// two decode cells each (the list and open paths never read cells, so more
// cells would only slow the setup).
func bigHistory(b *testing.B) string {
	b.Helper()
	bigOnce.Do(func() {
		bigDir, bigErr = os.MkdirTemp("", "rigbench-store-bench-")
		if bigErr != nil {
			return
		}
		bigPath = filepath.Join(bigDir, "history.db")
		var db *DB
		if db, bigErr = Open(context.Background(), bigPath); bigErr != nil {
			return
		}
		defer db.Close()
		bigErr = db.write(context.Background(), func(tx *sql.Tx) error {
			ins, err := prepareCellWriter(context.Background(), tx)
			if err != nil {
				return err
			}
			defer ins.close()
			for i := 0; i < 10000; i++ {
				r := benchRun(i)
				id, err := upsertRun(context.Background(), tx, r, runExtras{})
				if err != nil {
					return err
				}
				for j := range r.Cells {
					if err := ins.insert(context.Background(), id, j, &r.Cells[j]); err != nil {
						return err
					}
				}
				if err := refreshHeadline(context.Background(), tx, id); err != nil {
					return err
				}
			}
			return nil
		})
	})
	if bigErr != nil {
		b.Fatal(bigErr)
	}
	return bigPath
}

func benchRun(i int) *rundoc.Run {
	gpus := []string{"NVIDIA GeForce RTX 3060", "NVIDIA GeForce RTX 4090", "NVIDIA H100 80GB HBM3"}
	return &rundoc.Run{
		Schema: rundoc.Schema, UUID: uuid.NewSHA1(uuid.NameSpaceOID, fmt.Appendf(nil, "bench%d", i)).String(),
		Name: fmt.Sprintf("run %d", i), Tags: []string{"bench"}, Status: rundoc.RunComplete,
		CreatedAt: time.Date(2025, 1, 1, 0, 0, 0, 0, time.UTC).Add(time.Duration(i) * time.Minute),
		Origin:    rundoc.OriginMeasured,
		Plan:      rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 2, 4, 8}, PrefillContexts: []int{8192}, DurationS: 30, MaxOutput: 8192},
		Hardware: &hardware.Snapshot{GPUs: []hardware.GPU{{Name: gpus[i%3], VRAMTotalBytes: 12 << 30}},
			CPU: hardware.CPU{Model: "AMD Ryzen 7 5800X", PhysicalCores: 8, LogicalCores: 16}},
		Launch: &rundoc.Launch{Image: "vllm/vllm-openai:v0.11.0", Model: "org/model", Args: []string{"--max-model-len", "32768"}},
		Server: rundoc.Server{Model: "org/model", Engine: "vllm", Version: "0.11.0", KVCapacitySource: rundoc.KVSourceMetrics},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 2341},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 49.6},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 8, Status: rundoc.StatusValid, TotalTokS: 330.2},
		},
	}
}

// windowCell is a decode cell as the runner finishes it: a 30 s window
// with one /metrics scrape and one NVML sample a second.
func windowCell(context int) *rundoc.Cell {
	c := &rundoc.Cell{
		Phase: rundoc.PhaseDecode, Context: context, Concurrency: 8, Status: rundoc.StatusValid,
		TotalTokS: 330.2, PerRequestTokS: 41.3, TTFTMs: 896, TBTMs: 24.2, AvgActive: 8, OutputTokens: 9904,
		MeasuredS: 30, TokenCountSource: rundoc.TokensContinuousUsage,
		ServerStats: &rundoc.ServerStats{Samples: 30, RunningMean: 8},
		GPUStats:    &hardware.GPUStats{Samples: 30, PowerMeanW: 160},
	}
	for s := 0; s < 30; s++ {
		c.ServerSamples = append(c.ServerSamples, rundoc.ServerSample{T: float64(s), Running: 8, KVUsage: rundoc.Reported(0.4, true)})
		c.GPUSamples = append(c.GPUSamples, hardware.GPUSample{T: float64(s), PowerW: 160, SMClockMHz: 1800, VRAMUsedBytes: 11 << 30})
	}
	return c
}

// reportCPU adds the cpu-ns/op metric for the loop that started at start.
func reportCPU(b *testing.B, start time.Duration) {
	if b.N > 0 {
		b.ReportMetric(float64(cputime.Process()-start)/float64(b.N), "cpu-ns/op")
	}
}

func BenchmarkList10000Runs(b *testing.B) {
	path := bigHistory(b)
	db, err := Open(context.Background(), path)
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	b.ReportAllocs()
	b.ResetTimer()
	start := cputime.Process()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		list, err := db.List(context.Background(), Filter{})
		if err != nil || len(list) != 10000 {
			b.Fatalf("List = %d runs, %v", len(list), err)
		}
	}
}

func BenchmarkOpen10000Runs(b *testing.B) {
	path := bigHistory(b)
	b.ReportAllocs()
	b.ResetTimer()
	start := cputime.Process()
	defer func() { reportCPU(b, start) }()
	for b.Loop() {
		db, err := Open(context.Background(), path)
		if err != nil {
			b.Fatal(err)
		}
		db.Close()
	}
}

func BenchmarkRecordCellWithSamples(b *testing.B) {
	db, err := Open(context.Background(), filepath.Join(b.TempDir(), "h.db"))
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	rec := db.Recorder()
	run := benchRun(0)
	run.Cells = nil
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: run})
	b.ReportAllocs()
	b.ResetTimer()
	start := cputime.Process()
	i := 0
	for b.Loop() {
		c := windowCell(i)
		i++
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: run, Cell: c})
	}
	b.StopTimer()
	reportCPU(b, start)
	if err := rec.Err(); err != nil {
		b.Fatal(err)
	}
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: run})
}

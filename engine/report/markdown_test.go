package report_test

import (
	"bytes"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// mdFullRun is a measured run with every section filled: two GPUs, a
// launch, a queued, a failed and an over-capacity cell, tail latencies,
// server and GPU statistics.
func mdFullRun() *rundoc.Run {
	start := time.Date(2025, 11, 29, 14, 3, 0, 0, time.UTC)
	return &rundoc.Run{
		Schema: rundoc.Schema, UUID: "0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c", Name: "3090 | fp8 *tuned*",
		Tags: []string{"fp8", "prefix-cache"}, Notes: "gpu-memory-utilization 0.92", Status: rundoc.RunComplete,
		CreatedAt: start, FinishedAt: start.Add(14 * time.Minute), Origin: rundoc.OriginMeasured,
		Plan: rundoc.Plan{Contexts: []int{0, 16384}, Concurrency: []int{1, 8, 64}, PrefillContexts: []int{8192, 16384}, DurationS: 30, MaxOutput: 8192},
		Hardware: &hardware.Snapshot{
			GPUs: []hardware.GPU{
				{Index: 0, Name: "NVIDIA GeForce RTX 3090", VRAMTotalBytes: 24 << 30, PowerLimitW: 350, PCIeGen: 4, PCIeWidth: 16, MemoryBandwidthGBs: 936.2, ComputeCapability: "8.6"},
				{Index: 1, Name: "NVIDIA GeForce RTX 3090", VRAMTotalBytes: 24 << 30},
			},
			DriverVersion: "580.95.05", CUDADriverVersion: "13.0",
			CPU:    hardware.CPU{Model: "AMD Ryzen 9 5950X", PhysicalCores: 16, LogicalCores: 32},
			Memory: hardware.Memory{TotalBytes: 128 << 30},
			OS:     hardware.OS{Name: "Ubuntu", Version: "24.04", Kernel: "6.8.0-49-generic", Arch: "x86_64"},
		},
		Launch: &rundoc.Launch{
			Image: "vllm/vllm-openai:v0.11.0", Model: "Qwen/Qwen3-8B-FP8", GPUs: "all",
			Args:          []string{"--tensor-parallel-size", "2", "--enable-prefix-caching"},
			ServeCommand:  "vllm serve Qwen/Qwen3-8B-FP8 --tensor-parallel-size 2 --enable-prefix-caching",
			DockerCommand: "docker run --gpus all -e HF_TOKEN=<token> -p 127.0.0.1:8000:8000 vllm/vllm-openai:v0.11.0 Qwen/Qwen3-8B-FP8 --tensor-parallel-size 2",
		},
		Server: rundoc.Server{Model: "Qwen/Qwen3-8B-FP8", Engine: "vllm", Version: "0.11.0", MaxModelLen: 32768,
			KVCapacityTokens: 180000, KVCapacitySource: rundoc.KVSourceMetrics, HasMetrics: true, HasTokenize: true},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 98.04, PerRequestTokS: 98.2,
				TTFTMs: 41.6, TBTMs: 10.19, TTFTP90Ms: 44, TTFTP99Ms: 52, TBTP90Ms: 10.6, TBTP99Ms: 12.1, AvgActive: 1,
				CompletedRequests: 1, OutputTokens: 2942, MeasuredS: 30.001,
				ServerStats: &rundoc.ServerStats{Samples: 30, KVUsageMax: 0.012}, GPUStats: &hardware.GPUStats{Samples: 30, PowerMeanW: 301.4},
				EnergyJPerToken: 3.07},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 8, Status: rundoc.StatusValid, TotalTokS: 702.55, PerRequestTokS: 88,
				TTFTMs: 77, TBTMs: 11.3, AvgActive: 7.99, CompletedRequests: 8, OutputTokens: 21077, MeasuredS: 30},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 64, Status: rundoc.StatusFailed, Reason: "HTTP 500 | server exited"},
			{Phase: rundoc.PhaseDecode, Context: 16384, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 90.5, TTFTMs: 180, AvgActive: 1, OutputTokens: 2715, MeasuredS: 30},
			{Phase: rundoc.PhaseDecode, Context: 16384, Concurrency: 8, Status: rundoc.StatusQueued, TotalTokS: 412.25, TTFTMs: 5020, AvgActive: 6.1, OutputTokens: 12368, MeasuredS: 30},
			{Phase: rundoc.PhaseDecode, Context: 16384, Concurrency: 64, Status: rundoc.StatusOverCapacity},
			{Phase: rundoc.PhasePrefill, Context: 16384, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 7012.3, PromptTokens: 16384, TTFTMs: 2336.5, CompletedRequests: 1},
			{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 8811.04, PromptTokens: 8192, TTFTMs: 929.7, CompletedRequests: 1},
		},
	}
}

// refFromTestdata is the published reference run as the import reads it,
// with the import time fixed.
func refFromTestdata(t *testing.T) *rundoc.Run {
	t.Helper()
	run, _ := readRef(t)
	run.CreatedAt = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	return run
}

func TestMarkdownGolden(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  *rundoc.Run
	}{{"md_full.md", mdFullRun()}, {"md_reference.md", refFromTestdata(t)}} {
		t.Run(tc.name, func(t *testing.T) {
			var b bytes.Buffer
			if err := report.WriteMarkdown(&b, tc.run); err != nil {
				t.Fatal(err)
			}
			golden(t, tc.name, b.Bytes())
		})
	}
}

func TestCSVGolden(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteCSV(&b, mdFullRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "csv_full.csv", b.Bytes())
	// What we write, we read back with the same figures.
	back, err := report.ReadReferenceCSV(bytes.NewReader(b.Bytes()))
	if err != nil {
		t.Fatal(err)
	}
	if c := back.Find(rundoc.PhaseDecode, 16384, 8); c == nil || c.Status != rundoc.StatusQueued || c.TotalTokS != 412.2 || c.OutputTokens != 12368 {
		t.Errorf("16K×8 read back as %+v", c)
	}
	if c := back.Find(rundoc.PhasePrefill, 8192, 1); c == nil || c.PromptTokS != 8811 || c.TTFTMs != 930 {
		t.Errorf("prefill 8K read back as %+v", c)
	}
}

// The Markdown is a forum post: the sections a reader looks for are there,
// the matrix shows figures or statuses, and every table row has as many
// cells as its header, whatever the run's text holds.
func TestMarkdownContent(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, mdFullRun()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{
		"## Hardware", "## Engine", "## Launch", "## Decode: total tok/s · TTFT ms", "## Prefill: prompt tok/s", "## All measurements",
		"| 0 | 98.0 · 42 ms | 702.5 · 77 ms | Failed |", "| 16K | 90.5 · 180 ms | 412.2 · 5020 ms* | Over capacity |",
		"| 8K | 8811.0 | 930 | Valid |", "```sh\nvllm serve Qwen/Qwen3-8B-FP8", "3090 \\| fp8 \\*tuned\\*", "HTTP 500 \\| server exited",
		"| 0: NVIDIA GeForce RTX 3090 | 24.0 GiB | 350 W | Gen 4 x16 | 936 GB/s | 8.6 |", "180,000 tokens (from metrics)", "J/token",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown lacks %q", want)
		}
	}
	checkTables(t, md)

	var h bytes.Buffer
	if err := report.WriteMarkdown(&h, hostile()); err != nil {
		t.Fatal(err)
	}
	// Outside code fences (shown literally), every "<" must be escaped.
	inFence := false
	for _, line := range strings.Split(h.String(), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.Count(line, "<") != strings.Count(line, `\<`) {
			t.Errorf("raw HTML from the run reached the Markdown: %s", line)
		}
	}
	checkTables(t, h.String())
}

// checkTables counts unescaped pipes: each row of a table must have as many
// columns as the row that starts it.
func checkTables(t *testing.T, md string) {
	t.Helper()
	want := -1
	for _, line := range strings.Split(md, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		n := strings.Count(line, "|") - strings.Count(line, `\|`)
		if want < 0 {
			want = n
		} else if n != want {
			t.Errorf("table row has %d pipes, its header %d: %s", n, want, line)
		}
	}
}

func TestMarkdownReferenceSaysWhatIsUnknown(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, refFromTestdata(t)); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	for _, want := range []string{"Imported from a measurements file", "| 0: RTX 3060 12GB | n/a |", "| KV capacity | not reported |",
		"| 128K | 23.4 · 4124 ms* | 29.5 · 6119 ms* | Over capacity |", "Not launched by RigBench"} {
		if !strings.Contains(md, want) {
			t.Errorf("Markdown of the reference lacks %q", want)
		}
	}
}

// noGPURun is a simulated run on a machine without an NVIDIA driver, with
// the OS facts as hardware.detectOS records them on Debian.
func noGPURun() *rundoc.Run {
	r := hostile()
	r.Name, r.Notes, r.Tags, r.Launch = "no GPU", "", nil, nil
	r.Hardware = &hardware.Snapshot{
		GPUs: []hardware.GPU{}, GPUAbsentReason: "no NVIDIA driver found (libnvidia-ml.so.1)",
		CPU:    hardware.CPU{Model: "Intel Xeon E5-2680 v4", PhysicalCores: 14, LogicalCores: 28},
		Memory: hardware.Memory{TotalBytes: 64 << 30},
		OS:     hardware.OS{Name: "Debian", Version: "12.11", Kernel: "6.18.44-fc-v782", Arch: "x86_64"},
	}
	return r
}

// The OS row names the system with its version and labels the kernel, and
// the HTML states every hardware fact the Markdown does, in the same words.
func TestHardwareFactsSameInMarkdownAndHTML(t *testing.T) {
	var b bytes.Buffer
	if err := report.WriteMarkdown(&b, noGPURun()); err != nil {
		t.Fatal(err)
	}
	md := b.String()
	page := textOf(parse(t, renderHTML(t, noGPURun())))
	for _, want := range []string{
		"no NVIDIA driver found (libnvidia-ml.so.1)",
		"Intel Xeon E5-2680 v4 (14 cores, 28 threads)",
		"64.0 GiB",
		"Debian 12.11 (kernel 6.18.44-fc-v782, x86_64)",
	} {
		// Markdown escapes the underscore of x86_64; it renders the same.
		if esc := strings.ReplaceAll(want, "_", `\_`); !strings.Contains(md, esc) {
			t.Errorf("Markdown lacks %q", esc)
		}
		if !strings.Contains(page, want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	if !strings.Contains(md, `| OS | Debian 12.11 (kernel 6.18.44-fc-v782, x86\_64) |`) {
		t.Errorf("Markdown OS row is not the labelled one:\n%s", md)
	}
	if !strings.Contains(string(renderHTML(t, noGPURun())), "<dt>GPU</dt><dd>no NVIDIA driver found") {
		t.Error("HTML does not give the reason the run records for having no GPU")
	}
	// A run without a snapshot says so, and claims nothing about the machine.
	r := noGPURun()
	r.Hardware = nil
	raw := string(renderHTML(t, r))
	if !strings.Contains(raw, "<dt>GPU</dt><dd>not recorded</dd>") || strings.Contains(raw, "<dt>CPU</dt>") {
		t.Errorf("HTML of a run without hardware: want GPU not recorded and no CPU line")
	}
}

package rundoc_test

import (
	"bytes"
	"encoding/json"
	"reflect"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// jsonioFullRun is a run with every field of the document set, so the
// round-trip tests cover each one (TestJSONIOFixtureIsComplete keeps it so
// when a field is added).
func jsonioFullRun() *rundoc.Run {
	start := time.Date(2025, 11, 29, 14, 3, 7, 123456789, time.UTC)
	return &rundoc.Run{
		Schema:     rundoc.Schema,
		UUID:       "0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c",
		Name:       "3060 fp8 <baseline> & co",
		Tags:       []string{"baseline", "fp8"},
		Notes:      "gpu-memory-utilization 0.92\nsecond line",
		Status:     rundoc.RunComplete,
		CreatedAt:  start,
		FinishedAt: start.Add(31 * time.Minute),
		Origin:     rundoc.OriginMeasured,
		Simulated:  true,
		Plan: rundoc.Plan{
			Contexts: []int{0, 16384}, Concurrency: []int{1, 2}, PrefillContexts: []int{8192},
			DurationS: 30, MaxOutput: 8192, KVCapacityOverride: 100000, SimSpeed: 20, AcceptLenRef: 3,
			Window: rundoc.WindowAuto, Precision: 0.01, WindowOpens: rundoc.OpensSteady, Prompts: rundoc.PromptsShared,
			Burst: rundoc.BurstAfter, RequestCount: 8, BurstLimitS: 600,
		},
		Hardware: &hardware.Snapshot{
			GPUs: []hardware.GPU{{
				Index: 0, Name: "NVIDIA GeForce RTX 3060", UUID: "GPU-1234", VRAMTotalBytes: 12 << 30,
				VRAMUsedBytes: 1 << 30, VRAMFreeBytes: 11 << 30, ComputeCapability: "8.6",
				PowerLimitW: 170, PowerLimitDefaultW: 170, PowerLimitMaxW: 212, PCIeGen: 4, PCIeGenMax: 4,
				PCIeWidth: 16, PCIeWidthMax: 16, MemoryBusWidthBits: 192, MemoryClockMaxMHz: 7501,
				MemoryBandwidthGBs: 360.048, Unsupported: []string{"pcie_gen"},
			}},
			GPUAbsentReason:   "partial: one field unsupported",
			DriverVersion:     "580.95.05",
			CUDADriverVersion: "13.0",
			CPU:               hardware.CPU{Model: "AMD Ryzen 7 5800X", PhysicalCores: 8, LogicalCores: 16},
			Memory:            hardware.Memory{TotalBytes: 64 << 30, AvailableBytes: 50 << 30},
			OS:                hardware.OS{Name: "Ubuntu 24.04", Version: "24.04", Kernel: "6.8.0", Arch: "amd64"},
			Topology:          []hardware.GPULink{{A: 0, B: 1, Path: hardware.PathNVLink, Code: "NV4", NVLinks: 4, P2P: hardware.P2POK}},
		},
		Launch: &rundoc.Launch{
			Image: "vllm/vllm-openai:v0.11.0", Model: "org/model", Args: []string{"--max-model-len", "32768"},
			ServeCommand: "vllm serve org/model --max-model-len 32768", DockerCommand: "docker run … -e HF_TOKEN=<token>",
			GPUs: "all", CompileCache: "/home/me/.local/share/rigbench/compile-cache",
			Startup: &rundoc.Startup{LoadS: 61.5, WeightsS: 32.97, CompileS: 4.19, GraphCaptureS: 12, CompileCacheHit: true},
			Cluster: &rundoc.Cluster{Rigs: []string{"ssh://a", "ssh://b"}, TP: 1, PP: 2, Interface: "enp1s0",
				Link: &rundoc.ClusterLink{Gbps: 9.41, RTTUS: 120, Rig: "ssh://b", Tool: "python3 over sockets in the image"}, HiddenSize: 2560, GPUs: []int{1, 1}},
		},
		Rig: &rundoc.Rig{Kind: rundoc.RigSSH, Name: "ssh://basement:2222"},
		Source: &rundoc.Source{Format: rundoc.SourceLDB, WrittenBy: "llm_decode_bench 0.4.29", ServerKnown: true,
			File: json.RawMessage(`{"metadata":{"version":"0.4.29","runtime":{"ForceP2P":""}},"results":[]}`)},
		Server: rundoc.Server{
			Model: "org/model", Engine: "vllm", Version: "0.11.0", MaxModelLen: 32768,
			KVCapacityTokens: 120000, KVCapacitySource: rundoc.KVSourceMetrics, HasMetrics: true, HasTokenize: true,
			ServerFacts: rundoc.ServerFacts{Personality: "vllm", Slots: 4, KVUnified: true, NotReported: []string{rundoc.NotReportedDecodeTime},
				Roofline: &rundoc.Roofline{WeightsGiB: 4.61, WeightsSource: rundoc.RooflineLog, KVBytesPerToken: 8192,
					KVBytesSource: rundoc.RooflineLog, PeakBandwidthGBs: 360.048, BandwidthSource: rundoc.RooflineHardware,
					Speculative: true, Missing: []string{rundoc.RooflineMissingWeights}}},
		},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid,
				PromptTokS: 2341.25, PromptTokens: 8388, TTFTMs: 3583.1, CompletedRequests: 1, StartedAt: start.Add(time.Second)},
			{
				Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusQueued, Reason: "waiting > 0",
				TotalTokS: 94.5, PerRequestTokS: 47.3, TTFTMs: 264, TBTMs: 21.2, TTFTP90Ms: 300.5, TTFTP99Ms: 320.25,
				TBTP90Ms: 25.1, TBTP99Ms: 30.7, AvgActive: 1.93,
				PromptTokSCI95: 1.5, TotalTokSCI95: 0.85, PerRequestTokSCI95: 0.4, TTFTMsCI95: 12.5, TBTMsCI95: 0.125, CompletedRequests: 3, OutputTokens: 2834, MeasuredS: 30.002,
				TokenCountSource: rundoc.TokensFinalUsage, ChunkTokens: 2700, TokenCountMismatch: true,
				ServerStats: &rundoc.ServerStats{Samples: 30, RunningMean: 1.9, WaitingMax: 1, KVUsageMean: 0.1,
					KVUsageMax: 0.15, PrefixHitRate: 0.99, Preemptions: 2},
				GPUStats: &hardware.GPUStats{Samples: 30, PowerMeanW: 160.5, PowerMaxW: 171, SMClockMeanMHz: 1800,
					SMClockMaxMHz: 1852, MemClockMeanMHz: 7500, TempMeanC: 65, TempMaxC: 70, UtilGPUMean: 98,
					UtilMemMean: 80, VRAMUsedMax: 11 << 30, Throttled: []string{"power cap"},
					EnergyMeanW: 158.2, EnergySource: hardware.EnergyFromCounter,
					PerGPU: []hardware.GPUPower{{GPU: 0, PowerMeanW: 90, PowerMaxW: 95, TempMaxC: 70, EnergyMeanW: 89, EnergyJPerToken: 0.95},
						{GPU: 1, PowerMeanW: 70.5, PowerMaxW: 76, TempMaxC: 66, EnergyMeanW: 69.2, EnergyJPerToken: 0.75}}},
				EnergyJPerToken: 1.7, RooflinePct: 63.5,
				ServerSamples: []rundoc.ServerSample{{T: -0.004, Running: 1, Waiting: 1, KVUsage: rundoc.Reported(0.05, true), PrefixCacheQueries: rundoc.Reported(4, true),
					PrefixCacheHits: rundoc.Reported(3, true), Preemptions: rundoc.Reported(1, true)}, {T: 1, Running: 2, Waiting: 1, KVUsage: rundoc.Reported(0.1, true),
					PrefixCacheQueries: rundoc.Reported(10, true), PrefixCacheHits: rundoc.Reported(9, true), Preemptions: rundoc.Reported(1, true)}},
				GPUSamples: []hardware.GPUSample{{T: 1, GPU: 0, PowerW: 160, SMClockMHz: 1800, MemClockMHz: 7500, TempC: 65,
					UtilGPU: 98, UtilMem: 80, VRAMUsedBytes: 11 << 30, Throttle: []string{"power cap"}, EnergyJ: 123456.789}},
				StartedAt: start.Add(time.Minute), WindowStart: start.Add(time.Minute + 2*time.Second),
				PromptTokS: 5000, PromptTokens: 12,
				CellChecks: rundoc.CellChecks{RetriedRequests: 2, NeverStarted: 1, EndedByLength: 1, IdleWaitS: 0.25,
					ServerOutputTokens: 2840, CheckedOutputTokens: 2834, ServerTokenDiffPct: rundoc.Reported(0.21, true), ServerPromptTokens: 24,
					ServerDecodeS: 59.5, ServerDecodeTokS: 47.7, ServerPrefillS: 0.0115, ServerPromptTokS: 2087.5},
				CellWindow: rundoc.CellWindow{RampS: 11.5, Readiness: "streams_with_tokens=2/2, running_reqs=2/2, queue_reqs=0",
					WarmupTimedOut: true, ChunkGapMs: 20.25, ClientCPUPct: 37.5, PerRequestTokSWindow: 31.4, TBTMsWindow: 31.85, ClientLagS: 0.125},
				CellSpec: rundoc.CellSpec{SpecDrafts: 1200, SpecDraftTokens: 2400, SpecAcceptedTokens: 1560, SpecOutputTokens: 2834,
					SpecAcceptRate: 0.65, SpecAcceptLength: 2.3, SpecPosAccept: []float64{0.78, 0.52}, EngineSteps: 1274,
					SpecAcceptLengthEff: 2.2245, StepsPerS: 42.5, StepsPerSCI95: 0.4, ProjectedTokS: 127.5},
				// A decode cell has no burst figures; here they only cover the round trip.
				CellBurst: rundoc.CellBurst{RequestCount: 8, WarmupRequests: 2, LatencyMs: 5012.5, LatencyMsCI95: 40.25, LatencyP90Ms: 5300,
					LatencyP99Ms: 5400.5, LatencyMeanMs: 5050.75, RequestsPerS: 0.39, RequestsPerSCI95: 0.015},
			},
		},
		Error: "none, really",
		// A quality check whose top-k maps are keyed by token texts, which
		// no RigBench key spells so.
		Quality: &rundoc.Quality{Probe: "agreement", Error: "a later retry failed",
			Result: json.RawMessage(`{"kind":"rigbench.quality/v1","probe":"agreement","prompts":[{"id":"a","tokens":[" The"],"top_logprobs":[{" The":-0.1,"A":-2.5}]}]}`),
			Baseline: &rundoc.QualityBaseline{RunID: "c0ffee00-0000-4000-8000-000000000001", Label: "your flags", Error: "none",
				Comparison: json.RawMessage(`{"prompts":1,"prefix_share":1}`)}},
	}
}

// TestJSONIOFixtureIsComplete fails when the run document gains a field the
// fixture does not set, so every new field is covered by the round trip.
func TestJSONIOFixtureIsComplete(t *testing.T) {
	t.Parallel()
	var zero []string
	walkZero(reflect.ValueOf(*jsonioFullRun()), "run", &zero)
	// Index 0 and GPU 0 are real values that happen to be zero.
	// Cells[0] is a prefill cell, whose decode figures stay zero; Cells[1]
	// sets every cell field.
	allowed := map[string]bool{"run.Hardware.GPUs[0].Index": true, "run.Plan.Contexts[0]": true,
		"run.Cells[1].Context": true, "run.Cells[1].GPUSamples[0].GPU": true, "run.Cells[1].GPUStats.PerGPU[0].GPU": true, "run.Hardware.Topology[0].A": true}
	for _, z := range zero {
		if !allowed[z] && !strings.HasPrefix(z, "run.Cells[0].") {
			t.Errorf("the fixture leaves %s zero; set it so the round trip covers it", z)
		}
	}
}

func walkZero(v reflect.Value, path string, out *[]string) {
	switch v.Kind() {
	case reflect.Struct:
		if v.Type() == reflect.TypeOf(time.Time{}) {
			if v.Interface().(time.Time).IsZero() {
				*out = append(*out, path)
			}
			return
		}
		for i := 0; i < v.NumField(); i++ {
			if v.Type().Field(i).Tag.Get("json") == "-" {
				continue // not part of the document (e.g. Plan.TrimContexts)
			}
			walkZero(v.Field(i), path+"."+v.Type().Field(i).Name, out)
		}
	case reflect.Pointer:
		if v.IsNil() {
			*out = append(*out, path)
			return
		}
		walkZero(v.Elem(), path, out)
	case reflect.Slice:
		if v.Len() == 0 {
			*out = append(*out, path)
		}
		for i := 0; i < v.Len(); i++ {
			walkZero(v.Index(i), path+"["+strconv.Itoa(i)+"]", out)
		}
	default:
		if v.IsZero() {
			*out = append(*out, path)
		}
	}
}

func TestWriteReadWriteByteIdentical(t *testing.T) {
	t.Parallel()
	run := jsonioFullRun()
	var first bytes.Buffer
	if err := rundoc.WriteRun(&first, run); err != nil {
		t.Fatal(err)
	}
	back, err := rundoc.ReadRun(bytes.NewReader(first.Bytes()))
	if err != nil {
		t.Fatalf("ReadRun of our own export: %v", err)
	}
	if !reflect.DeepEqual(back, run) {
		t.Errorf("read back differs from the original:\n got %+v\nwant %+v", back, run)
	}
	var second bytes.Buffer
	if err := rundoc.WriteRun(&second, back); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(first.Bytes(), second.Bytes()) {
		t.Errorf("export → import → export differs:\n%s\n---\n%s", first.String(), second.String())
	}
	for _, want := range []string{"\n  \"schema\": \"rigbench.run/v1\",\n", "<baseline> & co", "\"created_at\": \"2025-11-29T14:03:07.123456789Z\""} {
		if !strings.Contains(first.String(), want) {
			t.Errorf("export lacks %q", want)
		}
	}
	if !strings.HasSuffix(first.String(), "}\n") {
		t.Error("export does not end in a newline")
	}
}

func TestWriteRunNormalizes(t *testing.T) {
	t.Parallel()
	run := jsonioFullRun()
	run.CreatedAt = run.CreatedAt.In(time.FixedZone("CET", 3600))
	run.Cells = nil
	run.Hardware.GPUs = nil
	var b bytes.Buffer
	if err := rundoc.WriteRun(&b, run); err != nil {
		t.Fatal(err)
	}
	s := b.String()
	for _, want := range []string{`"created_at": "2025-11-29T14:03:07.123456789Z"`, `"cells": []`, `"gpus": []`} {
		if !strings.Contains(s, want) {
			t.Errorf("export lacks %s", want)
		}
	}
	if run.Hardware.GPUs != nil || run.CreatedAt.Location().String() != "CET" {
		t.Error("WriteRun modified its argument")
	}
}

func TestReadRunRejects(t *testing.T) {
	t.Parallel()
	var good bytes.Buffer
	if err := rundoc.WriteRun(&good, jsonioFullRun()); err != nil {
		t.Fatal(err)
	}
	doc := good.String()
	edit := func(old, new string) string {
		if !strings.Contains(doc, old) {
			t.Fatalf("fixture export lacks %q", old)
		}
		return strings.Replace(doc, old, new, 1)
	}
	cases := []struct{ name, in, want string }{
		{"empty", "", "not valid JSON"},
		{"not json", "phase,context\n", "not valid JSON"},
		{"no schema", `{"uuid":"x"}`, `no "schema"`},
		{"other schema", `{"schema":"rigbench.run/v2"}`, `"rigbench.run/v2"`},
		{"unknown field", edit(`"name":`, `"nmae": "x", "name":`), "nmae"},
		{"bad uuid", edit(`"0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c"`, `"../../etc"`), "uuid"},
		{"bad run status", edit(`"status": "complete"`, `"status": "done"`), `run status "done"`},
		{"bad origin", edit(`"origin": "measured"`, `"origin": "mars"`), "origin"},
		{"no created", edit(`"created_at": "2025-11-29T14:03:07.123456789Z",`, ``), "created_at"},
		{"bad phase", edit(`"phase": "decode"`, `"phase": "warmup"`), `phase "warmup"`},
		{"bad cell status", edit(`"status": "Requests queued"`, `"status": "Great"`), `cells[1] (decode 0×2): status "Great"`},
		{"negative figure", edit(`"total_tok_s": 94.5`, `"total_tok_s": -94.5`), "total_tok_s is -94.5"},
		{"huge figure", edit(`"total_tok_s": 94.5`, `"total_tok_s": 1e300`), "total_tok_s"},
		{"zero concurrency", edit(`"concurrency": 2,`, `"concurrency": 0,`), "concurrency is 0"},
		{"wrong type", edit(`"context": 0,`, `"context": "0",`), "malformed"},
		{"bad kv source", edit(`"kv_capacity_source": "metrics"`, `"kv_capacity_source": "guess"`), "kv_capacity_source"},
		{"bad rig kind", edit(`"kind": "ssh"`, `"kind": "k8s"`), `rig.kind "k8s"`},
		{"no rig name", edit(`"name": "ssh://basement:2222"`, `"name": ""`), "rig.name is missing"},
		{"two documents", doc + doc, "more than one"},
		// Issue 12: what encoding/json accepts silently.
		{"trailing brace", doc + "}", "more than one JSON value"},
		{"trailing bracket", doc + "]\n", "more than one JSON value"},
		{"duplicate key", edit(`"name":`, `"name": "first", "name":`), `key "name" twice in the top level`},
		{"duplicate nested key", edit(`"model": "org/model",
    "engine"`, `"model": "a", "model": "org/model",
    "engine"`), `key "model" twice in server`},
		{"upper-case key", edit(`"name":`, `"Name":`), `key "Name" in the top level`},
		{"upper-case nested key", edit(`"arch":`, `"ARCH":`), `key "ARCH" in hardware.os`},
		{"json list", "[" + doc + "]", "JSON list, not one run"},
		{"huge os name", edit(`"name": "Ubuntu 24.04"`, `"name": "`+strings.Repeat("u", 10<<20)+`"`), "hardware.os.name is 10485760 bytes long, at most 65536"},
		{"long os name", edit(`"name": "Ubuntu 24.04"`, `"name": "`+strings.Repeat("u", 300)+`"`), "hardware.os.name is 300 bytes long, at most 200"},
		{"long tag", edit(`"baseline"`, `"`+strings.Repeat("t", 80)+`"`), "tags[0] is 80 bytes long, at most 64"},
		{"finished before created", edit(`"finished_at": "2025-11-29T14:34:07.123456789Z"`, `"finished_at": "2020-01-01T00:00:00Z"`), "before created_at"},
		{"duplicate cell", edit(`"phase": "decode",
      "context": 0,
      "concurrency": 2`, `"phase": "prefill",
      "context": 8192,
      "concurrency": 1`), "repeats"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := rundoc.ReadRun(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

// TestReadRunAcceptsBOM: a UTF-8 byte-order mark, which some editors
// write, costs nothing to skip (issue 12).
func TestReadRunAcceptsBOM(t *testing.T) {
	t.Parallel()
	var good bytes.Buffer
	if err := rundoc.WriteRun(&good, jsonioFullRun()); err != nil {
		t.Fatal(err)
	}
	r, err := rundoc.ReadRun(strings.NewReader("\xef\xbb\xbf" + good.String()))
	if err != nil || r.UUID != jsonioFullRun().UUID {
		t.Fatalf("a run after a BOM: %v", err)
	}
}

// TestReadRunLimits: import refuses what no real run has, with a sentence
// naming the limit (issue 12: 60,000 contexts made the HTML report run for
// hours).
func TestReadRunLimits(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name     string
		edit     func(r *rundoc.Run)
		want     string
		inMemory bool
	}{
		{"contexts", func(r *rundoc.Run) {
			r.Cells = nil
			for c := range rundoc.MaxContexts + 1 {
				r.Cells = append(r.Cells, rundoc.Cell{Phase: rundoc.PhaseDecode, Context: c, Concurrency: 1, Status: rundoc.StatusFailed})
			}
		}, "1001 distinct contexts; RigBench reads at most 1000", false},
		{"cells", func(r *rundoc.Run) {
			r.Cells = nil
			for n := range rundoc.MaxCells + 1 {
				r.Cells = append(r.Cells, rundoc.Cell{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: n + 1, Status: rundoc.StatusFailed})
			}
		}, "10001 cells; RigBench reads at most 10000", true},
		{"plan contexts", func(r *rundoc.Run) {
			r.Plan.Contexts = make([]int, rundoc.MaxContexts+1)
		}, "plan.contexts has 1001 entries; RigBench reads at most 1000", false},
		{"samples", func(r *rundoc.Run) {
			r.Cells[1].ServerSamples = make([]rundoc.ServerSample, rundoc.MaxSamples+1)
		}, "server_samples has 100001 entries; RigBench reads at most 100000", true},
		{"gpus", func(r *rundoc.Run) {
			r.Hardware.GPUs = make([]hardware.GPU, rundoc.MaxGPUs+1)
		}, "hardware.gpus has 65 entries; RigBench reads at most 64", false},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			r := jsonioFullRun()
			tc.edit(r)
			// ReadRun validates with ValidateRun; the largest cases (a
			// 12 MB file of samples) are checked in memory only, where
			// they take no seconds.
			err := rundoc.ValidateRun(r)
			if !tc.inMemory {
				var buf bytes.Buffer
				if err := rundoc.WriteRun(&buf, r); err != nil {
					t.Fatal(err)
				}
				_, err = rundoc.ReadRun(&buf)
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one saying %q", err, tc.want)
			}
		})
	}
}

func TestReadRunSizeLimit(t *testing.T) {
	t.Parallel()
	big := `{"schema":"rigbench.run/v1","notes":"` + strings.Repeat("x", rundoc.MaxRunJSONBytes) + `"}`
	_, err := rundoc.ReadRun(strings.NewReader(big))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v, want a size error", err)
	}
}

func FuzzReadRun(f *testing.F) {
	var good bytes.Buffer
	if err := rundoc.WriteRun(&good, jsonioFullRun()); err != nil {
		f.Fatal(err)
	}
	f.Add(good.Bytes())
	f.Add([]byte(`{"schema":"rigbench.run/v1","uuid":"0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c","status":"running","created_at":"2025-01-01T00:00:00Z","plan":{"contexts":null,"concurrency":null,"prefill_contexts":null,"duration_s":0,"max_output":0},"server":{"model":"","kv_capacity_source":"","has_metrics":false,"has_tokenize":false},"cells":null}`))
	f.Add([]byte(`{"schema":"rigbench.run/v1","cells":[{"phase":"decode","context":1e99}]}`))
	f.Add([]byte(`[]`))
	// What issue 12 found accepted or refused wrongly.
	f.Add(append([]byte("\xef\xbb\xbf"), good.Bytes()...))
	f.Add(append(bytes.Clone(good.Bytes()), '}'))
	f.Add(bytes.Replace(good.Bytes(), []byte(`"name":`), []byte(`"name": "a", "Name":`), 1))
	f.Fuzz(func(t *testing.T, in []byte) {
		run, err := rundoc.ReadRun(bytes.NewReader(in))
		if err != nil {
			return
		}
		// Anything accepted must export, re-import and export the same.
		var a, b bytes.Buffer
		if err := rundoc.WriteRun(&a, run); err != nil {
			t.Fatal(err)
		}
		back, err := rundoc.ReadRun(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("our own export of an accepted run is rejected: %v\n%s", err, a.String())
		}
		if err := rundoc.WriteRun(&b, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("export → import → export differs:\n%s\n---\n%s", a.String(), b.String())
		}
	})
}

// TestTooManyCellsRefusedWhileReading: an import of 399,999 cells took
// 807 MB and 14 s before it was refused (issue 36 item 10); the count is
// checked while the file is walked, before any cell is decoded.
func TestTooManyCellsRefusedWhileReading(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"schema":"rigbench.run/v1","cells":[`)
	for i := range rundoc.MaxCells + 1 {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(`{"phase":"decode"}`)
	}
	b.WriteString(`]}`)
	_, err := rundoc.ReadRun(strings.NewReader(b.String()))
	if err == nil || !strings.Contains(err.Error(), "more than 10000 cells") {
		t.Errorf("ReadRun of %d cells: %v", rundoc.MaxCells+1, err)
	}
}

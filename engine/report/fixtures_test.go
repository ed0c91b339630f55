package report_test

import (
	"os"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// sharedReference is the published RTX 3060 run; tests that need it skip
// with a message when the shared folder is absent.
const sharedReference = "testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

// reference loads the reference run with the facts a CSV does not carry
// fixed, so golden files are stable.
func reference(t testing.TB) *rundoc.Run {
	t.Helper()
	f, err := os.Open(sharedReference)
	if err != nil {
		t.Fatalf("reference run not available (%v)", err)
	}
	defer f.Close()
	r, err := report.ReadReferenceCSVNamed(f, "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv")
	if err != nil {
		t.Fatalf("read reference: %v", err)
	}
	r.CreatedAt = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	r.Launch = &rundoc.Launch{
		Image: "vllm/vllm-openai:v0.32.0", Model: "agents-a1-4b-fp8",
		Args:          []string{"--max-model-len", "262144", "--gpu-memory-utilization", "0.92"},
		ServeCommand:  "vllm serve agents-a1-4b-fp8 --max-model-len 262144 --gpu-memory-utilization 0.92",
		DockerCommand: "docker run --gpus all -e HF_TOKEN=<redacted> -p 127.0.0.1:8000:8000 vllm/vllm-openai:v0.32.0 agents-a1-4b-fp8",
	}
	return r
}

// tuned is the reference run with prefix caching on and every figure
// scaled by 1.25 (TTFT divided), so each change is +25% (TTFT −20%).
func tuned(t testing.TB, base *rundoc.Run) *rundoc.Run {
	t.Helper()
	v := *base
	v.UUID, v.Name = "tuned-run", "tuned"
	v.Cells = append([]rundoc.Cell(nil), base.Cells...)
	for i := range v.Cells {
		c := &v.Cells[i]
		c.TotalTokS *= 1.25
		c.PerRequestTokS *= 1.25
		c.PromptTokS *= 1.25
		c.TTFTMs /= 1.25
	}
	l := *base.Launch
	l.Args = append(append([]string(nil), l.Args...), "--enable-prefix-caching")
	v.Launch = &l
	v.Hardware = &hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3090", PowerLimitW: 350}}, DriverVersion: "570.86"}
	return &v
}

// hostile is a small run whose every free-text field holds markup that
// must come out as text.
func hostile() *rundoc.Run {
	payload := `<script>alert("x")</script><img src=x onerror=alert(1)>`
	return &rundoc.Run{
		Schema: rundoc.Schema, UUID: "hostile", Name: "name " + payload,
		Notes: "notes " + payload, Tags: []string{"tag " + payload}, Simulated: true,
		Status: rundoc.RunComplete, CreatedAt: time.Date(2025, 1, 2, 3, 4, 0, 0, time.UTC),
		Server: rundoc.Server{Model: "model " + payload, Engine: "simulated", Version: `1.0"><svg onload=alert(1)>`, KVCapacitySource: rundoc.KVSourceUnknown},
		Launch: &rundoc.Launch{Model: "model", ServeCommand: "vllm serve " + payload},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 2000, TTFTMs: 4096, PromptTokens: 8192},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 50, TTFTMs: 160},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed, Reason: "reason " + payload},
		},
	}
}

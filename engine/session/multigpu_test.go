package session_test

import (
	"bytes"
	"context"
	"sync"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
)

// A two-GPU run against the two-card simulator profile with tensor
// parallelism, its telemetry read from the stand-in nvidia-smi of the same
// profile, as on a rig: the server sizes its KV over both cards, and every
// decode cell has samples of both GPUs and its energy split per GPU.
func TestTwoGPURunOnTheTwoCardProfile(t *testing.T) {
	cfg, err := sim.ParseArgs([]string{"--profile", "rtx3060-12gb-x2", "--tensor-parallel-size", "2", "--speed", "10"})
	if err != nil {
		t.Fatal(err)
	}
	single, err := sim.ParseArgs([]string{"--profile", "rtx3060-12gb-x2"})
	if err != nil {
		t.Fatal(err)
	}
	_, kvOne, _ := sim.Facts(single)
	_, kvTwo, _ := sim.Facts(cfg)
	if kvOne == 0 || kvTwo < 2*kvOne {
		t.Fatalf("KV with TP 2 %d, with TP 1 %d: want more than twice", kvTwo, kvOne)
	}
	var mu sync.Mutex
	read := func() ([]hardware.GPUSample, error) {
		mu.Lock()
		defer mu.Unlock()
		var out, errb bytes.Buffer
		getenv := func(k string) string {
			if k == sim.ProfileEnv {
				return "rtx3060-12gb-x2"
			}
			return ""
		}
		if code := sim.NvidiaSMI(hardware.NvidiaSMITelemetryArgs(true)[1:], getenv, &out, &errb); code != 0 {
			t.Errorf("nvidia-smi exit %d: %s", code, errb.String())
		}
		return hardware.ParseNvidiaSMISamples(out.String(), true)
	}
	tel := probe.NewSampler(probe.WithReadings(read), probe.WithInterval(100*time.Millisecond))
	if err := tel.Start(context.Background()); err != nil {
		t.Fatal(err)
	}
	defer tel.Stop()
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 4}, PrefillContexts: []int{1024}, DurationS: 5, MaxOutput: 128}
	run, err := session.Run(context.Background(), session.Options{Kind: session.Demo, Sim: cfg, Plan: plan, Hardware: noGPU,
		Telemetry: tel})
	if err != nil {
		t.Fatal(err)
	}
	if run.Server.KVCapacityTokens != kvTwo {
		t.Errorf("the server reports %d tokens of KV, want TP 2's %d", run.Server.KVCapacityTokens, kvTwo)
	}
	decode := 0
	for _, c := range run.Cells {
		if c.Phase != rundoc.PhaseDecode || !c.Status.Ran() {
			continue
		}
		decode++
		gpus := map[int]bool{}
		for _, s := range c.GPUSamples {
			gpus[s.GPU] = true
		}
		st := c.GPUStats
		if len(gpus) != 2 || st == nil || len(st.PerGPU) != 2 || st.EnergySource != hardware.EnergyFromCounter {
			t.Errorf("cell %d×%d: GPUs %v, stats %+v; want both GPUs, counted and split", c.Context, c.Concurrency, gpus, st)
			continue
		}
		if sum := st.PerGPU[0].EnergyJPerToken + st.PerGPU[1].EnergyJPerToken; c.EnergyJPerToken <= 0 || sum < c.EnergyJPerToken*0.99 || sum > c.EnergyJPerToken*1.01 {
			t.Errorf("cell %d×%d: per GPU %v + %v J/token, the cell %v: the shares must add up", c.Context, c.Concurrency,
				st.PerGPU[0].EnergyJPerToken, st.PerGPU[1].EnergyJPerToken, c.EnergyJPerToken)
		}
	}
	if decode == 0 {
		t.Errorf("no decode cell ran: %+v", run.Cells)
	}
}

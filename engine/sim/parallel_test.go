package sim

import (
	"math"
	"strings"
	"testing"
)

func startArgs(t *testing.T, args ...string) *Server {
	t.Helper()
	c, err := ParseArgs(args)
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(c)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(s.Close)
	return s
}

// Two cards hold the weights once between them and each its own
// activations, other memory and communication buffers: the KV cache is
// 2 × (util × M − A − O − overhead) − W, in whole blocks.
func TestTensorParallelKVCapacity(t *testing.T) {
	one := startArgs(t, "--profile", "rtx3060-12gb-x2")
	two := startArgs(t, "--profile", "rtx3060-12gb-x2", "--tensor-parallel-size", "2")
	if single := startArgs(t); one.KVCapacityTokens() != single.KVCapacityTokens() {
		t.Errorf("TP 1 on the two-card profile holds %d tokens, one card %d: vLLM uses one card unless told",
			one.KVCapacityTokens(), single.KVCapacityTokens())
	}
	p := DefaultProfile()
	avail := (2*(0.9*p.GPUMemoryGiB-p.ActivationGiB-p.OtherGiB-tpOverheadGiB) - p.WeightsGiB) * giB
	want := int(math.Floor(avail/float64(p.KVBytesPerToken*p.BlockSize))) * p.BlockSize
	if two.KVCapacityTokens() != want {
		t.Errorf("TP 2 holds %d tokens, want %d", two.KVCapacityTokens(), want)
	}
	if r := float64(two.KVCapacityTokens()) / float64(one.KVCapacityTokens()); r < 2 {
		t.Errorf("TP 2 holds %.2f× one card's KV: the freed weights should put it above 2×", r)
	}
	var log strings.Builder
	two.WriteStartupLog(&log)
	for _, w := range []string{"'tensor_parallel_size': 2", "rank 1 in world size 2", "(Worker_TP1 pid=101)",
		"GPU KV cache size: " + commas(want) + " tokens"} {
		if !strings.Contains(log.String(), w) {
			t.Errorf("the start-up log lacks %q:\n%s", w, log.String())
		}
	}
}

// Tensor parallelism divides a step's work by the cards and adds the
// link's all-reduces: decode speeds up below 2×, more over NVLink than
// over PCIe, and a long prefill nearly 2×.
func TestTensorParallelStepTimes(t *testing.T) {
	cost := func(link Link, tp int, work []chunk) float64 {
		p := dualRTX3060Profile()
		p.Link = link
		q, err := parallelProfile(p, tp, 1)
		if err != nil {
			t.Fatal(err)
		}
		return (&core{prof: q}).stepCost(work)
	}
	decode := []chunk{{start: 1024, n: 1}}
	one := cost(LinkPCIe, 1, decode)
	pcie, nvlink := one/cost(LinkPCIe, 2, decode), one/cost(LinkNVLink, 2, decode)
	if !(pcie > 1 && pcie < nvlink && nvlink < 2) {
		t.Errorf("decode speed-up PCIe %.2f×, NVLink %.2f×: want 1 < PCIe < NVLink < 2", pcie, nvlink)
	}
	// The published 2×RTX 3090 run: one stream over NVLink at 1.25× the
	// rate over PCIe (docs/simulator.md).
	if r := nvlink / pcie; math.Abs(r-1.25) > 0.03 {
		t.Errorf("NVLink decodes one stream %.3f× as fast as PCIe, want about 1.25", r)
	}
	prefill := []chunk{{start: 0, n: 2048}}
	if s := cost(LinkPCIe, 1, prefill) / cost(LinkPCIe, 2, prefill); !(s > 1.5 && s < 2) {
		t.Errorf("a 2048-token prefill speeds up %.2f× over PCIe, want between 1.5 and 2", s)
	}
}

func TestParallelismBeyondTheCardsIsRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--tensor-parallel-size", "2"},
		{"--profile", "rtx3060-12gb-x2", "-tp", "2", "--pipeline-parallel-size", "2"},
	} {
		c, err := ParseArgs(args)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := New(c); err == nil || !strings.Contains(err.Error(), "larger than the number of available GPUs") {
			t.Errorf("%q: %v, want vLLM's refusal of a world size above the cards", args, err)
		}
	}
	// Pipeline parallelism splits the memory but not a step's time.
	pp := startArgs(t, "--profile", "rtx3060-12gb-x2", "--pipeline-parallel-size", "2")
	tp := startArgs(t, "--profile", "rtx3060-12gb-x2", "--tensor-parallel-size", "2")
	if pp.KVCapacityTokens() != tp.KVCapacityTokens() {
		t.Errorf("PP 2 holds %d tokens, TP 2 %d: both split the model over two cards", pp.KVCapacityTokens(), tp.KVCapacityTokens())
	}
}

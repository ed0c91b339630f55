package predict

import (
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/hardware"
)

// Card is one NVIDIA card model as its data sheet gives it.
type Card struct {
	// Name is the name NVML reports ("NVIDIA GeForce RTX 3060").
	Name string `json:"name"`
	// MemoryGiB is the card's memory as NVML reports it (data sheets'
	// "12 GB" is 12 GiB on GeForce cards; HBM cards report a little less
	// than their nominal size).
	MemoryGiB float64 `json:"memory_gib"`
	// BandwidthGBs is the peak memory bandwidth in GB/s (10⁹ bytes/s).
	BandwidthGBs float64 `json:"bandwidth_gbs"`
	// TFLOPS is the data sheet's dense FP16 tensor throughput in 10¹²
	// FLOP/s (GeForce: with FP16 accumulate, the figure NVIDIA leads with;
	// never the sparse one). It only scales the compute terms of the time
	// model, and a card's efficiencies absorb what it gets wrong.
	TFLOPS float64 `json:"tflops"`
	// Source says where the figures come from.
	Source string `json:"source"`
}

// Sources of the known cards' figures.
const (
	sourceGeForce = "NVIDIA GeForce product page and architecture whitepaper"
	sourcePro     = "NVIDIA RTX professional data sheet"
	sourceDC      = "NVIDIA data-centre data sheet"
	// SourceDetected: the card was detected, its memory and bandwidth read
	// from NVML (or the rig's nvidia-smi).
	SourceDetected = "detected"
)

// knownCards are the cards users own, with data-sheet figures. Memory is
// NVML's total (MiB ÷ 1024); bandwidth and TFLOPS are the data sheet's.
var knownCards = []Card{
	// GeForce 20 (Turing).
	{"NVIDIA GeForce RTX 2060", 6, 336, 52, sourceGeForce},
	{"NVIDIA GeForce RTX 2060 12GB", 12, 336, 58, sourceGeForce},
	{"NVIDIA GeForce RTX 2070", 8, 448, 60, sourceGeForce},
	{"NVIDIA GeForce RTX 2080", 8, 448, 81, sourceGeForce},
	{"NVIDIA GeForce RTX 2080 Ti", 11, 616, 108, sourceGeForce},
	{"NVIDIA TITAN RTX", 24, 672, 130, sourceGeForce},
	// GeForce 30 (Ampere).
	{"NVIDIA GeForce RTX 3060", 12, 360, 51.2, sourceGeForce},
	{"NVIDIA GeForce RTX 3060 Ti", 8, 448, 64.8, sourceGeForce},
	{"NVIDIA GeForce RTX 3070", 8, 448, 81.3, sourceGeForce},
	{"NVIDIA GeForce RTX 3080", 10, 760, 119, sourceGeForce},
	{"NVIDIA GeForce RTX 3080 12GB", 12, 912, 122, sourceGeForce},
	{"NVIDIA GeForce RTX 3080 Ti", 12, 912, 136, sourceGeForce},
	{"NVIDIA GeForce RTX 3090", 24, 936, 142, sourceGeForce},
	{"NVIDIA GeForce RTX 3090 Ti", 24, 1008, 160, sourceGeForce},
	// GeForce 40 (Ada).
	{"NVIDIA GeForce RTX 4060", 8, 272, 60, sourceGeForce},
	{"NVIDIA GeForce RTX 4060 Ti", 8, 288, 88, sourceGeForce},
	{"NVIDIA GeForce RTX 4060 Ti 16GB", 16, 288, 88, sourceGeForce},
	{"NVIDIA GeForce RTX 4070", 12, 504, 117, sourceGeForce},
	{"NVIDIA GeForce RTX 4070 SUPER", 12, 504, 142, sourceGeForce},
	{"NVIDIA GeForce RTX 4070 Ti", 12, 504, 160, sourceGeForce},
	{"NVIDIA GeForce RTX 4070 Ti SUPER", 16, 672, 176, sourceGeForce},
	{"NVIDIA GeForce RTX 4080", 16, 717, 195, sourceGeForce},
	{"NVIDIA GeForce RTX 4080 SUPER", 16, 736, 209, sourceGeForce},
	{"NVIDIA GeForce RTX 4090", 24, 1008, 330, sourceGeForce},
	// GeForce 50 (Blackwell): NVIDIA gives "AI TOPS" (FP4, sparse); dense
	// FP16 is an eighth of it.
	{"NVIDIA GeForce RTX 5060 Ti", 16, 448, 95, sourceGeForce},
	{"NVIDIA GeForce RTX 5070", 12, 672, 124, sourceGeForce},
	{"NVIDIA GeForce RTX 5070 Ti", 16, 896, 176, sourceGeForce},
	{"NVIDIA GeForce RTX 5080", 16, 960, 225, sourceGeForce},
	{"NVIDIA GeForce RTX 5090", 32, 1792, 419, sourceGeForce},
	// RTX professional (Ampere, Ada, Blackwell).
	{"NVIDIA RTX A4000", 16, 448, 77, sourcePro},
	{"NVIDIA RTX A5000", 24, 768, 111, sourcePro},
	{"NVIDIA RTX A6000", 48, 768, 155, sourcePro},
	{"NVIDIA RTX 4000 Ada Generation", 20, 360, 107, sourcePro},
	{"NVIDIA RTX 5000 Ada Generation", 32, 576, 261, sourcePro},
	{"NVIDIA RTX 6000 Ada Generation", 48, 960, 364, sourcePro},
	{"NVIDIA RTX PRO 6000 Blackwell", 96, 1792, 504, sourcePro},
	// DGX Spark: one GB10 with 128 GB of memory shared with the CPU.
	{"NVIDIA GB10", 128, 273, 100, "NVIDIA DGX Spark data sheet"},
	// Data centre.
	{"NVIDIA A100-PCIE-40GB", 39.5, 1555, 312, sourceDC},
	{"NVIDIA A100-SXM4-80GB", 79.3, 2039, 312, sourceDC},
	{"NVIDIA H100 PCIe", 79.6, 2000, 756, sourceDC},
	{"NVIDIA H100 80GB HBM3", 79.19, 3352, 989, sourceDC},
	{"NVIDIA H200", 139.8, 4800, 989, sourceDC},
	{"NVIDIA B200", 178.4, 8000, 2250, sourceDC},
}

// Cards lists the known cards, in the table's order (by family and size).
func Cards() []Card { return append([]Card(nil), knownCards...) }

// FindCard looks a card up by name. It accepts NVML's name and the short
// names users type: "RTX 4090", "4090", "rtx3060", "4060 Ti". A name equal
// to a card's (case, spaces, dashes and the words NVIDIA, GeForce and RTX
// ignored) wins; else the card whose name the typed one contains, the
// longest such (NVML's "NVIDIA RTX PRO 6000 Blackwell Workstation
// Edition" is the RTX PRO 6000 Blackwell); else the one card whose name
// contains it. Several such cards ("H100": PCIe or HBM3) are an error
// listing them; none, an error pointing at the list.
func FindCard(name string) (Card, error) {
	want := normCard(name)
	if want == "" {
		return Card{}, fmt.Errorf("name a card, such as %q", "RTX 4090")
	}
	var inside []Card
	var best Card
	for _, c := range knownCards {
		n := normCard(c.Name)
		if n == want {
			return c, nil
		}
		if strings.Contains(want, n) && len(n) > len(normCard(best.Name)) {
			best = c
		}
		if strings.Contains(n, want) {
			inside = append(inside, c)
		}
	}
	switch {
	case best.Name != "":
		return best, nil
	case len(inside) == 1:
		return inside[0], nil
	case len(inside) == 0:
		return Card{}, fmt.Errorf("RigBench does not know the card %q: 'rigbench-cli predict --list-cards' lists the ones it knows", name)
	}
	names := make([]string, len(inside))
	for i, h := range inside {
		names[i] = h.Name
	}
	return Card{}, fmt.Errorf("%q could be %s: give the full name", name, strings.Join(names, ", "))
}

// normCard is a card name without vendor and family words, spaces, dashes
// and case.
func normCard(s string) string {
	s = strings.ToLower(s)
	for _, w := range []string{"nvidia", "geforce", "rtx"} {
		s = strings.ReplaceAll(s, w, "")
	}
	return separators.Replace(s)
}

// separators are what normCard drops (built once: a Replacer's first use
// builds its tables).
var separators = strings.NewReplacer(" ", "", "-", "", "_", "")

// DetectedCard is a card as the hardware snapshot reports it: NVML's (or
// the rig's nvidia-smi's) name, memory and bandwidth, and the data
// sheet's TFLOPS when the card is known. It is the first GPU's, and cards
// counts the GPUs of that name (a rig of mixed cards is predicted on its
// first card's kind). ok is false without a GPU, or with one whose memory
// or bandwidth neither NVML nor the data sheet gives.
func DetectedCard(snap *hardware.Snapshot) (c Card, cards int, ok bool) {
	if snap == nil || len(snap.GPUs) == 0 {
		return Card{}, 0, false
	}
	g := snap.GPUs[0]
	c = Card{Name: g.Name, MemoryGiB: float64(g.VRAMTotalBytes) / (1 << 30), BandwidthGBs: g.MemoryBandwidthGBs, Source: SourceDetected}
	known, err := FindCard(g.Name)
	if err == nil {
		c.TFLOPS = known.TFLOPS
		// What NVML did not report (a bus width or clock; the memory of a
		// GB10, which shares it with the CPU) is the data sheet's.
		if c.BandwidthGBs <= 0 {
			c.BandwidthGBs = known.BandwidthGBs
		}
		if c.MemoryGiB <= 0 {
			c.MemoryGiB = known.MemoryGiB
		}
	}
	for _, o := range snap.GPUs {
		if o.Name == g.Name {
			cards++
		}
	}
	return c, cards, c.MemoryGiB > 0 && c.BandwidthGBs > 0
}

// ProfileCard is the card a simulator profile imitates, as its stand-in
// nvidia-smi reports it, and how many the profile's rig has: the card a
// demo's prediction is for.
func ProfileCard(p sim.Profile) (Card, int) { return cardOf(p), p.Cards() }

package hardware

import (
	"strings"
	"testing"
)

// Four RTX 3090s with NVLink between pairs, as nvidia-smi 550 prints them
// (the header bold with terminal escapes, tabs between the columns).
const topo4 = "\t\x1b[4mGPU0\tGPU1\tGPU2\tGPU3\tCPU Affinity\tNUMA Affinity\tGPU NUMA ID\x1b[0m\n" +
	"GPU0\t X \tPHB\tNV4\tPHB\t0-31\t0\t\tN/A\n" +
	"GPU1\tPHB\t X \tPHB\tNV4\t0-31\t0\t\tN/A\n" +
	"GPU2\tNV4\tPHB\t X \tSYS\t0-31\t0\t\tN/A\n" +
	"GPU3\tPHB\tNV4\tSYS\t X \t0-31\t0\t\tN/A\n\n" +
	"Legend:\n\n  X    = Self\n  SYS  = Connection traversing PCIe as well as the SMP interconnect between NUMA nodes (e.g., QPI/UPI)\n" +
	"  NV#  = Connection traversing a bonded set of # NVLinks\n"

const p2p4 = " \tGPU0\tGPU1\tGPU2\tGPU3\t\n" +
	" GPU0\tX\tCNS\tOK\tCNS\t\n GPU1\tCNS\tX\tCNS\tOK\t\n GPU2\tOK\tCNS\tX\tNS\t\n GPU3\tCNS\tOK\tNS\tX\t\n\n" +
	"Legend:\n\n  X    = Self\n  OK   = Status Ok\n  CNS  = Chipset not supported\n"

func TestParseNvidiaSMITopo(t *testing.T) {
	links, err := ParseNvidiaSMITopo(topo4, p2p4)
	if err != nil {
		t.Fatal(err)
	}
	if len(links) != 6 {
		t.Fatalf("%d links, want the 6 pairs of 4 GPUs: %+v", len(links), links)
	}
	want := []GPULink{
		{A: 0, B: 1, Path: PathHostBridge, Code: "PHB", P2P: p2pChipset},
		{A: 0, B: 2, Path: PathNVLink, Code: "NV4", NVLinks: 4, P2P: P2POK},
		{A: 0, B: 3, Path: PathHostBridge, Code: "PHB", P2P: p2pChipset},
		{A: 1, B: 2, Path: PathHostBridge, Code: "PHB", P2P: p2pChipset},
		{A: 1, B: 3, Path: PathNVLink, Code: "NV4", NVLinks: 4, P2P: P2POK},
		{A: 2, B: 3, Path: PathSystem, Code: "SYS", P2P: p2pNotSupported},
	}
	for i, w := range want {
		if links[i] != w {
			t.Errorf("link %d = %+v, want %+v", i, links[i], w)
		}
	}
	if s := LinkText(links[1]); s != "GPU 0 ↔ GPU 2: NVLink ×4 (NV4), P2P ok" {
		t.Errorf("LinkText = %q", s)
	}
	if l, err := ParseNvidiaSMITopo(topo4, ""); err != nil || l[0].P2P != "" {
		t.Errorf("without the P2P matrix: %+v, %v; want P2P unknown", l, err)
	}
}

func TestParseNvidiaSMITopoRefusesWhatIsNoMatrix(t *testing.T) {
	for _, out := range []string{"", "NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
		"\tGPU0\tGPU1\nGPU0\t X\n"} {
		if _, err := ParseNvidiaSMITopo(out, ""); err == nil {
			t.Errorf("ParseNvidiaSMITopo(%q) accepted it", out)
		}
	}
	if l, err := ParseNvidiaSMITopo("\tGPU0\tCPU Affinity\nGPU0\t X \t0-7\n", ""); err != nil || len(l) != 0 {
		t.Errorf("one GPU: %+v, %v; want no link", l, err)
	}
}

func FuzzParseNvidiaSMITopo(f *testing.F) {
	f.Add(topo4, p2p4)
	f.Add("GPU0 GPU1\nGPU0 X NV2\nGPU1 NV2 X\n", "")
	f.Fuzz(func(t *testing.T, topo, p2p string) {
		links, err := ParseNvidiaSMITopo(topo, p2p)
		if err != nil {
			return
		}
		for _, l := range links {
			if l.A >= l.B || l.A < 0 || l.Path == "" || strings.ContainsAny(l.Code, " \t\n") {
				t.Fatalf("link %+v", l)
			}
		}
	})
}

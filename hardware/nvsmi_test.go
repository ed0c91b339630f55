package hardware

import (
	"strings"
	"testing"
)

func TestParseNvidiaSMIReadsEveryField(t *testing.T) {
	out := "0, NVIDIA GeForce RTX 3090, GPU-abc, 24576, 1024, 23552, 550.54.15, 8.6, 350.00, 350.00, 400.00, 4, 4, 16, 16, 9751\n" +
		"1, NVIDIA GeForce RTX 4090, GPU-def, 24564, [N/A], [N/A], 550.54.15, 8.9, [Not Supported], 450.00, 600.00, 3, 4, 8, 16, 10501\n"
	gpus, driver, err := ParseNvidiaSMI(out)
	if err != nil {
		t.Fatal(err)
	}
	if driver != "550.54.15" || len(gpus) != 2 {
		t.Fatalf("driver %q, %d GPUs", driver, len(gpus))
	}
	g := gpus[0]
	if g.Name != "NVIDIA GeForce RTX 3090" || g.UUID != "GPU-abc" || g.VRAMTotalBytes != 24576<<20 || g.VRAMUsedBytes != 1024<<20 ||
		g.ComputeCapability != "8.6" || g.PowerLimitW != 350 || g.PowerLimitMaxW != 400 || g.PCIeGen != 4 || g.PCIeWidth != 16 || g.MemoryClockMaxMHz != 9751 {
		t.Errorf("GPU 0 read as %+v", g)
	}
	if g.Reported(FieldMemoryBusWidth) || g.Reported(FieldMemoryBandwidth) {
		t.Error("nvidia-smi cannot say the bus width: it must read n/a, not 0")
	}
	h := gpus[1]
	if h.Index != 1 || h.Reported(FieldVRAMUsed) || h.Reported(FieldPowerLimit) || !h.Reported(FieldPowerLimitDefault) || h.PCIeWidth != 8 {
		t.Errorf("GPU 1 read as %+v", h)
	}
}

func TestParseNvidiaSMIRefusesWhatItDidNotAskFor(t *testing.T) {
	for _, out := range []string{
		"",
		"0, only, three\n",
		"x, NVIDIA, GPU-a, 1, 1, 1, d, 8.6, 1, 1, 1, 1, 1, 1, 1, 1\n",
		"0, NVIDIA, GPU-a, lots, 1, 1, d, 8.6, 1, 1, 1, 1, 1, 1, 1, 1\n",
		"NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver.\n",
	} {
		if _, _, err := ParseNvidiaSMI(out); err == nil {
			t.Errorf("ParseNvidiaSMI(%q) accepted it", out)
		}
	}
}

func TestNvidiaSMIArgsAskForTheFieldsParsed(t *testing.T) {
	args := NvidiaSMIArgs()
	if args[0] != "nvidia-smi" || !strings.Contains(args[1], strings.Join(NvidiaSMIFields, ",")) || args[2] != "--format=csv,noheader,nounits" {
		t.Fatalf("args %q", args)
	}
}

func FuzzParseNvidiaSMI(f *testing.F) {
	f.Add("0, NVIDIA GeForce RTX 3060, GPU-1, 12288, 0, 12288, 575.64, 8.6, 170.00, 170.00, 170.00, 4, 4, 16, 16, 7501\n")
	f.Add("\"0\", \"a,b\", [N/A]\n")
	f.Fuzz(func(t *testing.T, out string) {
		gpus, _, err := ParseNvidiaSMI(out)
		if err == nil && len(gpus) == 0 {
			t.Fatal("no error and no GPU")
		}
	})
}

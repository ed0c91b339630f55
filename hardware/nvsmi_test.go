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

func TestParseNvidiaSMISamplesReadsTelemetry(t *testing.T) {
	out := "0, 231.45, 1875, 9501, 71, 98, 64, 22111, 0x0000000000000004, 123456789\n" +
		"1, [N/A], 1500, 9501, 65, 97, 60, 22000, 0x0000000000000060, [N/A]\n"
	s, err := ParseNvidiaSMISamples(out, true)
	if err != nil {
		t.Fatal(err)
	}
	if len(s) != 2 {
		t.Fatalf("%d samples, want 2", len(s))
	}
	a := s[0]
	if a.GPU != 0 || a.PowerW != 231.45 || a.SMClockMHz != 1875 || a.MemClockMHz != 9501 || a.TempC != 71 ||
		a.UtilGPU != 98 || a.UtilMem != 64 || a.VRAMUsedBytes != 22111<<20 || a.EnergyJ != 123456.789 {
		t.Errorf("GPU 0 read as %+v", a)
	}
	if len(a.Throttle) != 1 || a.Throttle[0] != ThrottlePowerCap {
		t.Errorf("GPU 0 throttle %v, want power cap", a.Throttle)
	}
	b := s[1]
	if b.GPU != 1 || b.PowerW != 0 || b.EnergyJ != 0 || len(b.Throttle) != 1 || b.Throttle[0] != ThrottleThermal {
		t.Errorf("GPU 1 read as %+v: no power, no counter, thermal", b)
	}
	if _, err := ParseNvidiaSMISamples(out, false); err == nil {
		t.Error("a line with the energy field was accepted as one without")
	}
	short := "0, 100, 1, 1, 1, 1, 1, 1, 0x0\n"
	if s, err := ParseNvidiaSMISamples(short, false); err != nil || s[0].PowerW != 100 || s[0].Throttle != nil {
		t.Errorf("without energy: %+v, %v", s, err)
	}
	args := NvidiaSMITelemetryArgs(true)
	if !strings.HasSuffix(args[1], ","+NvidiaSMIEnergyField) || strings.Contains(NvidiaSMITelemetryArgs(false)[1], NvidiaSMIEnergyField) {
		t.Errorf("args %q", args)
	}
}

func TestParseNvidiaSMISamplesRefusesMalformedLines(t *testing.T) {
	for _, out := range []string{
		"",
		"0, 1, 2\n",
		"-1, 100, 1, 1, 1, 1, 1, 1, 0x0\n",
		"0, hot, 1, 1, 1, 1, 1, 1, 0x0\n",
		"0, 100, 1, 1, 1, 1, 1, 1, 0xZZ\n",
		"0, 100, 1, 1, 1, 1, 1, -5, 0x0\n",
	} {
		if _, err := ParseNvidiaSMISamples(out, false); err == nil {
			t.Errorf("ParseNvidiaSMISamples(%q) accepted it", out)
		}
	}
}

func FuzzParseNvidiaSMISamples(f *testing.F) {
	f.Add("0, 231.45, 1875, 9501, 71, 98, 64, 22111, 0x0000000000000004, 123456789\n", true)
	f.Add("0, [N/A], 1, 1, 1, 1, 1, 1, [Not Supported]\n", false)
	f.Fuzz(func(t *testing.T, out string, energy bool) {
		s, err := ParseNvidiaSMISamples(out, energy)
		if err == nil && len(s) == 0 {
			t.Fatal("no error and no sample")
		}
		for _, x := range s {
			if x.GPU < 0 || x.PowerW < 0 || x.EnergyJ < 0 || x.T != 0 {
				t.Fatalf("sample %+v out of range", x)
			}
		}
	})
}

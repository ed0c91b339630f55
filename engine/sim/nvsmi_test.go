package sim

import (
	"bytes"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/hardware"
)

// The stand-in answers the query hardware detection asks, from the
// profile, in a form hardware.ParseNvidiaSMI reads.
func TestStandInNvidiaSMIAnswersTheRigQuery(t *testing.T) {
	var out, errb bytes.Buffer
	if code := NvidiaSMI(hardware.NvidiaSMIArgs()[1:], func(string) string { return "" }, &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	gpus, driver, err := hardware.ParseNvidiaSMI(out.String())
	if err != nil {
		t.Fatalf("%v in %q", err, out.String())
	}
	p := DefaultProfile()
	if len(gpus) != 1 || gpus[0].Name != p.GPUName || gpus[0].VRAMTotalBytes != uint64(p.GPUMemoryGiB*1024)<<20 || !strings.HasSuffix(driver, "-sim") {
		t.Fatalf("read %+v, driver %q", gpus, driver)
	}
}

func TestStandInNvidiaSMIWithHeaderUnitsAndErrors(t *testing.T) {
	var out, errb bytes.Buffer
	if code := NvidiaSMI([]string{"--query-gpu=name,memory.total", "--format=csv"}, nil, &out, &errb); code != 0 {
		t.Fatal(errb.String())
	}
	if want := "name, memory.total [MiB]\n" + DefaultProfile().GPUName + ", 12288 MiB\n"; out.String() != want {
		t.Errorf("got %q, want %q", out.String(), want)
	}
	out.Reset()
	if code := NvidiaSMI([]string{"--query-gpu=bogus", "--format=csv"}, nil, &out, &errb); code != 2 || !strings.Contains(errb.String(), `Field "bogus" is not a valid field to query.`) {
		t.Errorf("an unknown field: exit %d, %q", code, errb.String())
	}
	out.Reset()
	if NvidiaSMI([]string{"-L"}, nil, &out, &errb) != 0 || !strings.HasPrefix(out.String(), "GPU 0: "+DefaultProfile().GPUName) {
		t.Errorf("-L: %q", out.String())
	}
}

// The stand-in answers the telemetry query a run on a rig asks, energy
// counter included, and its counter runs at the power it reports.
func TestStandInNvidiaSMIAnswersTheTelemetryQuery(t *testing.T) {
	at := time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)
	defer func(f func() time.Time) { smiNow = f }(smiNow)
	read := func(now time.Time) []hardware.GPUSample {
		smiNow = func() time.Time { return now }
		var out, errb bytes.Buffer
		if code := NvidiaSMI(hardware.NvidiaSMITelemetryArgs(true)[1:], func(string) string { return "" }, &out, &errb); code != 0 {
			t.Fatalf("exit %d: %s", code, errb.String())
		}
		s, err := hardware.ParseNvidiaSMISamples(out.String(), true)
		if err != nil {
			t.Fatalf("%v in %q", err, out.String())
		}
		return s
	}
	a, b := read(at), read(at.Add(10*time.Second))
	want := smiLoad.powerShare * smiCard.powerW
	if len(a) != 1 || a[0].PowerW != want || a[0].UtilGPU != smiLoad.utilGPU || a[0].SMClockMHz != float64(smiLoad.smClockMHz) ||
		len(a[0].Throttle) != 1 || a[0].Throttle[0] != hardware.ThrottlePowerCap {
		t.Fatalf("read %+v, want one card at %v W under its power cap", a, want)
	}
	if w := (b[0].EnergyJ - a[0].EnergyJ) / 10; math.Abs(w-want) > 0.01 {
		t.Errorf("the counter runs at %v W, want the %v W reported", w, want)
	}
}

func TestStandInNvidiaSMIListsEveryCardOfTheProfile(t *testing.T) {
	p := DefaultProfile()
	p.GPUs = 2
	var out bytes.Buffer
	if code := nvidiaSMIFor(p, hardware.NvidiaSMIArgs()[1:], &out, &bytes.Buffer{}); code != 0 {
		t.Fatal(code)
	}
	gpus, _, err := hardware.ParseNvidiaSMI(out.String())
	if err != nil || len(gpus) != 2 || gpus[1].Index != 1 || gpus[0].UUID == gpus[1].UUID {
		t.Fatalf("read %+v, %v: want two cards with their own index and UUID", gpus, err)
	}
}

// The stand-in's topology matrices read back as the profile's link.
func TestStandInNvidiaSMITopology(t *testing.T) {
	for _, c := range []struct {
		p         Profile
		path, p2p string
	}{
		{dualRTX3060Profile(), hardware.PathHostBridge, "not supported"},
		{dualH100Profile(), hardware.PathNVLink, hardware.P2POK},
	} {
		var topo, p2p, errb bytes.Buffer
		if nvidiaSMIFor(c.p, hardware.NvidiaSMITopoArgs()[1:], &topo, &errb) != 0 || nvidiaSMIFor(c.p, hardware.NvidiaSMIP2PArgs()[1:], &p2p, &errb) != 0 {
			t.Fatal(errb.String())
		}
		links, err := hardware.ParseNvidiaSMITopo(topo.String(), p2p.String())
		if err != nil || len(links) != 1 || links[0].Path != c.path || links[0].P2P != c.p2p {
			t.Errorf("%s: %+v, %v; want %s with P2P %s\n%s", c.p.Name, links, err, c.path, c.p2p, topo.String())
		}
	}
}

package probe

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/hardware"
)

// fakeSMI answers nvidia-smi command lines from a table keyed by the
// arguments after "nvidia-smi"; a missing key fails as an unknown query
// does (exit code 2).
type fakeSMI map[string]string

func (f fakeSMI) run(_ context.Context, args []string) (string, int, error) {
	if args[0] != "nvidia-smi" {
		return "", -1, fmt.Errorf("ran %q, not nvidia-smi", args[0])
	}
	out, ok := f[strings.Join(args[1:], " ")]
	if !ok {
		return "", hardware.NvidiaSMIBadArgument, errors.New("Field is not a valid field to query")
	}
	return out, 0, nil
}

// Detection on Windows reads nvidia-smi.exe's CSV (CRLF line ends, as
// Windows prints it; the fixture is shaped as driver 566.36 prints
// hardware.NvidiaSMIFields for an RTX 4090) into the GPU, the driver, and
// the bandwidth nvidia-smi cannot give listed as unsupported.
func TestDetectWithNvidiaSMIExe(t *testing.T) {
	csv, err := os.ReadFile(filepath.Join("testdata", "nvidia-smi-windows-rtx4090.csv"))
	if err != nil {
		t.Fatal(err)
	}
	smi := fakeSMI{strings.Join(hardware.NvidiaSMIArgs()[1:], " "): string(csv)}
	r := detectWithSMI(context.Background(), smi.run)
	if r.reason != "" || len(r.gpus) != 1 {
		t.Fatalf("reason %q, %d GPUs; want one GPU", r.reason, len(r.gpus))
	}
	g := r.gpus[0]
	if g.Name != "NVIDIA GeForce RTX 4090" || g.VRAMTotalBytes != 24564<<20 || g.PowerLimitW != 450 || r.driverVersion != "566.36" {
		t.Errorf("GPU %+v, driver %q", g, r.driverVersion)
	}
	if !slices.Contains(g.Unsupported, hardware.FieldMemoryBandwidth) {
		t.Errorf("Unsupported = %v, want the bandwidth nvidia-smi cannot give", g.Unsupported)
	}
}

// Each way nvidia-smi.exe gives no GPU is one sentence with the fix.
func TestNvidiaSMIReasons(t *testing.T) {
	for _, tc := range []struct {
		name string
		run  smiRunner
		want string
	}{
		{"no driver", func(context.Context, []string) (string, int, error) {
			return "", -1, &exec.Error{Name: "nvidia-smi", Err: exec.ErrNotFound}
		}, "no NVIDIA driver found (nvidia-smi is not installed); install the NVIDIA driver"},
		{"driver not answering", func(context.Context, []string) (string, int, error) {
			return "", smiDriverGone, errors.New("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver")
		}, "the NVIDIA driver is installed but does not answer; restart the computer"},
		{"no GPU", func(context.Context, []string) (string, int, error) { return "\r\n", 0, nil },
			"nvidia-smi listed no GPU; check that nvidia-smi lists your card"},
	} {
		r := detectWithSMI(context.Background(), tc.run)
		if !strings.HasPrefix(r.reason, tc.want) || strings.Count(r.reason, ". ") > 0 || len(r.gpus) != 0 {
			t.Errorf("%s: reason %q, want one sentence starting %q", tc.name, r.reason, tc.want)
		}
	}
}

// Telemetry through nvidia-smi.exe asks for the energy counter, and
// without it from then on when this nvidia-smi refuses the field.
func TestSMITelemetryDropsEnergyWhenRefused(t *testing.T) {
	line := "0, 312.45, 2520, 10501, 61, 97, 88, 20480, 0x0000000000000000\r\n"
	smi := fakeSMI{strings.Join(hardware.NvidiaSMITelemetryArgs(false)[1:], " "): line}
	r, err := openSMIReadings(newOptions(nil), smi.run)
	if err != nil {
		t.Fatal(err)
	}
	s := r.read()
	if len(s) != 1 || s[0].PowerW != 312.45 || s[0].SMClockMHz != 2520 || s[0].VRAMUsedBytes != 20480<<20 {
		t.Errorf("samples = %+v", s)
	}
}

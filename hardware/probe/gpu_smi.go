package probe

import (
	"context"
	"errors"
	"fmt"
	"os/exec"
	"strings"

	"github.com/rigbench/rigbench/hardware"
)

// smiRunner runs one nvidia-smi command line (args[0] is "nvidia-smi") and
// returns its standard output, or its exit code (-1 when it did not exit)
// and an error carrying what it printed on failure.
type smiRunner func(ctx context.Context, args []string) (string, int, error)

// detectWithSMI reads this machine's GPUs with nvidia-smi's CSV
// (hardware.NvidiaSMIArgs), the reader a remote rig's GPUs go through: on
// Windows NVML's Go binding does not build, and the driver installs
// nvidia-smi.exe. The fields nvidia-smi cannot be asked (the memory bus
// width, hence the peak bandwidth) are listed in Unsupported, as on a rig;
// the CUDA version is not among its CSV fields and stays unknown. Links
// between two or more GPUs come from `nvidia-smi topo`; what cannot be
// read of them is left out.
func detectWithSMI(ctx context.Context, run smiRunner) gpuResult {
	out, code, err := run(ctx, hardware.NvidiaSMIArgs())
	if err != nil {
		return gpuResult{reason: smiReason(err, code)}
	}
	gpus, driver, err := hardware.ParseNvidiaSMI(out)
	if err != nil {
		return gpuResult{reason: err.Error() + "; check that nvidia-smi lists your card in a terminal"}
	}
	r := gpuResult{gpus: gpus, driverVersion: driver}
	if len(gpus) > 1 {
		topo, _, terr := run(ctx, hardware.NvidiaSMITopoArgs())
		p2p, _, perr := run(ctx, hardware.NvidiaSMIP2PArgs())
		if perr != nil {
			p2p = ""
		}
		if terr == nil {
			r.topology, _ = hardware.ParseNvidiaSMITopo(topo, p2p)
		}
	}
	return r
}

// smiDriverGone is nvidia-smi's exit code when it cannot reach the driver
// ("NVIDIA-SMI has failed because it couldn't communicate with the NVIDIA
// driver").
const smiDriverGone = 9

// smiReason says in one sentence, with the fix, why nvidia-smi gave no
// GPUs: not installed (no NVIDIA driver), a driver it cannot reach, or
// another failure in its own words.
func smiReason(err error, code int) string {
	switch {
	case errors.Is(err, exec.ErrNotFound):
		return "no NVIDIA driver found (nvidia-smi is not installed); install the NVIDIA driver for your card from nvidia.com, then detect again"
	case code == smiDriverGone:
		return "the NVIDIA driver is installed but does not answer; restart the computer (or reinstall the driver), then detect again"
	case errors.Is(err, context.DeadlineExceeded):
		return "nvidia-smi did not answer in time; check that it works in a terminal, then detect again"
	}
	return fmt.Sprintf("nvidia-smi failed (%s); check that it works in a terminal, then detect again", strings.TrimSpace(err.Error()))
}

// openSMIReadings is hardware.NvidiaSMIReadings as the sampler's gpuReaders, for
// telemetry where NVML is not at hand.
func openSMIReadings(o options, run smiRunner) (gpuReaders, error) {
	read, _ := hardware.NvidiaSMIReadings(func(args []string) (string, int, error) {
		ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
		defer cancel()
		return run(ctx, args)
	})
	if o.read == nil {
		o.read = read
	}
	return openReadings(o)
}

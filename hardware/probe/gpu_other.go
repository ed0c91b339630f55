//go:build !(linux && cgo) && !windows

package probe

import (
	"errors"
	"runtime"
)

// errNoNVML is why this build reads no GPU: go-nvml needs Linux and cgo,
// and Windows reads its GPUs with nvidia-smi.exe instead (gpu_windows.go).
var errNoNVML = func() error {
	switch runtime.GOOS {
	case "linux":
		return errors.New("GPU detection needs a build with cgo; rebuild with CGO_ENABLED=1")
	case "darwin":
		return errors.New("a Mac has no NVIDIA GPU to benchmark; pick a rig (ssh://user@host) to benchmark a Linux machine's card, or benchmark an endpoint")
	}
	return errors.New("GPU detection needs Linux or Windows")
}()

func detectGPUs(options) gpuResult { return gpuResult{reason: errNoNVML.Error()} }

func openDevices(options) (gpuReaders, error) { return nil, errNoNVML }

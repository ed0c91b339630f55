//go:build !(linux && cgo)

package probe

import (
	"errors"
	"runtime"
)

// errNoNVML is why this build reads no GPU: go-nvml needs Linux and cgo.
var errNoNVML = func() error {
	if runtime.GOOS == "linux" {
		return errors.New("GPU detection needs a build with cgo; rebuild with CGO_ENABLED=1")
	}
	return errors.New("GPU detection needs Linux")
}()

func detectGPUs(options) gpuResult { return gpuResult{reason: errNoNVML.Error()} }

func openDevices(options) (gpuReaders, error) { return nil, errNoNVML }

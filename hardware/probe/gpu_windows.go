//go:build windows

package probe

import (
	"bytes"
	"context"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
)

// detectGPUs reads the GPUs with nvidia-smi.exe: go-nvml does not build on
// Windows (NVIDIA/go-nvml issue #49).
func detectGPUs(o options) gpuResult {
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout)
	defer cancel()
	return detectWithSMI(ctx, runNvidiaSMI)
}

// openDevices samples telemetry with nvidia-smi.exe, one run a tick.
func openDevices(o options) (gpuReaders, error) { return openSMIReadings(o, runNvidiaSMI) }

// createNoWindow keeps a console program started by the app (a GUI
// program) from flashing a console window once a telemetry tick.
const createNoWindow = 0x08000000

// runNvidiaSMI runs nvidia-smi.exe: from PATH (the driver puts it in
// System32), else from where drivers before 2019 installed it.
func runNvidiaSMI(ctx context.Context, args []string) (string, int, error) {
	path, err := exec.LookPath(args[0])
	if err != nil {
		old := filepath.Join(os.Getenv("ProgramFiles"), "NVIDIA Corporation", "NVSMI", "nvidia-smi.exe")
		if _, serr := os.Stat(old); serr != nil {
			return "", -1, err
		}
		path = old
	}
	cmd := exec.CommandContext(ctx, path, args[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{HideWindow: true, CreationFlags: createNoWindow}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		if ctx.Err() != nil {
			return "", -1, ctx.Err()
		}
		var ee *exec.ExitError
		if errors.As(err, &ee) {
			msg := strings.TrimSpace(stderr.String() + " " + string(out))
			return "", ee.ExitCode(), errors.New(orDefault(msg, err.Error()))
		}
		return "", -1, err
	}
	return string(out), 0, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

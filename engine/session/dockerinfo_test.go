package session

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/docker/docker/api/types/system"

	"github.com/rigbench/rigbench/engine/docker"
)

// readInfo reads a daemon's Info as `docker info --format json` prints it.
func readInfo(t *testing.T, name string) system.Info {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	var info system.Info
	if err := json.Unmarshal(b, &info); err != nil {
		t.Fatal(err)
	}
	return info
}

// Docker Desktop's WSL 2 engine without GPU support lists no NVIDIA
// runtime: the one sentence names Docker Desktop and WSL 2's remedy, not
// the Linux Container Toolkit's commands. The same Info with the runtime
// (as Docker Desktop lists it once GPU support is on) has no problem, and a
// Linux daemon without it gets the Toolkit's remedy.
func TestDockerDesktopWithoutGPU(t *testing.T) {
	info := readInfo(t, "info-docker-desktop-wsl2.json")
	st := statusOf(info)
	if !st.Desktop || st.NVIDIARuntime || st.Version != "27.4.0" {
		t.Fatalf("status = %+v, want Docker Desktop 27.4.0 without the NVIDIA runtime", st)
	}
	p := st.Problem()
	if p == nil {
		t.Fatal("no problem for Docker Desktop without a GPU runtime")
	}
	want := "Docker Desktop does not see your GPU: turn on WSL 2 GPU support"
	if got := p.Error(); !strings.HasPrefix(got, want) || strings.Contains(got, "nvidia-ctk") || strings.Count(got, ". ") > 0 {
		t.Errorf("problem = %q, want one sentence starting %q", got, want)
	}

	info.Runtimes["nvidia"] = system.RuntimeWithStatus{Runtime: system.Runtime{Path: "nvidia-container-runtime"}}
	if p := statusOf(info).Problem(); p != nil {
		t.Errorf("with the nvidia runtime: %v, want no problem", p)
	}

	delete(info.Runtimes, "nvidia")
	info.OperatingSystem, info.KernelVersion = "Ubuntu 24.04.1 LTS", "6.8.0-49-generic"
	p = statusOf(info).Problem()
	if p == nil || p.Hint != docker.ToolkitHint || !strings.HasPrefix(p.Error(), "Docker 27.4.0 has no NVIDIA runtime") {
		t.Errorf("a Linux daemon without the runtime: %v, want the Container Toolkit's remedy", p)
	}
}

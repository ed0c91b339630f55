package ui_test

import (
	"context"
	"image"
	"image/png"
	"os"
	"path/filepath"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/predicted"
)

// testServices: no GPU, no Docker (so the demo is the default target), the
// real session and simulator, running fast.
func testServices() ui.Services {
	return ui.Services{
		Detect: func(context.Context) hardware.Snapshot {
			return hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "no NVIDIA driver found", CPU: hardware.CPU{Model: "Test CPU", PhysicalCores: 2, LogicalCores: 4}}
		},
		Docker: func(context.Context) hwview.Docker {
			return hwview.Docker{Checked: true, Problem: "Docker is not running."}
		},
		Session:  session.Run,
		SimSpeed: 20,
	}
}

func TestMain(m *testing.M) {
	os.Unsetenv(ui.TourEnv)
	// No test may touch the user's own history.
	dir, err := os.MkdirTemp("", "rigbench-ui-test")
	if err != nil {
		panic(err)
	}
	os.Setenv(store.EnvDB, filepath.Join(dir, "history.db"))
	// Nor the user's data folder (the compile cache a launch mounts).
	os.Setenv("XDG_DATA_HOME", dir)
	// The tests drive widgets from their own goroutine; predictions must
	// not redraw them from another (predicted.Inline).
	predicted.Inline = true
	code := m.Run()
	os.RemoveAll(dir)
	os.Exit(code)
}

// saveShot writes the window at 1280×800 as the test driver draws it to
// name.png in $RIGBENCH_TEST_SHOTS, for a person to look at; without the
// variable it does nothing.
func saveShot(t *testing.T, w fyne.Window, name string) {
	dir := os.Getenv("RIGBENCH_TEST_SHOTS")
	if dir == "" {
		return
	}
	var img image.Image
	fyne.DoAndWait(func() { w.Resize(fyne.NewSize(1280, 800)) })
	fyne.DoAndWait(func() { w.Content().Refresh() })
	fyne.DoAndWait(func() { img = w.Canvas().Capture() })
	f, err := os.Create(filepath.Join(dir, name+".png"))
	if err != nil {
		t.Log(err)
		return
	}
	defer f.Close()
	if err := png.Encode(f, img); err != nil {
		t.Log(err)
	}
}

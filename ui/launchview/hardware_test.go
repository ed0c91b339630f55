//go:build !race

// These tests start the Launch view's goroutines (detection, Docker
// checks), whose results reach widgets through fyne.Do; Fyne's test driver
// runs fyne.Do inline on the calling goroutine, which the race detector
// flags although the real driver serialises it. make test runs them in its
// pass without -race, like the app's journey tests.

package launchview_test

import (
	"context"
	"net"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
)

// recorder is a LaunchFunc that hands each configuration it is asked to
// launch to the test and fails the launch (nothing is started).
func recorder() (launchview.LaunchFunc, chan vllm.LaunchConfig) {
	got := make(chan vllm.LaunchConfig, 4)
	return func(_ context.Context, cfg vllm.LaunchConfig, _ launchview.Progress) (*session.Server, error) {
		got <- cfg
		return nil, context.Canceled
	}, got
}

// launching is a view with a recording launcher; received waits for the
// next launch and for the view to have shown its outcome.
type launching struct {
	*launchview.View
	got     chan vllm.LaunchConfig
	settled chan struct{}
}

func newLaunchingView(t *testing.T) launching {
	t.Helper()
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	launch, got := recorder()
	l := launching{launchview.New(a, w, target.NewChooser(target.Launch), launch), got, make(chan struct{}, 4)}
	launchview.SetAfterStartForTest(l.View, func() { l.settled <- struct{}{} })
	w.SetContent(l.Content())
	return l
}

func received(t *testing.T, l launching) vllm.LaunchConfig {
	t.Helper()
	var c vllm.LaunchConfig
	for _, ch := range []func() bool{
		func() bool {
			select {
			case c = <-l.got:
				return true
			case <-time.After(5 * time.Second):
				return false
			}
		},
		func() bool {
			select {
			case <-l.settled:
				return true
			case <-time.After(5 * time.Second):
				return false
			}
		},
	} {
		if !ch() {
			t.Fatal("the launch was not made and reported back")
		}
	}
	return c
}

func noGPU() hardware.Snapshot {
	return hardware.Snapshot{GPUAbsentReason: "no NVIDIA driver found (libnvidia-ml.so.1)"}
}

// With no NVIDIA GPU the view says so before anything is started, and Start
// refuses at once with that sentence instead of pulling the image; "Start
// anyway" and a launch that asks for no GPU still go ahead.
func TestNoGPUWarnsAndStartRefuses(t *testing.T) {
	v := newLaunchingView(t)
	v.Form.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	if w := v.HardwareWarning(); w != "" {
		t.Errorf("a warning before detection finished: %q", w)
	}
	v.SetHardware(noGPU(), hwview.Docker{Checked: true, Available: true, Version: "27.0"})
	w := v.HardwareWarning()
	if !strings.Contains(w, "no NVIDIA GPU") || !strings.Contains(w, "endpoint or the demo") {
		t.Errorf("banner = %q, want the missing GPU and what still works", w)
	}
	v.Start()
	text, fix := v.Failure()
	if text != launchview.NoGPUMessage {
		t.Errorf("Start said %q, want %q", text, launchview.NoGPUMessage)
	}
	if fix != "Start anyway" {
		t.Errorf("fix button %q, want Start anyway", fix)
	}
	select {
	case c := <-v.got:
		t.Fatalf("Start launched %s on a computer without a GPU", c.ImageRef())
	case <-time.After(100 * time.Millisecond):
	}
	v.ApplyFix()
	received(t, v)

	c := v.Form.Config()
	c.GPUs = ""
	v.Form.SetConfig(c)
	v.Start()
	if c := received(t, v); c.GPUs != "" {
		t.Errorf("launched with GPUs %q, want none", c.GPUs)
	}
}

// A GPU with a Docker that has no NVIDIA runtime warns but lets Start go.
func TestNoNVIDIARuntimeWarnsOnly(t *testing.T) {
	v := newLaunchingView(t)
	v.Form.SetModel("m/x")
	v.SetHardware(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}},
		hwview.Docker{Checked: true, Available: true, Version: "27.0", Problem: "Docker 27.0 has no NVIDIA runtime."})
	if w := v.HardwareWarning(); !strings.Contains(w, "NVIDIA runtime") {
		t.Errorf("banner = %q", w)
	}
	v.Start()
	received(t, v)
	v.SetHardware(hardware.Snapshot{GPUs: []hardware.GPU{{Name: "NVIDIA GeForce RTX 3060"}}},
		hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true})
	if w := v.HardwareWarning(); w != "" {
		t.Errorf("a usable GPU and runtime still warn: %q", w)
	}
}

// Picking an SSH rig swaps the default compile cache folder for the rig
// user's (session.RigCompileCache) in the field and the preview, and
// picking this computer again brings this computer's back; a folder the
// user typed, or an emptied field, stays through both.
func TestCompileCacheFollowsTheRigsDefault(t *testing.T) {
	v := newLaunchingView(t)
	v.Form.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	here, err := store.CompileCacheDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	v.Form.SetCompileCacheDefault(session.RigCompileCache)
	if got, pre := v.Form.Config().CompileCache, v.Form.DockerPreview(); got != session.RigCompileCache ||
		!strings.Contains(pre, "-v "+session.RigCompileCache+":"+vllm.ContainerCompileCache) {
		t.Errorf("on an SSH rig the form mounts %q: %s", got, pre)
	}
	v.Form.SetCompileCacheDefault(here)
	if got := v.Form.Config().CompileCache; got != here {
		t.Errorf("back on this computer the form mounts %q, want %q", got, here)
	}
	for _, typed := range []string{"/fast/cache", ""} {
		v.Form.SetCompileCache(typed)
		v.Form.SetCompileCacheDefault(session.RigCompileCache)
		if got := v.Form.Config().CompileCache; got != typed {
			t.Errorf("the typed folder %q became %q on picking a rig", typed, got)
		}
		v.Form.SetCompileCacheDefault(here)
	}
}

// The docker preview is the command the launcher is given, with the
// published port and the Hugging Face cache of `launch --print-docker`; a
// port already taken moves to a free one in both.
func TestDockerPreviewIsWhatStartRuns(t *testing.T) {
	v := newLaunchingView(t)
	v.Form.SetModel("Qwen/Qwen2.5-1.5B-Instruct")
	v.Form.SetFlagText("--max-model-len", "8192")
	pre := v.Form.DockerPreview()
	cache, err := store.CompileCacheDir(os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"-p 127.0.0.1:8000:8000", "-v " + vllm.DefaultHFCache + ":" + vllm.ContainerHFCache,
		"-v " + cache + ":" + vllm.ContainerCompileCache} {
		if !strings.Contains(pre, want) {
			t.Errorf("preview %q lacks %q", pre, want)
		}
	}
	// An emptied "Compile cache" field mounts none; a typed folder replaces it.
	v.Form.SetCompileCache("")
	if pre := v.Form.DockerPreview(); strings.Contains(pre, vllm.ContainerCompileCache) || v.Form.Config().CompileCache != "" {
		t.Errorf("with the field emptied the preview still mounts a compile cache: %s", pre)
	}
	v.Form.SetCompileCache("/fast/cache")
	if pre := v.Form.DockerPreview(); !strings.Contains(pre, "-v /fast/cache:"+vllm.ContainerCompileCache) {
		t.Errorf("the typed folder is not mounted: %s", pre)
	}

	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer busy.Close()
	taken := busy.Addr().(*net.TCPAddr).Port
	v.Form.SetPort(taken)
	v.Start()
	c := received(t, v)
	if c.DockerCommand(true) != v.Form.DockerPreview() {
		t.Errorf("launched %q\npreview  %q", c.DockerCommand(true), v.Form.DockerPreview())
	}
	if c.Port == taken || c.Port == 0 {
		t.Errorf("launched on port %d, want a free one instead of the taken %d", c.Port, taken)
	}
	if !strings.Contains(v.Form.DockerPreview(), "127.0.0.1:"+strconv.Itoa(c.Port)+":") {
		t.Errorf("preview %q does not show the port used", v.Form.DockerPreview())
	}
}

// The rig picker shows above a launch's form, and hides for the demo
// (which runs in RigBench, on this computer). GPUs a rig could not read
// yet are a warning there, not Start's refusal (issue 25).
func TestRigPickerSlotAndRigHardware(t *testing.T) {
	l := newLaunchingView(t)
	picker := widget.NewLabel("rig picker")
	l.SetRigPicker(picker)
	if !parentVisible(l.Content(), picker) {
		t.Error("the rig picker is hidden for a launch")
	}
	l.SetRigHardware(hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "no image to read the GPUs with is on the rig"},
		hwview.Docker{Checked: true, Available: true, NVIDIARuntime: true})
	if got := l.HardwareWarning(); !strings.Contains(got, "could not read this rig's GPUs yet: no image") || !strings.Contains(got, "Start launches there anyway") {
		t.Errorf("banner %q", got)
	}
	l.Form.SetConfig(vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "m", GPUs: "all"})
	l.Start()
	if c := received(t, l); c.Model != "m" {
		t.Errorf("Start launched %+v, want the form's model on the rig", c)
	}
	l.Target.Set(target.Choice{Kind: target.Demo})
	if parentVisible(l.Content(), picker) {
		t.Error("the rig picker shows for the demo")
	}
}

// parentVisible reports whether o is under root with every container on
// the way visible.
func parentVisible(root, o fyne.CanvasObject) bool {
	if root == o {
		return o.Visible()
	}
	if !root.Visible() {
		return false
	}
	var kids []fyne.CanvasObject
	switch x := root.(type) {
	case *fyne.Container:
		kids = x.Objects
	case fyne.Widget:
		kids = test.WidgetRenderer(x).Objects()
	}
	for _, k := range kids {
		if parentVisible(k, o) {
			return true
		}
	}
	return false
}

// Issue 41 minor 7: on a rig whose Docker has no NVIDIA runtime (so its
// GPUs cannot be read either) the banner says the runtime is missing on
// the rig and that a launch there fails, not "Start launches there anyway".
func TestRigWithoutNVIDIARuntimeSaysSo(t *testing.T) {
	l := newLaunchingView(t)
	l.SetRigHardware(hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "no image to read the GPUs with is on the rig"},
		hwview.Docker{Checked: true, Available: true, Version: "27.1"})
	got := l.HardwareWarning()
	if !strings.HasPrefix(got, "On this rig: Docker 27.1 has no NVIDIA runtime") || !strings.Contains(got, "a launch on the rig fails") ||
		strings.Contains(got, "anyway") {
		t.Errorf("banner %q, want the rig's missing runtime and that a launch fails", got)
	}
}

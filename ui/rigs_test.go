//go:build !race

// Like the journeys of app_test.go, these drive the app while detection
// calls fyne.Do from its goroutine, which Fyne's test driver does not
// serialise: they run in plain go test.

package ui

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2/test"
	"golang.org/x/crypto/ssh"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rig/rigtest"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/rigpick"
)

// rigApp is the app with this computer lacking a GPU and Docker, and rigs
// reached through s with the test's HOME (its ~/.ssh); opts go to every
// Docker client on the rig.
func rigApp(t *testing.T, s *rigtest.Server, opts ...docker.Option) (*UI, chan struct{}) {
	t.Helper()
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	svc := Services{
		Detect: func(context.Context) hardware.Snapshot {
			return hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "no NVIDIA driver found"}
		},
		Docker: func(context.Context) hwview.Docker {
			return hwview.Docker{Checked: true, Problem: "Docker is not running."}
		},
		Session:  session.Run,
		Launch:   dockerLaunch(opts...),
		SimSpeed: 20,
		Contexts: func() []string { return []string{"default"} },
		ConnectRig: func(ctx context.Context, name string) (*rig.Conn, error) {
			sp, err := rig.Parse(name)
			if err != nil {
				return nil, err
			}
			return rig.Connect(ctx, sp, rig.Options{Getenv: s.Getenv})
		},
		DetectRig: func(ctx context.Context, conn *rig.Conn, images []string) (hardware.Snapshot, hwview.Docker) {
			return detectRig(ctx, conn, images, opts...)
		},
		LaunchOn: func(conn *rig.Conn) launchview.LaunchFunc { return rigDockerLaunch(conn, opts...) },
	}
	a := test.NewTempApp(t)
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	u := NewWithServices(a, w, svc)
	<-u.Ready()
	detected := make(chan struct{}, 4)
	u.detected = func() { detected <- struct{}{} }
	t.Cleanup(u.closeRig)
	return u, detected
}

// addRig adds s's address in the Hardware view's picker, as the user does,
// and waits for the detection there.
func addRig(t *testing.T, u *UI, detected chan struct{}, addr string) {
	t.Helper()
	u.HardwareRig.Pick(rigpick.AddLabel)
	u.HardwareRig.SetEntry(addr)
	u.HardwareRig.Add()
	select {
	case <-detected:
	case <-time.After(2 * time.Minute):
		t.Fatal("no detection on the rig")
	}
}

// An unknown host key is refused in the one sentence with its fingerprint,
// under both views' pickers and nowhere else; the rig stays picked and
// remembered, and Local is one pick away.
func TestRigPickerShowsAnUnknownHostKey(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{Unknown: true})
	u, detected := rigApp(t, s)
	addRig(t, u, detected, s.URL())
	fp := ssh.FingerprintSHA256(s.HostKey)
	for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
		if got := p.Problem(); !strings.Contains(got, fp) || !strings.Contains(got, "known_hosts") || p.Rig() != s.URL() {
			t.Errorf("picker on %q says %q, want the rig picked and its fingerprint %s with how to accept it", p.Rig(), got, fp)
		}
	}
	if got := u.Hardware.Summary.Text; !strings.Contains(got, "could not be reached") {
		t.Errorf("Hardware's summary %q, want the rig not reached", got)
	}
	if got := u.Launch.HardwareWarning(); got != "" {
		t.Errorf("Launch banner %q repeats the picker's sentence", got)
	}
	if got := u.app.Preferences().String(prefRig); got != s.URL() {
		t.Errorf("remembered rig %q, want %q", got, s.URL())
	}
	u.LaunchRig.Pick(rigpick.LocalLabel)
	<-detected
	if u.HardwareRig.Rig() != rig.LocalName || u.HardwareRig.Problem() != "" {
		t.Errorf("after picking Local: Hardware's picker on %q says %q", u.HardwareRig.Rig(), u.HardwareRig.Problem())
	}
}

// A rig reached through sshd: Hardware shows its stand-in GPU (read with
// the simulator image's nvidia-smi), and the Launch view launches there,
// through the tunnel, the server recording the rig without the user name.
func TestRigPickerDetectsAndLaunchesThroughSSH(t *testing.T) {
	opts := dockerOrSkip(t)
	s := rigtest.Start(t, rigtest.Options{})
	u, detected := rigApp(t, s, opts...)
	u.setRigImage(simimage.DefaultTag)
	addRig(t, u, detected, s.URL())
	if p := u.HardwareRig.Problem(); p != "" {
		t.Fatalf("the rig could not be used: %s\nsshd:\n%s", p, s.Log())
	}
	if got, want := u.Hardware.Summary.Text, sim.DefaultProfile().GPUName; !strings.Contains(got, want) {
		t.Errorf("Hardware shows %q, want the rig's stand-in %q", got, want)
	}
	if got := u.Launch.Form.Config().CompileCache; got != session.RigCompileCache {
		t.Errorf("on the SSH rig the Launch form mounts the compile cache %q, want the rig user's %q", got, session.RigCompileCache)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	srv, err := u.rigLaunch(u.svc.Launch)(ctx, simimage.Config("hf_ui_secret", "--max-model-len", "4096"), launchview.Progress{})
	if err != nil {
		t.Fatalf("launch on the rig: %v\nsshd:\n%s", err, s.Log())
	}
	defer srv.Stop(context.Background())
	if want := (rundoc.Rig{Kind: rundoc.RigSSH, Name: fmt.Sprintf("ssh://127.0.0.1:%d", s.Port)}); srv.Dial == nil || srv.Rig == nil || *srv.Rig != want {
		t.Errorf("server on %+v (tunnel %v), want %+v through the rig's connection", srv.Rig, srv.Dial != nil, want)
	}
	if !strings.Contains(s.Log(), "direct-tcpip") || !strings.Contains(s.Log(), rig.DockerSocket) {
		t.Errorf("the launch did not go through sshd:\n%s", s.Log())
	}
}

// A launch sweep runs on the picked rig: a new one records it in its spec,
// one resumed must be on the rig it started on, and a rig not reached is
// said before any variant starts.
func TestTuneRunsOnThePickedRig(t *testing.T) {
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	u := NewWithServices(test.NewTempApp(t), w, Services{Session: session.Run, SimSpeed: 20,
		Detect: func(context.Context) hardware.Snapshot { return hardware.Snapshot{GPUs: []hardware.GPU{}} }})
	<-u.Ready()
	u.mu.Lock()
	u.rig = rigState{name: "ssh://me@basement"}
	u.mu.Unlock()
	spec := tune.Spec{ID: "0123abcd"}
	if _, err := u.tuneRig(&spec, tune.TargetLaunch, true); err == nil || !strings.Contains(err.Error(), "ssh://me@basement is not reached") {
		t.Errorf("a new sweep on a rig not reached: %v", err)
	}
	if spec.Rig != "ssh://me@basement" {
		t.Errorf("the new sweep's spec names the rig %q, want the picked one", spec.Rig)
	}
	local := tune.Spec{ID: "4567cdef"}
	if _, err := u.tuneRig(&local, tune.TargetLaunch, false); err == nil || !strings.Contains(err.Error(), "ran on this computer") {
		t.Errorf("resuming a sweep of this computer on a rig: %v", err)
	}
	if conn, err := u.tuneRig(&tune.Spec{}, tune.TargetDemo, true); conn != nil || err != nil {
		t.Errorf("a demo sweep: %v, %v; want it here", conn, err)
	}
}

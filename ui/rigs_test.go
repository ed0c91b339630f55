//go:build !race

// Like the journeys of app_test.go, these drive the app while detection
// calls fyne.Do from its goroutine, which Fyne's test driver does not
// serialise: they run in plain go test.

package ui

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"
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
	"github.com/rigbench/rigbench/ui/target"
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
		LaunchOn:      func(conn *rig.Conn) launchview.LaunchFunc { return rigDockerLaunch(conn, opts...) },
		LaunchCluster: clusterLaunch(session.Launching{Getenv: s.Getenv, Options: opts}),
		// A sweep's variants launch as the Launch page's servers do.
		Sweep: func(in tune.SpecInput, how session.Launching) (*tune.Runner, error) {
			how.Getenv, how.Options = s.Getenv, append(how.Options, opts...)
			return in.Runner(how)
		},
		Resweep: func(spec tune.Spec, how session.Launching) (*tune.Runner, error) {
			how.Getenv, how.Options = s.Getenv, append(how.Options, opts...)
			return tune.NewRunner(spec, how)
		},
	}
	return newRigUI(t, svc)
}

// newRigUI is the app with svc, ready, with a channel told each time a
// rig's hardware has been read; the rig is closed at the test's end.
func newRigUI(t *testing.T, svc Services) (*UI, chan struct{}) {
	t.Helper()
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

// A launch sweep runs on the picked rig: a new one is built through
// Services.Sweep with the rig in its target and the rig's connection in
// how it launches, one resumed must be on the rig it started on, and a rig
// not reached is said before any variant starts.
func TestTuneRunsOnThePickedRig(t *testing.T) {
	t.Setenv(store.EnvDB, filepath.Join(t.TempDir(), "history.db"))
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	var gotIn tune.SpecInput
	var gotHow session.Launching
	u := NewWithServices(test.NewTempApp(t), w, Services{Session: session.Run, SimSpeed: 20,
		Detect: func(context.Context) hardware.Snapshot { return hardware.Snapshot{GPUs: []hardware.GPU{}} },
		Sweep: func(in tune.SpecInput, how session.Launching) (*tune.Runner, error) {
			gotIn, gotHow = in, how
			return in.Runner(how)
		}})
	<-u.Ready()
	u.mu.Lock()
	u.rig = rigState{name: "ssh://me@basement"}
	u.mu.Unlock()
	in := tune.SpecInput{Vary: []string{"max-num-seqs=8,16"}, Contexts: "1K", Concurrency: "8"}
	fyne.DoAndWait(func() {
		cfg := u.Launch.Form.Config()
		cfg.Model = "sim/tiny"
		u.Launch.Form.SetConfig(cfg)
		u.Target.Set(target.Choice{Kind: target.Launch})
	})
	var err error
	fyne.DoAndWait(func() { _, err = u.newSweep(in) })
	if err == nil || !strings.Contains(err.Error(), "ssh://me@basement is not reached") {
		t.Errorf("a new sweep on a rig not reached: %v", err)
	}
	conn := &rig.Conn{} // reached (a stand-in: it is never dialled here)
	u.mu.Lock()
	u.rig = rigState{name: "ssh://me@basement", conn: conn}
	u.mu.Unlock()
	var r *tune.Runner
	fyne.DoAndWait(func() { r, err = u.newSweep(in) })
	if err != nil || r.Spec.Rig != "ssh://me@basement" || gotIn.Target.Rig != "ssh://me@basement" || gotHow.Rig != conn || !gotHow.KeepLeftovers {
		t.Fatalf("the new sweep: %v; its spec names the rig %q, Services.Sweep got %+v and %+v", err, r.Spec.Rig, gotIn.Target, gotHow)
	}
	local := r.Spec
	local.Rig = ""
	fyne.DoAndWait(func() { _, err = u.resumeSweep(local) })
	if err == nil || !strings.Contains(err.Error(), "ran on this computer") {
		t.Errorf("resuming a sweep of this computer on a rig: %v", err)
	}
	fyne.DoAndWait(func() { _, err = u.resumeSweep(r.Spec) })
	if err != nil {
		t.Errorf("resuming the sweep on its rig: %v", err)
	}
}

// Issue 41 (what LM Studio users expect): an unknown host key is trusted
// from the app. Both pickers offer Trust under the fingerprint's sentence;
// Trust asks first (Cancel is the default and changes nothing), then adds
// the key to known_hosts and connects again, and the refusal is gone.
func TestTrustAnUnknownHostKeyFromTheApp(t *testing.T) {
	s := rigtest.Start(t, rigtest.Options{Unknown: true})
	u, detected := rigApp(t, s)
	addRig(t, u, detected, s.URL())
	for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
		if !p.CanTrust() {
			t.Fatalf("picker on %q says %q and offers no Trust", p.Rig(), p.Problem())
		}
	}
	kh := filepath.Join(s.Home, ".ssh", "known_hosts")
	press := func(label string) {
		t.Helper()
		top := u.win.Canvas().Overlays().Top()
		if top == nil {
			t.Fatal("Trust asked nothing")
		}
		text := strings.Join(overlayTexts(t, top), " ")
		if fp := ssh.FingerprintSHA256(s.HostKey); !strings.Contains(text, fp) {
			t.Errorf("the question %q does not show the fingerprint %s", text, fp)
		}
		b := overlayButton(t, top, label)
		if b == nil {
			t.Fatalf("the question has no %q button: %q", label, text)
		}
		test.Tap(b)
	}
	u.LaunchRig.Trust()
	press("Cancel")
	if _, err := os.Stat(kh); err == nil {
		t.Fatal("Cancel wrote known_hosts")
	}
	u.HardwareRig.Trust()
	press("Trust")
	select {
	case <-detected:
	case <-time.After(2 * time.Minute):
		t.Fatal("no detection after trusting the key")
	}
	b, err := os.ReadFile(kh)
	if err != nil || !strings.Contains(string(b), "ssh-ed25519") {
		t.Fatalf("known_hosts after Trust: %q, %v", b, err)
	}
	for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
		if got := p.Problem(); strings.Contains(got, "known_hosts") || p.CanTrust() {
			t.Errorf("after trusting, the picker says %q (Trust offered: %v)", got, p.CanTrust())
		}
	}
}

// overlayTexts are the texts of the labels under o.
func overlayTexts(t *testing.T, o fyne.CanvasObject) []string {
	var out []string
	walkObjects(t, o, func(x fyne.CanvasObject) {
		if l, ok := x.(*widget.Label); ok {
			out = append(out, l.Text)
		}
	})
	return out
}

// overlayButton is the button labelled label under o, nil when none.
func overlayButton(t *testing.T, o fyne.CanvasObject, label string) *widget.Button {
	var b *widget.Button
	walkObjects(t, o, func(x fyne.CanvasObject) {
		if w, ok := x.(*widget.Button); ok && w.Text == label {
			b = w
		}
	})
	return b
}

// walkObjects calls f on o and every object under it, through containers
// and widgets' renderers.
func walkObjects(t *testing.T, o fyne.CanvasObject, f func(fyne.CanvasObject)) {
	f(o)
	switch x := o.(type) {
	case *fyne.Container:
		for _, c := range x.Objects {
			walkObjects(t, c, f)
		}
	case fyne.Widget:
		for _, c := range test.TempWidgetRenderer(t, x).Objects() {
			walkObjects(t, c, f)
		}
	}
}

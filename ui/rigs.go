package ui

// The rig picker of the Hardware and Launch views: which Docker host the
// app detects and launches on (docs/rigs.md). The app holds one connection
// to the picked rig; the views' two pickers show the same choice.

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/dialogkeys"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/rigpick"
)

// rigConnectTimeout bounds reaching a rig: an asleep box answers nothing,
// and the views wait on it.
const rigConnectTimeout = 20 * time.Second

// rigState is the picked rig: its name (what rig.Parse reads) and, for any
// rig but the local daemon, the connection to it (nil while connecting or
// after it failed, with the sentence why). Guarded by mu: the launch and
// detection goroutines read it.
type rigState struct {
	name string
	conn *rig.Conn
	err  error
	// snapshot is the rig's hardware as last detected (nil: not yet).
	snapshot *hardware.Snapshot
	// image is the Launch page's image, which nvidia-smi runs in on a rig
	// (the image a launch pulls there).
	image string
}

// rigSnapshot is the picked rig's hardware as last detected; before any
// detection, a snapshot that says so (a run records no hardware rather
// than this computer's).
func (u *UI) rigSnapshot() *hardware.Snapshot {
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rig.snapshot == nil {
		return &hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "the rig's hardware was not read before the run"}
	}
	return u.rig.snapshot
}

// setRigImage notes the Launch page's image (on a change of its form).
func (u *UI) setRigImage(ref string) {
	u.mu.Lock()
	u.rig.image = ref
	u.mu.Unlock()
}

// rigToDetect is the picked rig's name and the images to read its GPUs
// with: the Launch page's, then the simulator's (its stand-in nvidia-smi).
func (u *UI) rigToDetect() (string, []string) {
	u.mu.Lock()
	defer u.mu.Unlock()
	images := []string{}
	if u.rig.image != "" {
		images = append(images, u.rig.image)
	}
	return u.rig.name, append(images, simimage.DefaultTag)
}

// defaultContexts lists the user's Docker contexts for the picker.
func defaultContexts() []string {
	ctxs, _ := rig.Contexts(rig.Options{})
	out := make([]string, 0, len(ctxs))
	for _, c := range ctxs {
		out = append(out, c.Name)
	}
	return out
}

// connectRig reaches a rig by name with the user's own ~/.ssh.
func connectRig(ctx context.Context, name string) (*rig.Conn, error) {
	s, err := rig.Parse(name)
	if err != nil {
		return nil, err
	}
	return rig.Connect(ctx, s, rig.Options{})
}

// detectRig reads a rig's hardware through its Docker (session.RigHardware)
// and checks that Docker, removing the containers an ended RigBench left
// there (a run whose SSH connection dropped).
func detectRig(ctx context.Context, conn *rig.Conn, images []string, opts ...docker.Option) (hardware.Snapshot, hwview.Docker) {
	dock := checkDocker(ctx, true, append(session.RigOptions(ctx, conn), opts...)...)
	if !dock.Available {
		return hardware.Snapshot{GPUs: []hardware.GPU{}, GPUAbsentReason: "the rig's Docker did not answer"}, dock
	}
	snap, err := session.RigHardware(ctx, conn, images, opts...)
	if err != nil {
		snap.GPUAbsentReason = userText(err)
	}
	return snap, dock
}

// setupRigs makes the two pickers, on the remembered rig, and wires them.
func (u *UI) setupRigs(prefs fyne.Preferences) {
	var contexts []string
	if u.svc.Contexts != nil {
		contexts = u.svc.Contexts()
	}
	added := prefs.StringList(prefRigsAdded)
	u.rig.name = prefs.StringWithFallback(prefRig, rig.LocalName)
	u.rig.image = u.Launch.Form.Config().ImageRef()
	if _, err := rig.Parse(u.rig.name); err != nil || u.svc.ConnectRig == nil {
		u.rig.name = rig.LocalName
	}
	u.HardwareRig, u.LaunchRig = rigpick.New(contexts, added), rigpick.New(contexts, added)
	for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
		p.SetRig(u.rig.name)
		p.OnChanged = u.pickRig
		p.OnAdded = func(a []string) {
			prefs.SetStringList(prefRigsAdded, a)
			for _, q := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
				q.SetChoices(contexts, a)
			}
			u.Launch.SetClusterRigs(u.LaunchRig.Names())
		}
	}
	u.Hardware.SetRigPicker(u.HardwareRig.Content())
	u.Launch.SetRigPicker(u.LaunchRig.Content())
	u.Launch.SetClusterRigs(u.LaunchRig.Names())
	u.Launch.SetClusterLaunch(u.svc.LaunchCluster)
	u.rigCompileCache(u.rig.name)
}

// rigCompileCache gives the Launch form the compile cache folder a launch
// on the rig named name mounts by default: this computer's beside the
// history, or the one in the rig user's home on an SSH rig, whose disk
// does not hold this computer's folders.
func (u *UI) rigCompileCache(name string) {
	here, _ := store.CompileCacheDir(os.Getenv)
	u.Launch.Form.SetCompileCacheDefault(session.DefaultCompileCache(name, rig.Options{}, here))
}

// pickRig switches to the rig the user picked in either view: refused
// while a server runs or starts on the current one (its connection
// carries it), else remembered, and detected anew there.
func (u *UI) pickRig(name string) {
	u.mu.Lock()
	cur := u.rig.name
	u.mu.Unlock()
	if u.Launch.Server() != nil || u.Launch.Starting() || u.Run.Running() || u.Tune.Running() {
		for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
			p.SetRig(cur)
			p.SetProblem("Stop the server and the run on " + rigLabel(cur) + " first: the rig changes once nothing runs there.")
		}
		return
	}
	for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
		p.SetRig(name)
		p.SetProblem("")
	}
	u.app.Preferences().SetString(prefRig, name)
	u.mu.Lock()
	old := u.rig.conn
	u.rig = rigState{name: name, image: u.rig.image}
	u.mu.Unlock()
	u.rigCompileCache(name)
	if old != nil {
		old.Close()
	}
	u.Hardware.DetectAgain()
}

// rigLabel names a rig in a sentence.
func rigLabel(name string) string {
	if name == rig.LocalName || name == "" {
		return "this computer"
	}
	return name
}

// pickedRig is the picked rig's name and connection, connecting first
// when it has none (nil for the local daemon).
func (u *UI) pickedRig(ctx context.Context) (string, *rig.Conn, error) {
	u.mu.Lock()
	st := u.rig
	if st.conn != nil && st.conn.LostError() != nil {
		// The box slept or the network dropped since: reach it anew.
		st.conn.Close()
		st.conn, u.rig.conn = nil, nil
	}
	u.mu.Unlock()
	if st.name == rig.LocalName || st.conn != nil || u.svc.ConnectRig == nil {
		return st.name, st.conn, nil
	}
	cctx, cancel := context.WithTimeout(ctx, rigConnectTimeout)
	defer cancel()
	conn, err := u.svc.ConnectRig(cctx, st.name)
	if errors.Is(cctx.Err(), context.DeadlineExceeded) && err != nil {
		err = errors.New("rig " + st.name + " did not answer in " + rigConnectTimeout.String() + ": check that it is awake and on the network")
	}
	u.mu.Lock()
	defer u.mu.Unlock()
	if u.rig.name != st.name { // picked another meanwhile
		if conn != nil {
			conn.Close()
		}
		return st.name, nil, errors.New("the rig changed")
	}
	u.rig.conn, u.rig.err = conn, err
	return st.name, conn, err
}

// detectOnRig is detect for a rig other than the local daemon: its
// hardware and Docker, or why it could not be reached, in both views.
func (u *UI) detectOnRig(ctx context.Context, name string, images []string) {
	_, conn, err := u.pickedRig(ctx)
	var snap hardware.Snapshot
	var dock hwview.Docker
	problem := ""
	if err != nil {
		problem = userText(err)
	} else {
		snap, dock = u.svc.DetectRig(ctx, conn, images)
	}
	fyne.Do(func() {
		u.mu.Lock()
		if u.rig.name == name {
			u.rig.snapshot = &snap
		}
		u.mu.Unlock()
		u.Hardware.SetOn(name)
		if err != nil {
			u.Hardware.SetUnreachable()
			u.Launch.SetRigUnreachable()
		} else {
			u.Hardware.Set(snap, dock)
			u.Launch.SetRigHardware(snap, dock)
			u.Launch.SetRigGPUs(name, len(snap.GPUs))
		}
		var trust func()
		var hk *rig.HostKeyError
		if errors.As(err, &hk) && hk.CanTrust() {
			trust = func() { u.trustHostKey(name, hk) }
		}
		for _, p := range []*rigpick.Picker{u.HardwareRig, u.LaunchRig} {
			p.SetProblem(problem)
			p.SetTrust(trust)
		}
		hook := u.detected // read before Ready closes, as detect does
		u.readyOnce.Do(func() { close(u.ready) })
		if hook != nil {
			hook()
		}
	})
}

// rigLaunch is the Launch view's LaunchFunc: the local one (Services.Launch)
// on this computer, else Services.LaunchOn through the picked rig's
// connection.
func (u *UI) rigLaunch(local launchview.LaunchFunc) launchview.LaunchFunc {
	if local == nil {
		return nil
	}
	return func(ctx context.Context, cfg vllm.LaunchConfig, p launchview.Progress) (*session.Server, error) {
		name, conn, err := u.pickedRig(ctx)
		if err != nil {
			return nil, forApp(err)
		}
		if name == rig.LocalName || u.svc.LaunchOn == nil {
			return local(ctx, cfg, p)
		}
		srv, err := u.svc.LaunchOn(conn)(ctx, cfg, p)
		if err != nil {
			// Named, so a failure there is not read as this computer's.
			err = fmt.Errorf("on the rig %s: %w", name, err)
		}
		return srv, err
	}
}

// closeRig ends the picked rig's connection as the window closes.
func (u *UI) closeRig() {
	u.mu.Lock()
	c := u.rig.conn
	u.rig.conn = nil
	u.mu.Unlock()
	if c != nil {
		c.Close()
	}
}

// tuneRig is where a launch sweep runs: the rig picked on Hardware and
// Launch, through the connection detection made (nil: this computer), and
// its name. want ("" for any) is the rig a resumed sweep started on, which
// it must run on again.
func (u *UI) tuneRig(want string) (string, *rig.Conn, error) {
	u.mu.Lock()
	name, conn := u.rig.name, u.rig.conn
	u.mu.Unlock()
	if want != "" && want != name {
		return name, nil, fmt.Errorf("it ran on %s: pick it in the Rig picker of the Launch page to resume it", rigLabel(want))
	}
	if name != rig.LocalName && (conn == nil || conn.LostError() != nil) {
		return name, nil, fmt.Errorf("%s is not reached: press Detect again on the Hardware page, then start the sweep", name)
	}
	return name, conn, nil
}

// orLocal is a rig's name, "local" for none.
func orLocal(name string) string {
	if name == "" {
		return rig.LocalName
	}
	return name
}

// trustHostKey asks the user to compare an unknown host key's fingerprint
// with the rig's own, as ssh does, and on Trust adds it to known_hosts and
// connects again (issue 41: trusting a rig took a terminal). The question's
// default answer is Cancel.
func (u *UI) trustHostKey(name string, hk *rig.HostKeyError) {
	msg := fmt.Sprintf("%s shows the host key %s %s.\n\nTrust it only if the rig's own key has this fingerprint: on the rig, "+
		"ssh-keygen -lf /etc/ssh/ssh_host_%s_key.pub prints it. RigBench then adds it to your known_hosts, as ssh does when you answer yes.",
		rigLabel(name), hk.KeyType, hk.Fingerprint, strings.TrimPrefix(hk.KeyType, "ssh-"))
	dialogkeys.Destructive("Trust the rig's host key?", msg, "Trust", func(ok bool) {
		if !ok {
			return
		}
		if err := hk.Trust(); err != nil {
			dialogkeys.ShowError(err, u.win)
			return
		}
		// Its failed connection was not kept: detection connects anew.
		u.Hardware.DetectAgain()
	}, u.win)
}

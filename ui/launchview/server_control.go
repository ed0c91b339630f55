package launchview

// Starting and stopping the server: the GPU check, the launch itself, a
// start-up failure and its one-click fix, the log tail.

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strconv"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/wording"
)

// Server returns the ready server, or nil.
func (v *View) Server() *session.Server {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.server
}

// Starting reports whether a launch is under way (pulling, starting or
// waiting for the server to be ready).
func (v *View) Starting() bool {
	v.mu.Lock()
	defer v.mu.Unlock()
	return v.cancel != nil && v.server == nil
}

// Start launches the server with the form's configuration. On a computer
// without an NVIDIA GPU it refuses at once, before any image is pulled, and
// offers "Start anyway" (see start).
func (v *View) Start() {
	// A cluster's GPUs are its rigs', which Start reads on each.
	if v.noGPU != "" && v.Form.Config().GPUs != "" && !v.cluster.on.Checked {
		v.showFailure(errors.New(v.noGPU))
		v.fixBtn.SetText("Start anyway")
		v.fixBtn.OnTapped = func() {
			v.fixBtn.Hide()
			v.start()
		}
		v.fixBtn.Show()
		v.revealMessage()
		return
	}
	v.start()
}

// start launches without the GPU check. "Start anyway" exists because
// detection can miss a card Docker can still use: a driver that did not
// answer in time, or RigBench in a sandbox (Flatpak, a container) that
// cannot load libnvidia-ml while the host's Docker has the GPU.
func (v *View) start() {
	launch := v.launch
	if v.cluster.on.Checked {
		var refused string
		if launch, refused = v.clusterLaunch(); refused != "" {
			v.showFailure(errors.New(refused))
			return
		}
	}
	if launch == nil {
		v.showFailure(errors.New("RigBench cannot start containers here: use an existing endpoint or the demo instead"))
		return
	}
	if errs := vllm.Errors(v.Form.Findings()); len(errs) > 0 {
		v.showFailure(fmt.Errorf("fix the form first: %s", errs[0].Message))
		return
	}
	v.starting = true
	moved := v.ensurePort()
	v.starting = false
	cfg := v.Form.Config()
	ctx, cancel := context.WithCancel(context.Background())
	v.mu.Lock()
	v.cancel = cancel
	v.mu.Unlock()
	v.startBtn.Disable()
	v.stopBtn.Enable()
	v.failure.Hide()
	v.fixBtn.Hide()
	v.ready.Hide()
	v.logs.clear()
	if moved != "" {
		v.logs.add(moved)
	}
	v.pull.SetValue(0)
	v.pull.Show()
	v.logShown = true
	v.relayout()
	prog := Progress{
		Pull: func(done, total int64) {
			if total > 0 {
				fyne.Do(func() { v.pull.SetValue(float64(done) / float64(total)) })
			}
		},
		Log: v.logs.add,
	}
	go func() {
		srv, err := launch(ctx, cfg, prog)
		fyne.Do(func() { v.started(cfg, srv, err) })
	}()
}

func (v *View) started(cfg vllm.LaunchConfig, srv *session.Server, err error) {
	if v.afterStart != nil {
		defer v.afterStart()
	}
	defer v.relayout()
	v.pull.Hide()
	if err != nil {
		v.mu.Lock()
		v.cancel = nil
		v.mu.Unlock()
		v.startBtn.Enable()
		v.stopBtn.Disable()
		v.showFailure(err)
		// The log's last line was the step that failed ("Checking
		// image …"); it must not read as still under way.
		v.logs.add("Start failed: " + v.failure.Text)
		return
	}
	v.mu.Lock()
	v.server = srv
	v.mu.Unlock()
	kv := "KV capacity unknown"
	if srv.KVCapacity > 0 {
		kv = "KV cache holds " + rundoc.TokensText(srv.KVCapacity)
	}
	mml := "max model length as vLLM chose it"
	if srv.MaxModelLen > 0 {
		mml = fmt.Sprintf("max model length %d", srv.MaxModelLen)
	}
	ready := fmt.Sprintf("Ready at %s: %s, %s.", srv.Endpoint, kv, mml)
	if srv.Record != nil && srv.Record.Cluster != nil {
		// The split and the measured link, as History will name the runs.
		ready += " Cluster: " + srv.Record.Cluster.Text() + "."
	}
	v.ready.SetText(ready + " Go to Run to benchmark it.")
	v.ready.Show()
	v.revealMessage()
	if v.OnReady != nil {
		v.OnReady(srv)
	}
}

// showFailure states the cause in one sentence and, for a recognised
// start-up error with a fix RigBench can make, offers it as one click.
func (v *View) showFailure(err error) {
	defer v.revealMessage()
	v.failure.SetText(wording.Sentence(err.Error()))
	v.failure.Show()
	v.fixBtn.Hide()
	var se *vllm.StartupError
	if !errors.As(err, &se) {
		return
	}
	v.failure.SetText(fmt.Sprintf("%s Suggested fix: %s.", wording.Sentence(se.Explanation), se.Fix))
	if label, fixed, ok := fixFor(se, v.Form.Config()); ok {
		v.fixBtn.SetText(label)
		v.fixBtn.OnTapped = func() {
			v.Form.SetConfig(fixed)
			v.fixBtn.Hide()
			v.failure.Hide()
			v.relayout()
		}
		v.fixBtn.Show()
	}
}

// ensurePort moves the server to a free port when the form's is taken on
// this computer (another server on 8000 is common), updating the preview
// so it stays the command that runs; it returns what it did ("" when the
// port was free).
func (v *View) ensurePort() string {
	port := v.Form.Config().Port
	if port <= 0 || portFree(port) {
		return ""
	}
	free, err := docker.FreePort()
	if err != nil {
		return ""
	}
	v.Form.SetPort(free)
	return fmt.Sprintf("Port %d is in use on this computer; the server listens on %d instead.", port, free)
}

func portFree(port int) bool {
	ln, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return false
	}
	ln.Close()
	return true
}

// LogTail is the last line of the log pane ("" when empty); lines reach
// it five times a second.
func (v *View) LogTail() string {
	if n := len(v.logs.lines); n > 0 {
		return v.logs.lines[n-1]
	}
	return ""
}

// Failure is the failure banner's text ("" when hidden) and the fix
// button's label ("" when there is none).
func (v *View) Failure() (text, fix string) {
	if v.failure.Visible() {
		text = v.failure.Text
	}
	if v.fixBtn.Visible() {
		fix = v.fixBtn.Text
	}
	return text, fix
}

// ApplyFix taps the failure banner's fix button.
func (v *View) ApplyFix() {
	if v.fixBtn.Visible() && v.fixBtn.OnTapped != nil {
		v.fixBtn.OnTapped()
	}
}

// ShowStartupError shows a start-up failure as the launch would.
func (v *View) ShowStartupError(err error) { v.showFailure(err) }

// Stop stops the server (or the start in progress) and waits for it on a
// goroutine of its own.
func (v *View) Stop() {
	v.mu.Lock()
	cancel, srv := v.cancel, v.server
	v.cancel, v.server = nil, nil
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	v.stopBtn.Disable()
	v.ready.Hide()
	v.relayout()
	go func() {
		if srv != nil && srv.Stop != nil {
			_ = srv.Stop(context.Background())
		}
		fyne.Do(func() {
			v.startBtn.Enable()
			if v.OnStopped != nil {
				v.OnStopped()
			}
		})
	}()
}

// StopAndWait stops the server and returns when it is gone (used when the
// window closes).
func (v *View) StopAndWait(ctx context.Context) {
	v.mu.Lock()
	cancel, srv := v.cancel, v.server
	v.cancel, v.server = nil, nil
	v.mu.Unlock()
	if cancel != nil {
		cancel()
	}
	if srv != nil && srv.Stop != nil {
		_ = srv.Stop(ctx)
	}
}

// ReadyText is the readiness banner's text ("" while hidden).
func (v *View) ReadyText() string {
	if !v.ready.Visible() {
		return ""
	}
	return v.ready.Text
}

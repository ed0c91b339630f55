package docker

import (
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"

	cerrdefs "github.com/containerd/errdefs"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/redact"
)

func TestClassify(t *testing.T) {
	t.Parallel()
	perm := fmt.Errorf("permission denied while trying to connect to the Docker daemon socket at unix:///var/run/docker.sock: %w",
		&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.EACCES)})
	cases := []struct {
		err  error
		kind ErrorKind
	}{
		{perm, ErrDaemonPermission},
		{&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, ErrDaemonMissing},
		{errors.New(`Error response from daemon: could not select device driver "" with capabilities: [[gpu]]`), ErrGPUToolkit},
		{errors.New("Bind for 127.0.0.1:8000 failed: port is already allocated"), ErrPortInUse},
	}
	for _, tc := range cases {
		var de *Error
		if !errors.As(classify(tc.err), &de) || de.Kind != tc.kind {
			t.Errorf("classify(%v) = %v, want kind %s", tc.err, classify(tc.err), tc.kind)
			continue
		}
		if de.Hint == "" || !errors.Is(de, tc.err) {
			t.Errorf("%s: want a hint and the cause kept: %#v", tc.kind, de)
		}
	}
	plain := errors.New("something else")
	if classify(plain) != plain {
		t.Error("unknown errors must pass through unchanged")
	}
}

func TestNewMapsDaemonErrors(t *testing.T) {
	t.Parallel()
	fake := &fakeAPI{pingErr: &net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.EACCES)}}
	_, err := New(context.Background(), WithAPI(fake))
	var de *Error
	if !errors.As(err, &de) || de.Kind != ErrDaemonPermission || !strings.Contains(err.Error(), "usermod -aG docker") {
		t.Fatalf("New = %v, want the permission hint", err)
	}
}

// A daemon that is not there at all: a socket path nothing listens on.
func TestNewWithoutDaemon(t *testing.T) {
	t.Parallel()
	_, err := New(context.Background(), WithHost("unix://"+t.TempDir()+"/docker.sock"))
	var de *Error
	if !errors.As(err, &de) || de.Kind != ErrDaemonMissing {
		t.Fatalf("New = %v, want %s", err, ErrDaemonMissing)
	}
	if !strings.HasPrefix(err.Error(), "Docker is not running: start it") {
		t.Errorf("message %q", err)
	}
}

func TestPullStream(t *testing.T) {
	t.Parallel()
	stream := `{"status":"Pulling from vllm/vllm-openai","id":"v0.11.0"}
{"status":"Pulling fs layer","progressDetail":{},"id":"a1"}
{"status":"Pulling fs layer","progressDetail":{},"id":"b2"}
{"status":"Downloading","progressDetail":{"current":50,"total":100},"id":"a1"}
{"status":"Downloading","progressDetail":{"current":10,"total":300},"id":"b2"}
{"status":"Download complete","progressDetail":{},"id":"a1"}
{"status":"Pull complete","progressDetail":{},"id":"a1"}
`
	var got []PullProgress
	l := &Launcher{api: &fakeAPI{inspectErr: cerrdefs.ErrNotFound, pullStream: stream}}
	if err := l.EnsureImage(context.Background(), "vllm/vllm-openai:v0.11.0", func(p PullProgress) { got = append(got, p) }); err != nil {
		t.Fatal(err)
	}
	last := got[len(got)-1]
	if len(got) != 7 || last.Layers != 2 || last.LayersDone != 1 || last.Bytes != 110 || last.BytesTotal != 400 {
		t.Errorf("last progress %+v of %d", last, len(got))
	}

	failing := stream + `{"errorDetail":{"message":"unauthorized: authentication required"},"error":"unauthorized: authentication required"}` + "\n"
	l = &Launcher{api: &fakeAPI{inspectErr: cerrdefs.ErrNotFound, pullStream: failing}}
	err := l.EnsureImage(context.Background(), "private/image:1", nil)
	var de *Error
	// The stream's own words are kept in Err; the sentence says what they mean.
	if !errors.As(err, &de) || de.Kind != ErrPull || !strings.Contains(de.Err.Error(), "authentication required") || !strings.Contains(err.Error(), "wants a login") {
		t.Errorf("EnsureImage = %v, want the error from inside the stream, explained", err)
	}
}

func TestContainerSpec(t *testing.T) {
	t.Parallel()
	l := &Launcher{labels: map[string]string{LabelManaged: "true"}, getenv: func(k string) string {
		return map[string]string{"HF_TOKEN": "hf_env", "VLLM_X": "1"}[k]
	}}
	cfg := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "m", GPUs: "0,1",
		HFCache: "/cache", CompileCache: filepath.Join(t.TempDir(), "compile"), TokenSource: vllm.TokenEnv, Env: []string{"VLLM_X", "UNSET_VAR", "A=b"},
		Flags: []vllm.FlagValue{{Name: "--port", Value: "9"}, {Name: "--max-model-len", Value: "4096"}}}
	c, h, err := l.containerSpec(cfg, 12345, "rb-key", cfg.Token(l.getenv))
	if err != nil {
		t.Fatal(err)
	}
	// GPUs 0,1 without parallelism set: vLLM is told to use both.
	want := []string{"--model", "m", "--max-model-len", "4096", "--tensor-parallel-size", "2", "--host", "0.0.0.0", "--port", "8000", "--api-key", "rb-key"}
	if !slices.Equal(c.Cmd, want) {
		t.Errorf("Cmd = %q, want %q", c.Cmd, want)
	}
	if !slices.Equal(c.Env, []string{"HF_TOKEN=hf_env", "HUGGING_FACE_HUB_TOKEN=hf_env", "VLLM_X=1", "A=b"}) {
		t.Errorf("Env = %q", c.Env)
	}
	if c.Labels[LabelManaged] != "true" || c.Image != "vllm/vllm-openai:v0.11.0" {
		t.Errorf("config = %+v", c)
	}
	if h.IpcMode != "host" || !slices.Equal(h.Binds, []string{"/cache:/root/.cache/huggingface", cfg.CompileCache + ":/root/.cache/vllm"}) {
		t.Errorf("host config = %+v", h)
	}
	if fi, err := os.Stat(cfg.CompileCache); err != nil || !fi.IsDir() {
		t.Errorf("the compile cache folder was not made as the user: %v", err)
	}
	b := h.PortBindings["8000/tcp"]
	if len(b) != 1 || b[0].HostIP != "127.0.0.1" || b[0].HostPort != "12345" {
		t.Errorf("port bindings = %+v", h.PortBindings)
	}
	if len(h.DeviceRequests) != 1 || !slices.Equal(h.DeviceRequests[0].DeviceIDs, []string{"0", "1"}) ||
		h.DeviceRequests[0].Capabilities[0][0] != "gpu" {
		t.Errorf("device requests = %+v", h.DeviceRequests)
	}
	if r := gpuRequest("all"); r.Count != -1 {
		t.Errorf("all GPUs: %+v", r)
	}
	l.noGPU = true
	if _, h, _ := l.containerSpec(cfg, 1, "k", ""); len(h.DeviceRequests) != 0 {
		t.Error("WithoutGPU must drop the device request")
	}
}

// The NVIDIA toolkit error from ContainerStart comes back with its hint and
// the created container is removed.
func TestStartWithoutGPUToolkit(t *testing.T) {
	t.Parallel()
	fake := &fakeAPI{startErr: errors.New(`Error response from daemon: could not select device driver "" with capabilities: [[gpu]]`)}
	l, err := New(context.Background(), WithAPI(fake))
	if err != nil {
		t.Fatal(err)
	}
	_, err = l.Start(context.Background(), vllm.LaunchConfig{Model: "m", GPUs: "all"}, nil)
	var de *Error
	if !errors.As(err, &de) || de.Kind != ErrGPUToolkit || de.Hint != ToolkitHint || !strings.Contains(err.Error(), "NVIDIA Container Toolkit") {
		t.Fatalf("Start = %v", err)
	}
	// A daemon found without the runtime before any launch carries the
	// same kind and the same remedy.
	if nr := NoGPURuntime("27.0", false); nr.Kind != ErrGPUToolkit || nr.Hint != ToolkitHint || !strings.HasPrefix(nr.Error(), "Docker 27.0 has no NVIDIA runtime") {
		t.Errorf("NoGPURuntime = %+v", nr)
	}
	if len(fake.created) != 1 || len(fake.removed) != 1 || !strings.HasPrefix(fake.removed[0], "id-rigbench-") {
		t.Errorf("created %d, removed %q", len(fake.created), fake.removed)
	}
}

func TestStartRefusesInvalidConfig(t *testing.T) {
	t.Parallel()
	l := &Launcher{api: &fakeAPI{}}
	_, err := l.Start(context.Background(), vllm.LaunchConfig{}, nil)
	if err == nil || !strings.Contains(err.Error(), "Choose a model") {
		t.Fatalf("Start = %v", err)
	}
}

func TestLineWriterAndRedaction(t *testing.T) {
	t.Parallel()
	var got []string
	r := redact.New("rb-secret-key", "hf_token_value", "")
	w := &lineWriter{stream: "stdout", emit: func(l LogLine) { got = append(got, r.String(l.Text)) }}
	fmt.Fprint(w, "args: {'api_key': 'rb-secret-key'}\nDownloading 10%\rDownloading 20%\r\nHF hf_token_value")
	w.flush()
	want := []string{"args: {'api_key': '<redacted>'}", "Downloading 10%", "Downloading 20%", "HF <redacted>"}
	if !slices.Equal(got, want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// A short API key is hidden in a container's log as the client hides it
// in a server's answers (issue 42 item 7: the log's redactor skipped
// secrets under 4 characters, so vLLM's echo of its arguments showed a
// 3-character --api-key given in the extra arguments): masked where vLLM
// prints it, in what the observer sees and in the failure's tail, and not
// in every word it is part of.
func TestShortKeyIsHiddenInTheLog(t *testing.T) {
	t.Parallel()
	fake := &fakeAPI{stdout: "non-default args: {'api_key': 'k3y', 'model': 'k3y-model'}\n" +
		"error: unrecognized arguments: --api-key k3y\n"}
	l, err := New(context.Background(), WithAPI(fake))
	if err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	var seen []string
	cfg := vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: "m", Extra: []string{"--api-key", "k3y"}}
	_, err = l.Start(context.Background(), cfg, func(ll LogLine) {
		mu.Lock()
		seen = append(seen, ll.Text)
		mu.Unlock()
	})
	var sf *StartupFailure
	if !errors.As(err, &sf) {
		t.Fatalf("Start = %v, want the start-up failure of a container that ended", err)
	}
	want := []string{"non-default args: {'api_key': '<redacted>', 'model': 'k3y-model'}", "error: unrecognized arguments: --api-key <redacted>"}
	var tail []string
	for _, ll := range sf.Tail {
		tail = append(tail, ll.Text)
	}
	mu.Lock()
	defer mu.Unlock()
	if !slices.Equal(seen, want) || !slices.Equal(tail, want) {
		t.Errorf("observer saw %q, tail %q; want %q", seen, tail, want)
	}
}

// TestNewLabelsItsInstance: RIGBENCH_INSTANCE reaches the containers'
// labels whichever front end makes the launcher (the app's did not read
// it), so CleanupLeftovers of one instance leaves another's servers alone.
func TestNewLabelsItsInstance(t *testing.T) {
	t.Parallel()
	env := func(k string) string { return map[string]string{InstanceEnv: "ci-7"}[k] }
	l, err := New(context.Background(), WithAPI(&fakeAPI{}), WithGetenv(env))
	if err != nil {
		t.Fatal(err)
	}
	if l.labels[LabelInstance] != "ci-7" {
		t.Fatalf("labels %v", l.labels)
	}
	l, err = New(context.Background(), WithAPI(&fakeAPI{}), WithGetenv(func(string) string { return "" }))
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := l.labels[LabelInstance]; ok {
		t.Fatalf("an instance label without %s: %v", InstanceEnv, l.labels)
	}
}

// A server that ended mid-run is explained from its last log lines by the
// start-up recognisers: out of memory (the common case) worded for a
// server that was serving, nothing for a log that names no cause, and an
// early line the server survived is not its end.
func TestExitCause(t *testing.T) {
	lines := func(texts ...string) []LogLine {
		var out []LogLine
		for _, s := range texts {
			out = append(out, LogLine{Stream: "stderr", Text: s})
		}
		return out
	}
	oom := lines("INFO 12-02 01:46:29 [loggers.py:123] Engine 000: Avg generation throughput: 105.2 tokens/s",
		"ERROR 12-02 01:46:43 [core.py:842] torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB.",
		"ERROR 12-02 01:46:43 [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.")
	if got := exitCause(oom); !strings.HasPrefix(got, "the card ran out of memory while serving: lower --gpu-memory-utilization") {
		t.Errorf("out of memory: %q", got)
	}
	if got := exitCause(oom[2:]); got != "" {
		t.Errorf("a death without a cause: %q, want nothing", got)
	}
	early := append(oom[1:2:2], lines(strings.Split(strings.Repeat("INFO serving\n", exitReportLines), "\n")[:exitReportLines]...)...)
	if got := exitCause(early); got != "" {
		t.Errorf("an out-of-memory line %d lines before the end: %q, want nothing", exitReportLines, got)
	}
}

// A rig's own sentence (engine/rig) comes through classify unchanged: a
// dropped tunnel or a rig without Docker is not this machine's Docker
// "not running".
func TestClassifyKeepsTheRigsSentence(t *testing.T) {
	re := &rig.Error{Rig: "ssh://me@box", Message: "Docker does not answer on the rig at /var/run/docker.sock"}
	wrapped := fmt.Errorf("error during connect: %w", re)
	if got := classify(wrapped); got != re {
		t.Fatalf("classify(%v) = %v, want the rig's error", wrapped, got)
	}
}

// "~" in the Hugging Face cache names a folder on the daemon's machine:
// this one's home for the local daemon, the rig user's on an SSH rig, and
// a sentence (not this machine's folder) when the rig's home is unknown.
func TestHomeIsTheDaemonsMachines(t *testing.T) {
	dial := func(context.Context, string, string) (net.Conn, error) { return nil, errors.New("unused") }
	mine, err := os.UserHomeDir()
	if err != nil {
		t.Skip("no home folder here")
	}
	for _, tc := range []struct {
		name string
		l    *Launcher
		want string
	}{
		{"local", &Launcher{getenv: func(string) string { return "" }}, mine + "/.cache/huggingface"},
		{"rig", &Launcher{dockerDial: dial, home: "/home/rig"}, "/home/rig/.cache/huggingface"},
		{"rig, home unknown", &Launcher{dockerDial: dial}, ""},
	} {
		got, err := tc.l.expandHome("~/.cache/huggingface", "the Hugging Face cache folder", "/home/you/.cache/huggingface")
		if got != tc.want || (tc.want == "") != (err != nil) {
			t.Errorf("%s: %q, %v; want %q", tc.name, got, err, tc.want)
		}
		if tc.want == "" && (err == nil || !strings.Contains(err.Error(), "full path on the rig")) {
			t.Errorf("%s: error %v does not say to give a path on the rig", tc.name, err)
		}
	}
}

// A GPU held by a RigBench on another desktop (a rig both reach) is
// refused naming that desktop, since its process number means nothing
// here.
func TestBusyOnASharedRigNamesTheOtherDesktop(t *testing.T) {
	o, ok := ParseOwner("other-desktop/boot-1/4242/99")
	if !ok {
		t.Fatal("owner label did not parse")
	}
	m := Managed{OwnerOK: true, Owner: o, State: o.State(), GPUs: "all"}
	m.Names = []string{"/rigbench-1a2b3c4d5e"}
	e := busyError(m, "GPU 0")
	if !strings.Contains(e.Message, "another RigBench on other-desktop is using GPU 0") || strings.Contains(e.Message, "4242") {
		t.Errorf("message %q", e.Message)
	}
}

// On Windows a GPU refused by this machine's daemon (Docker Desktop) is
// Docker Desktop's sentence with WSL 2's remedy; a rig's, or Linux's, keeps
// the Container Toolkit's.
func TestDesktopGPURefusal(t *testing.T) {
	refused := classify(errors.New(`Error response from daemon: could not select device driver "" with capabilities: [[gpu]]`))
	got := desktopGPU("windows", true, refused)
	var de *Error
	if !errors.As(got, &de) || de.Kind != ErrGPUToolkit || de.Hint != DesktopGPUHint ||
		!strings.HasPrefix(got.Error(), "Docker Desktop does not see your GPU: turn on WSL 2 GPU support") || de.Err == nil {
		t.Errorf("Windows, local daemon: %v", got)
	}
	for _, tc := range []struct {
		goos  string
		local bool
	}{{"windows", false}, {"linux", true}} {
		if got := desktopGPU(tc.goos, tc.local, refused); !errors.As(got, &de) || de.Hint != ToolkitHint {
			t.Errorf("%s, local %v: %v, want the Container Toolkit's remedy", tc.goos, tc.local, got)
		}
	}
	other := errors.New("boom")
	if got := desktopGPU("windows", true, other); got != other {
		t.Errorf("another error came back as %v", got)
	}
}

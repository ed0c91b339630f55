package docker

import (
	"context"
	"fmt"
	"maps"
	"net"
	"net/http"
	"os"
	"time"

	"github.com/docker/docker/client"
)

// Labels RigBench puts on every container it starts, so leftovers from a
// crash can be found and removed.
const (
	LabelManaged = "io.rigbench.managed"
	LabelModel   = "io.rigbench.model"
	// LabelInstance, when set (RIGBENCH_INSTANCE), keeps the containers of
	// separate RigBench instances on one machine apart.
	LabelInstance = "io.rigbench.instance"
	// InstanceEnv is the environment variable whose value New puts in
	// LabelInstance: separate RigBench instances on one machine (users,
	// test runs) never clean up each other's servers, whichever front end
	// started them.
	InstanceEnv = "RIGBENCH_INSTANCE"
	// LabelOwner names the process that started the container
	// (Owner.String): only when it is gone is the container a leftover.
	LabelOwner = "io.rigbench.owner"
	// LabelGPUs is the container's --gpus request ("" for none) and
	// LabelPort its host port, so a second launch can tell what it holds.
	LabelGPUs = "io.rigbench.gpus"
	LabelPort = "io.rigbench.port"
)

// Defaults of a Launcher.
const (
	// DefaultReadyTimeout covers a first launch that downloads tens of GiB of
	// weights before the server comes up.
	DefaultReadyTimeout = 45 * time.Minute
	// DefaultStopTimeout is how long a container gets to exit after SIGTERM.
	DefaultStopTimeout = 10 * time.Second
	defaultPoll        = 500 * time.Millisecond
	defaultPing        = 10 * time.Second
)

// Launcher starts and stops RigBench's containers on one Docker daemon.
type Launcher struct {
	api          API
	noGPU        bool
	readyTimeout time.Duration
	stopTimeout  time.Duration
	poll         time.Duration
	labels       map[string]string
	httpClient   *http.Client
	getenv       func(string) string
	host         string
	owner        string
	dockerDial   func(ctx context.Context, network, addr string) (net.Conn, error)
	home         string
}

// Option configures a Launcher.
type Option func(*Launcher)

// WithAPI uses the given Docker API instead of a client from the
// environment (tests pass fakes or an already-made client).
func WithAPI(api API) Option { return func(l *Launcher) { l.api = api } }

// WithHost connects to the daemon at host ("unix:///var/run/docker.sock")
// instead of DOCKER_HOST or the default.
func WithHost(host string) Option { return func(l *Launcher) { l.host = host } }

// WithDialer reaches the daemon at host through dockerDial and the served
// port through serverDial instead of this machine's sockets: a remote rig
// hands in its SSH connection's dialers (engine/rig), so the Docker API
// and the readiness checks travel through one tunnel. A nil dialer keeps
// the default.
func WithDialer(host string, dockerDial, serverDial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(l *Launcher) {
		l.host, l.dockerDial = host, dockerDial
		if serverDial != nil {
			l.httpClient = &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{Proxy: nil, DialContext: serverDial}}
		}
	}
}

// WithHome is the daemon's machine's home folder, for "~" in a mount's
// source: a remote rig's user's (rig.Conn.Home), since a bind names a
// path on the rig. Without it a remote rig's "~" is refused in a sentence.
func WithHome(home string) Option { return func(l *Launcher) { l.home = home } }

// WithoutGPU leaves out the GPU device request, for the simulator image on
// machines without the NVIDIA container toolkit.
func WithoutGPU() Option { return func(l *Launcher) { l.noGPU = true } }

// WithReadyTimeout sets how long Start waits for the server to be ready.
func WithReadyTimeout(d time.Duration) Option { return func(l *Launcher) { l.readyTimeout = d } }

// WithPollInterval sets how often Start checks readiness.
func WithPollInterval(d time.Duration) Option { return func(l *Launcher) { l.poll = d } }

// WithLabels adds labels to every container; CleanupLeftovers then removes
// only containers that carry all of them (tests use this to stay apart).
func WithLabels(labels map[string]string) Option {
	return func(l *Launcher) { maps.Copy(l.labels, labels) }
}

// WithOwner records o, instead of this process, as the owner of the
// containers the launcher starts: a container is left over only once its
// owner is gone. Tests use it to make a container owned by a process they
// can kill.
func WithOwner(o Owner) Option { return func(l *Launcher) { l.owner = o.String() } }

// WithGetenv sets how the token source "env" reads the environment.
func WithGetenv(getenv func(string) string) Option { return func(l *Launcher) { l.getenv = getenv } }

// New connects to the Docker daemon, negotiating the API version (old
// daemons such as Engine 20.10 speak API 1.41), and checks that it answers.
// A missing daemon or a socket the user may not open comes back as an
// *Error with a hint.
func New(ctx context.Context, opts ...Option) (*Launcher, error) {
	l := &Launcher{
		readyTimeout: DefaultReadyTimeout,
		stopTimeout:  DefaultStopTimeout,
		poll:         defaultPoll,
		labels:       map[string]string{LabelManaged: "true"},
		httpClient:   &http.Client{Timeout: 5 * time.Second},
		getenv:       os.Getenv,
	}
	if me, err := Self(); err == nil {
		l.owner = me.String()
	}
	for _, o := range opts {
		o(l)
	}
	if _, set := l.labels[LabelInstance]; !set {
		if inst := l.getenv(InstanceEnv); inst != "" {
			l.labels[LabelInstance] = inst
		}
	}
	if l.api == nil {
		copts := []client.Opt{client.FromEnv, client.WithAPIVersionNegotiation()}
		if l.dockerDial != nil {
			// A tunnelled daemon: DOCKER_HOST and its TLS settings name
			// this machine's daemon, not the rig's.
			copts = []client.Opt{client.WithAPIVersionNegotiation()}
		}
		if l.host != "" {
			copts = append(copts, client.WithHost(l.host))
		}
		if l.dockerDial != nil {
			copts = append(copts, client.WithDialContext(l.dockerDial)) // after WithHost, which sets its own
		}
		c, err := client.NewClientWithOpts(copts...)
		if err != nil {
			return nil, fmt.Errorf("docker client: %w", err)
		}
		l.api = c
	}
	pctx, cancel := context.WithTimeout(ctx, defaultPing)
	defer cancel()
	if _, err := l.api.Ping(pctx); err != nil {
		l.api.Close()
		return nil, classify(err)
	}
	return l, nil
}

// API returns the Docker API the launcher uses (for tests and tools that
// need more of it, such as building the simulator image).
func (l *Launcher) API() API { return l.api }

// Close releases the connection to the daemon.
func (l *Launcher) Close() error { return l.api.Close() }

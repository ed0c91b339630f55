package session_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/docker/docker/api/types/container"
	"github.com/docker/docker/api/types/events"
	"github.com/docker/docker/api/types/filters"
	"github.com/google/uuid"
	"github.com/rigbench/rigbench/engine/diagnose"
	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/dockertest"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rig/rigtest"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// twoRigs starts two sshd on loopback, both reaching this machine's Docker
// daemon (the simulator image built), and connects to each: a cluster of
// two "remote" rigs whose nodes meet over real TCP on 127.0.0.1.
func twoRigs(ctx context.Context, t *testing.T) (*docker.Launcher, docker.Option, []*rigtest.Server, []*rig.Conn) {
	t.Helper()
	l, label := simImage(ctx, t)
	var servers []*rigtest.Server
	var conns []*rig.Conn
	for range 2 {
		s := rigtest.Start(t, rigtest.Options{})
		servers, conns = append(servers, s), append(conns, connectTo(ctx, t, s))
	}
	return l, label, servers, conns
}

// freePorts are n loopback ports free now.
func freePorts(t *testing.T, n int) []int {
	t.Helper()
	var ports []int
	for range n {
		p, err := docker.FreePort()
		if err != nil {
			t.Fatal(err)
		}
		ports = append(ports, p)
	}
	return ports
}

// clusterLauncher is a two-node stand-in cluster: the head on rig 0 at
// 127.0.0.1, the worker on rig 1 at 127.0.0.2 (both this machine's
// loopback, told apart as vLLM tells nodes apart: by VLLM_HOST_IP).
func clusterLauncher(t *testing.T, conns []*rig.Conn, label docker.Option, env ...string) *session.ClusterLauncher {
	ports := freePorts(t, 2)
	cfg := simLaunch("10")
	// The cluster's tag of the image: another checkout's build retags
	// DefaultTag with an image that has no stand-in ray.
	cfg.Image, cfg.Tag, _ = strings.Cut(simimage.ClusterTag, ":")
	cfg.GPUs, cfg.Env = "", env
	return &session.ClusterLauncher{Config: cfg, Rigs: conns, Addresses: []string{"127.0.0.1", "127.0.0.2"}, Interface: "lo",
		RayPort: ports[0], ServePort: ports[1], Poll: 100 * time.Millisecond, JoinTimeout: time.Minute,
		Options: []docker.Option{docker.WithoutGPU(), label, docker.WithPollInterval(100 * time.Millisecond)}}
}

// syncLog collects a session's log from several goroutines.
type syncLog struct {
	mu sync.Mutex
	b  strings.Builder
}

func (s *syncLog) add(line string) { s.mu.Lock(); s.b.WriteString(line + "\n"); s.mu.Unlock() }
func (s *syncLog) String() string  { s.mu.Lock(); defer s.mu.Unlock(); return s.b.String() }

// noneLeft waits (bounded) until no container of the test remains: a
// worker whose head is gone ends by itself and its daemon removes it.
func noneLeft(t *testing.T, l *docker.Launcher) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	for {
		left, err := l.Managed(ctx)
		if err == nil && len(left) == 0 {
			return
		}
		select {
		case <-ctx.Done():
			var names []string
			for _, m := range left {
				names = append(names, strings.Join(m.Names, ","))
			}
			t.Fatalf("containers left on the rigs: %v (%v)", names, err)
		case <-time.After(200 * time.Millisecond):
		}
	}
}

// The stand-in cluster on two loopback rigs serves one model measured as
// one server: every cell Valid, the cluster recorded, nothing left.
func TestClusterRunOnTwoRigs(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, servers, conns := twoRigs(ctx, t)
	var log syncLog
	plan := rundoc.Plan{Contexts: []int{0, 512}, Concurrency: []int{1, 4}, DurationS: 20, MaxOutput: 128}
	run, err := session.Run(ctx, session.Options{Kind: session.Launch, Launcher: clusterLauncher(t, conns, label), Plan: plan, Log: log.add})
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	for _, c := range run.Cells {
		if c.Status != rundoc.StatusValid {
			t.Errorf("cell %s %d×%d is %s (%s)", c.Phase, c.Context, c.Concurrency, c.Status, c.Reason)
		}
	}
	want := rundoc.Cluster{Rigs: []string{fmt.Sprintf("ssh://127.0.0.1:%d", servers[0].Port), fmt.Sprintf("ssh://127.0.0.1:%d", servers[1].Port)},
		TP: 1, PP: 2, Interface: "lo", GPUs: []int{1, 1}}
	// The link was measured between the containers over real TCP, and
	// reads the simulated default link (10 Gb/s, 50 µs each way) the
	// server's time model pays, not the loopback's.
	if run.Launch != nil && run.Launch.Cluster != nil {
		if l := run.Launch.Cluster.Link; l == nil || l.Gbps > 10.0001 || l.Gbps < 1 || l.RTTUS < 100 || l.Rig != want.Rigs[1] {
			t.Errorf("measured link %+v; want the simulated 10 Gb/s (less on a loaded machine), ≥ 100 µs round trip, to %s", l, want.Rigs[1])
		} else {
			want.Link = l
		}
	}
	if run.Launch == nil || run.Launch.Cluster == nil || fmt.Sprint(*run.Launch.Cluster) != fmt.Sprint(want) {
		t.Errorf("recorded cluster %+v; want %+v", run.Launch, want)
	}
	// Every rig's GPUs are the run's, numbered rig after rig, and each
	// cell's energy is the sum of both rigs' cards (the stand-in
	// nvidia-smi on each rig draws 85% of its card's limit).
	if gpu := sim.DefaultProfile().GPUName; run.Hardware == nil || len(run.Hardware.GPUs) != 2 ||
		run.Hardware.GPUs[0].Name != gpu || run.Hardware.GPUs[1].Index != 1 {
		t.Errorf("recorded hardware %+v; want both rigs' stand-in %s, numbered 0 and 1", run.Hardware, gpu)
	}
	checkClusterEnergy(t, run, want)
	if run.Rig == nil || run.Rig.Name != want.RigName() {
		t.Errorf("recorded rig %+v; want the cluster named %q", run.Rig, want.RigName())
	}
	out := log.String()
	for _, w := range []string{"TP 1 × PP 2", "--network host", "VLLM_HOST_IP=127.0.0.2", "NCCL_SOCKET_IFNAME=lo",
		"2 of 2 node(s) joined", "nvidia-smi in the Ray node's container on each of the 2 rigs", "--distributed-executor-backend ray", "a stand-in for Ray, not Ray", "link to the head"} {
		if !strings.Contains(out, w) {
			t.Errorf("log lacks %q", w)
		}
	}
	if t.Failed() {
		t.Logf("log:\n%s", out)
	}
	noneLeft(t, l)
}

// runUntilFirstCell runs a short plan on the cluster and calls at once
// when its first cell starts.
func runUntilFirstCell(ctx context.Context, t *testing.T, conns []*rig.Conn, label docker.Option, at func()) (*rundoc.Run, *syncLog, error) {
	var once sync.Once
	obs := rundoc.ObserverFunc(func(e rundoc.Event) {
		if e.Kind == rundoc.EventCellStarted {
			once.Do(at)
		}
	})
	log := &syncLog{}
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 4}, DurationS: 20, MaxOutput: 128}
	run, err := session.Run(ctx, session.Options{Kind: session.Launch, Launcher: clusterLauncher(t, conns, label), Plan: plan,
		Observers: []rundoc.Observer{obs}, Log: log.add})
	return run, log, err
}

// runMessage is what a run that failed says: its error and the error it
// recorded.
func runMessage(run *rundoc.Run, err error) string {
	msg := fmt.Sprint(err)
	if run != nil {
		msg += " " + run.Error
	}
	return msg
}

// Cancelling mid-run stops every node on every rig.
func TestClusterCancelLeavesNothing(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, _, conns := twoRigs(ctx, t)
	rctx, rcancel := context.WithCancel(ctx)
	run, log, err := runUntilFirstCell(rctx, t, conns, label, rcancel)
	if err != nil && !errors.Is(err, context.Canceled) {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	if run == nil || run.Status != rundoc.RunCancelled {
		t.Errorf("run %+v; want cancelled", run)
	}
	noneLeft(t, l)
}

// The worker rig's sshd killed mid-run: the run stops, says which rig
// dropped and how to resume, and no container stays on either rig (the
// head is stopped through its rig; the worker, its head gone, ends and is
// removed by its daemon).
func TestClusterRigDropsMidRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, servers, conns := twoRigs(ctx, t)
	run, log, err := runUntilFirstCell(ctx, t, conns, label, servers[1].Kill)
	msg := runMessage(run, err)
	rigName := fmt.Sprintf("127.0.0.1:%d", servers[1].Port)
	if !strings.Contains(msg, rigName) || !strings.Contains(msg, "dropped") || !strings.Contains(msg, "resume the run") {
		t.Errorf("run error %q; want the dropped rig %s named and how to resume\nlog:\n%s", msg, rigName, log.String())
	}
	t.Logf("the run says: %s", msg)
	noneLeft(t, l)
}

// A worker told a head address it cannot reach fails the reach check,
// naming its rig; a worker that keeps trying is named when the bounded
// wait ends. Either way nothing stays.
func TestClusterWorkerCannotReachTheHead(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, servers, conns := twoRigs(ctx, t)
	worker := fmt.Sprintf("127.0.0.1:%d", servers[1].Port)
	// 192.0.2.1 is TEST-NET-1: no host answers there.
	for name, tc := range map[string]struct {
		env  string
		join time.Duration
		want string
	}{
		"gives up": {"RAY_gcs_rpc_server_reconnect_timeout_s=0", time.Minute, "cannot reach the head's Ray port at 192.0.2.1"},
		"missing":  {"RAY_gcs_rpc_server_reconnect_timeout_s=600", 3 * time.Second, "not joined: ssh://" + worker},
	} {
		c := clusterLauncher(t, conns, label, tc.env)
		c.Addresses[0], c.JoinTimeout = "192.0.2.1", tc.join
		var log syncLog
		srv, err := c.Launch(ctx, log.add)
		if err == nil {
			srv.Stop(ctx)
			t.Fatalf("%s: the cluster started with an unreachable head", name)
		}
		if !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), worker) {
			t.Errorf("%s: %v; want %q naming %s\nlog:\n%s", name, err, tc.want, worker, log.String())
		}
		noneLeft(t, l)
	}
}

// A cluster whose RigBench ended without stopping it (its owner gone) is
// removed by the next cluster launch on the rigs, on every rig.
func TestClusterLaunchRemovesWhatACrashLeft(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, _, conns := twoRigs(ctx, t)
	o, killOwner := dockertest.Owner(t)
	crashed := clusterLauncher(t, conns, label)
	crashed.Options = append(crashed.Options, docker.WithOwner(o))
	var log syncLog
	if _, err := crashed.Launch(ctx, log.add); err != nil {
		t.Fatalf("launch: %v\nlog:\n%s", err, log.String())
	}
	if left, err := l.Managed(ctx); err != nil || len(left) != 2 {
		t.Fatalf("%d containers of the first cluster (%v); want its head and its worker", len(left), err)
	}
	killOwner() // the RigBench that started it is gone, its cluster left running
	var again syncLog
	srv, err := clusterLauncher(t, conns, label).Launch(ctx, again.add)
	if err != nil {
		t.Fatalf("second launch: %v\nlog:\n%s", err, again.String())
	}
	removed := strings.Count(again.String(), "removed 2 container(s) left by an earlier RigBench run")
	if removed != 1 {
		t.Errorf("the second launch's log says %d times that it removed the crashed cluster; want once (the rigs share this daemon)\n%s", removed, again.String())
	}
	if err := srv.Stop(ctx); err != nil {
		t.Errorf("stop: %v", err)
	}
	noneLeft(t, l)
}

// A worker whose container dies mid-run takes the server with it, as a
// dead Ray worker takes vLLM's engine: the run ends naming the worker's
// rig, and nothing stays.
func TestClusterWorkerDiesMidRun(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, servers, conns := twoRigs(ctx, t)
	kill := func() {
		list, err := l.Managed(ctx)
		if err != nil {
			t.Error(err)
			return
		}
		for _, m := range list {
			if strings.HasSuffix(strings.Join(m.Names, ","), "-node2") {
				zero := 0
				if err := l.API().ContainerStop(ctx, m.ID, container.StopOptions{Timeout: &zero}); err != nil {
					t.Error(err)
				}
			}
		}
	}
	run, log, err := runUntilFirstCell(ctx, t, conns, label, kill)
	msg := runMessage(run, err)
	worker := fmt.Sprintf("127.0.0.1:%d", servers[1].Port)
	if !strings.Contains(msg, "the Ray node on rig ssh://"+worker+" stopped") {
		t.Errorf("run error %q; want the dead worker's rig named\nlog:\n%s", msg, log.String())
	}
	t.Logf("the run says: %s", msg)
	if !strings.Contains(log.String(), "ActorDiedError") {
		t.Errorf("the server did not die with its worker:\n%s", log.String())
	}
	noneLeft(t, l)
}

// networkRun measures one decode cell of 4 streams on the stand-in cluster
// at real-time speed (the link is measured in real time, so the step must
// be too), with env on every node.
func networkRun(ctx context.Context, t *testing.T, conns []*rig.Conn, label docker.Option, env ...string) (*rundoc.Run, string) {
	t.Helper()
	l := clusterLauncher(t, conns, label, env...)
	// The tiny profile's model, whose hidden size RigBench knows.
	l.Config.Model, l.Config.Extra = vllm.ModelTiny, []string{"--profile", "tiny", "--speed", "1"}
	var log syncLog
	plan := rundoc.Plan{Contexts: []int{0}, Concurrency: []int{4}, DurationS: 6, MaxOutput: 64}
	run, err := session.Run(ctx, session.Options{Kind: session.Launch, Launcher: l, Plan: plan, Log: log.add})
	if err != nil {
		t.Fatalf("run: %v\nlog:\n%s", err, log.String())
	}
	return run, log.String()
}

// On a simulated 20 Mb/s link with 3 ms each way, the cluster's decode
// cell is network-bound with the measured link as evidence and the advice
// says what moves it; on the default 10 Gb/s, 50 µs link the same cell is
// not.
func TestClusterSlowLinkIsNetworkBound(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, _, conns := twoRigs(ctx, t)
	slow, slowLog := networkRun(ctx, t, conns, label, sim.NetworkEnv+"=0.02,3000")
	fast, fastLog := networkRun(ctx, t, conns, label)
	for name, run := range map[string]*rundoc.Run{slowLog: slow, fastLog: fast} {
		if c := run.Launch.Cluster; c == nil || c.Link == nil || c.HiddenSize == 0 {
			t.Fatalf("run recorded %+v, want the measured link and the model's hidden size; log:\n%s", c, name)
		}
	}
	cell := func(run *rundoc.Run) *rundoc.Cell {
		for i := range run.Cells {
			if c := &run.Cells[i]; c.Phase == rundoc.PhaseDecode && c.Status == rundoc.StatusValid {
				return c
			}
		}
		t.Fatalf("no Valid decode cell in %+v", run.Cells)
		return nil
	}
	bound := func(run *rundoc.Run) string {
		for _, b := range diagnose.Cell(run, cell(run)) {
			if b.Kind == diagnose.Network {
				return b.Text()
			}
		}
		return ""
	}
	sn, _ := diagnose.Transfer(slow, cell(slow))
	fn, _ := diagnose.Transfer(fast, cell(fast))
	t.Logf("slow link %s: transfer %.2f ms of %.2f ms; fast link %s: %.2f ms of %.2f ms",
		slow.Launch.Cluster.Link.Text(), sn.TransferS*1e3, sn.StepS*1e3, fast.Launch.Cluster.Link.Text(), fn.TransferS*1e3, fn.StepS*1e3)
	if got := bound(slow); !strings.Contains(got, "network-bound") || !strings.Contains(got, "0.02 Gb/s") {
		t.Errorf("slow link: network diagnosis %q, want network-bound with the measured 0.02 Gb/s", got)
	}
	var advised bool
	for _, a := range diagnose.Advise(slow) {
		advised = advised || (a.Moves == diagnose.Network && strings.Contains(a.Text(), "fewer pipeline stages"))
	}
	if !advised {
		t.Errorf("slow link: no advice on the network in %+v", diagnose.Advise(slow))
	}
	if got := bound(fast); got != "" {
		t.Errorf("fast link: %q, want no network-bound cell", got)
	}
	noneLeft(t, l)
}

// checkClusterEnergy says whether every decode cell of a cluster run was
// read on every rig: one per-GPU figure per rig's GPU, the cell's draw
// their sum, and each GPU's rig as recorded.
func checkClusterEnergy(t *testing.T, run *rundoc.Run, want rundoc.Cluster) {
	t.Helper()
	decode := 0
	for _, c := range run.Cells {
		if c.Phase != rundoc.PhaseDecode || c.Status != rundoc.StatusValid {
			continue
		}
		decode++
		st := c.GPUStats
		if st == nil || len(st.PerGPU) != 2 || c.EnergyJPerToken <= 0 {
			t.Errorf("cell %d×%d: GPU stats %+v, %g J/token; want both rigs' GPUs and an energy figure", c.Context, c.Concurrency, st, c.EnergyJPerToken)
			continue
		}
		sum := 0.0
		for _, g := range st.PerGPU {
			if g.EnergyMeanW <= 0 {
				t.Errorf("cell %d×%d: GPU %d drew %g W; want its rig's card read", c.Context, c.Concurrency, g.GPU, g.EnergyMeanW)
			}
			sum += g.EnergyMeanW
		}
		if d := st.EnergyMeanW - sum; d > 1e-6*sum || d < -1e-6*sum {
			t.Errorf("cell %d×%d: draw %g W, but its GPUs sum to %g W", c.Context, c.Concurrency, st.EnergyMeanW, sum)
		}
	}
	if decode == 0 {
		t.Error("no decode cell measured")
	}
	c := run.Launch.Cluster
	if c == nil || c.RigOfGPU(0) != want.Rigs[0] || c.RigOfGPU(1) != want.Rigs[1] || c.RigOfGPU(2) != "" {
		t.Errorf("cluster %+v: GPU 0 and 1 should be the head's and the worker's", c)
	}
}

// An offline launch (HF_HUB_OFFLINE=1) whose model is in no rig's Hugging
// Face cache stops before any node container is created, naming each rig
// and the download to make; the rigs were asked through labelled
// containers that were removed. An online launch logs each rig's download
// before any node exists. Once the cache holds a snapshot the offline
// launch serves. Nothing is left either way.
func TestClusterModelNotInTheRigsCache(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	l, label, servers, conns := twoRigs(ctx, t)
	// A label of this test's own on every container it makes, which the
	// daemon's events and list are filtered by.
	mine := "io.rigbench.test=" + uuid.NewString()
	k, v, _ := strings.Cut(mine, "=")
	launcher := func(env ...string) *session.ClusterLauncher {
		c := clusterLauncher(t, conns, label, env...)
		c.Options = append(c.Options, docker.WithLabels(map[string]string{k: v}))
		return c
	}
	since := time.Now()
	cache := t.TempDir() // both loopback rigs reach this machine's daemon: one folder for both
	c := launcher("HF_HUB_OFFLINE=1")
	c.Config.HFCache = cache
	var log syncLog
	srv, err := c.Launch(ctx, log.add)
	if err == nil {
		srv.Stop(ctx)
		t.Fatal("an offline cluster started without the model in any rig's cache")
	}
	for _, s := range servers {
		want := fmt.Sprintf("rig ssh://127.0.0.1:%d does not have sim/tiny in its Hugging Face cache (%s) and the launch is offline", s.Port, cache)
		if !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), "`hf download sim/tiny`") {
			t.Errorf("%v\nwant %q and the download to make", err, want)
		}
	}
	nodes, probes := created(ctx, t, l, since, mine)
	if nodes != 0 {
		t.Errorf("%d node container(s) were created although the model check failed:\n%s", nodes, log.String())
	}
	if probes < len(servers) {
		t.Errorf("%d labelled container(s), created and never started, looked into the rigs' caches; want one per rig", probes)
	}
	noneLeft(t, l)

	// Online, the note of each rig's download comes before any node
	// exists: the launch is cancelled at the note, which the node start
	// then refuses.
	lctx, lcancel := context.WithCancel(ctx)
	defer lcancel()
	c = launcher()
	c.Config.HFCache = cache
	var notes, nodesAtNote int
	_, err = c.Launch(lctx, func(line string) {
		log.add(line)
		if strings.HasPrefix(line, "note: rig ") && strings.Contains(line, "its node downloads the model's weights") {
			notes++
			nodesAtNote += countNodes(ctx, t, l, mine)
			if notes == len(servers) {
				lcancel()
			}
		}
	})
	if err == nil || notes != len(servers) || nodesAtNote != 0 {
		t.Errorf("online launch without the model: err %v, %d download note(s) (want %d), %d node container(s) when noted (want 0)\nlog:\n%s",
			err, notes, len(servers), nodesAtNote, log.String())
	}
	noneLeft(t, l)

	if err := os.MkdirAll(filepath.Join(cache, "hub", "models--sim--tiny", "snapshots", "0123abc"), 0o755); err != nil {
		t.Fatal(err)
	}
	c = launcher("HF_HUB_OFFLINE=1")
	c.Config.HFCache = cache
	srv, err = c.Launch(ctx, log.add)
	if err != nil {
		t.Fatalf("with the model cached: %v\nlog:\n%s", err, log.String())
	}
	if err := srv.Stop(ctx); err != nil {
		t.Error(err)
	}
	noneLeft(t, l)
}

// created counts, from the daemon's events since then, the containers
// carrying label that were created: nodes are the cluster's node
// containers; probes the others that were never started, as the cache
// check's are (the GPU readings' one-shot containers start, so they are
// not counted).
func created(ctx context.Context, t *testing.T, l *docker.Launcher, since time.Time, label string) (nodes, probes int) {
	t.Helper()
	ev, ok := l.API().(interface {
		Events(context.Context, events.ListOptions) (<-chan events.Message, <-chan error)
	})
	if !ok {
		t.Fatal("the Docker API cannot list events")
	}
	f := filters.NewArgs(filters.Arg("type", "container"), filters.Arg("event", "create"), filters.Arg("event", "start"), filters.Arg("label", label))
	// Until now (to the nanosecond): the daemon sends what it logged and ends.
	stamp := func(t time.Time) string { return fmt.Sprintf("%d.%09d", t.Unix(), t.Nanosecond()) }
	msgs, errs := ev.Events(ctx, events.ListOptions{Since: stamp(since), Until: stamp(time.Now()), Filters: f})
	unstarted := map[string]bool{}
	for {
		select {
		case m := <-msgs:
			switch _, node := m.Actor.Attributes[docker.LabelCluster]; {
			case m.Action == events.ActionStart:
				delete(unstarted, m.Actor.ID)
			case node:
				nodes++
			default:
				unstarted[m.Actor.ID] = true
			}
		case err := <-errs:
			if err != nil && !errors.Is(err, io.EOF) {
				t.Fatalf("reading the daemon's events: %v", err)
			}
			return nodes, len(unstarted)
		}
	}
}

// countNodes is how many cluster node containers carrying label exist now.
func countNodes(ctx context.Context, t *testing.T, l *docker.Launcher, label string) int {
	t.Helper()
	list, err := l.API().ContainerList(ctx, container.ListOptions{All: true,
		Filters: filters.NewArgs(filters.Arg("label", label), filters.Arg("label", docker.LabelCluster))})
	if err != nil {
		t.Fatal(err)
	}
	return len(list)
}

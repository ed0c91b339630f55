package sim

import (
	"bytes"
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// startHead starts a stand-in head on a free loopback port.
func startHead(t *testing.T, gpus int, now func() time.Time) *RayHead {
	t.Helper()
	h, err := StartRayHead("127.0.0.1:0", RayNode{Address: "127.0.0.1", GPUs: gpus}, now)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(h.Close)
	return h
}

// startWorker joins a worker to the head over TCP and returns its cancel
// (which closes its connection, as a killed container's kernel does) and
// the channel its JoinRay's result arrives on.
func startWorker(t *testing.T, addr string, node RayNode) (context.CancelFunc, <-chan error) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	joined := make(chan string, 1)
	done := make(chan error, 1)
	go func() { done <- JoinRay(ctx, addr, node, 0, func(id string) { joined <- id }) }()
	select {
	case <-joined:
	case err := <-done:
		cancel()
		t.Fatalf("worker %s did not join: %v", node.Address, err)
	}
	t.Cleanup(cancel)
	return cancel, done
}

func aliveCount(nodes []RayNode) (n, gpus int) {
	for _, x := range nodes {
		if x.Alive {
			n++
			gpus += x.GPUs
		}
	}
	return n, gpus
}

func TestRayWorkersRegisterOverTCP(t *testing.T) {
	h := startHead(t, 1, nil)
	startWorker(t, h.Addr(), RayNode{Address: "127.0.0.2", GPUs: 1})
	startWorker(t, h.Addr(), RayNode{Address: "127.0.0.3", GPUs: 2})
	nodes, err := RayStatus(context.Background(), h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if n, g := aliveCount(nodes); n != 3 || g != 4 {
		t.Fatalf("status: %d nodes, %d GPUs; want 3 and 4: %+v", n, g, nodes)
	}
	if !nodes[0].Head || nodes[1].Address != "127.0.0.2" || nodes[2].Address != "127.0.0.3" {
		t.Errorf("nodes out of order or unnamed: %+v", nodes)
	}
	var out bytes.Buffer
	if code := Ray(context.Background(), []string{"status", "--address", h.Addr()}, func(string) string { return "" }, &out, &out); code != 0 {
		t.Fatalf("ray status exit %d: %s", code, out.String())
	}
	for _, want := range []string{" 1 node_2 (127.0.0.2)", " 0.0/4.0 GPU", RayStandInNote, "(no failures)"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("ray status lacks %q:\n%s", want, out.String())
		}
	}
}

func TestRayClaimPlacesTheWorldOrRefuses(t *testing.T) {
	h := startHead(t, 1, nil)
	startWorker(t, h.Addr(), RayNode{Address: "127.0.0.2", GPUs: 1})
	ctx := context.Background()
	c, err := ClaimRay(ctx, h.Addr(), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	if len(c.Nodes) != 2 || !c.Nodes[0].Head || c.Nodes[1].Address != "127.0.0.2" {
		t.Errorf("TP 1 × PP 2 placed on %+v; want the head then the worker", c.Nodes)
	}
	_, err = ClaimRay(ctx, h.Addr(), 2, 2)
	if !errors.Is(err, ErrRayTooFewGPUs) || !strings.Contains(err.Error(), "world size 4") || !strings.Contains(err.Error(), "2 GPU(s)") {
		t.Errorf("TP 2 × PP 2 on 2 GPUs: %v; want vLLM's refusal naming the world size and the GPUs", err)
	}
}

func TestRayWorkerOnAWrongAddressFails(t *testing.T) {
	// A port that was just free and is closed now: connection refused.
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	addr := ln.Addr().String()
	ln.Close()
	err = JoinRay(context.Background(), addr, RayNode{Address: "127.0.0.2", GPUs: 1}, 0, nil)
	if !errors.Is(err, ErrRayUnreachable) || !strings.Contains(err.Error(), addr) {
		t.Fatalf("joining a closed port: %v; want ErrRayUnreachable naming %s", err, addr)
	}
	var out bytes.Buffer
	env := map[string]string{RayWaitEnv: "0", "VLLM_HOST_IP": "127.0.0.2"}
	code := Ray(context.Background(), []string{"start", "--address=" + addr, "--block"}, func(k string) string { return env[k] }, &out, &out)
	if code != 1 || !strings.Contains(out.String(), "ConnectionError") {
		t.Errorf("ray start on a wrong address: exit %d, %q; want 1 and Ray's ConnectionError", code, out.String())
	}
}

func TestRayDeadWorkerReachesTheServer(t *testing.T) {
	h := startHead(t, 1, nil)
	stop, done := startWorker(t, h.Addr(), RayNode{Address: "127.0.0.2", GPUs: 1})
	c, err := ClaimRay(context.Background(), h.Addr(), 1, 2)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	stop() // the worker's process ends: its TCP connection closes
	if err := <-done; err != nil {
		t.Errorf("a stopped worker returns %v; want nil", err)
	}
	n := <-c.Lost
	if n.Address != "127.0.0.2" || n.Alive {
		t.Fatalf("lost %+v; want the dead worker 127.0.0.2", n)
	}
	nodes, err := RayStatus(context.Background(), h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := aliveCount(nodes); a != 1 {
		t.Errorf("%d alive nodes after the worker died; want 1 (the head)", a)
	}
	if _, err := ClaimRay(context.Background(), h.Addr(), 1, 2); !errors.Is(err, ErrRayTooFewGPUs) {
		t.Errorf("claim after the worker died: %v; want ErrRayTooFewGPUs", err)
	}
}

func TestRaySilentWorkerTimesOut(t *testing.T) {
	var mu sync.Mutex
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return now }
	h := startHead(t, 1, clock)
	// A node that registers and then says nothing, with its connection
	// open: a frozen process.
	c, err := net.Dial("tcp", h.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	rc := newRayConn(c)
	rc.send(rayMsg{Op: "register", Node: &RayNode{Address: "127.0.0.9", GPUs: 1}})
	if m, err := rc.recv(); err != nil || m.Op != "ok" {
		t.Fatalf("register: %v %+v", err, m)
	}
	h.Sweep()
	if a, _ := aliveCount(h.Nodes()); a != 2 {
		t.Fatalf("%d alive before the timeout; want 2", a)
	}
	mu.Lock()
	now = now.Add(RayNodeTimeout + time.Second)
	mu.Unlock()
	h.Sweep()
	if a, _ := aliveCount(h.Nodes()); a != 1 {
		t.Errorf("%d alive after %v of silence; want 1", a, RayNodeTimeout)
	}
	// The head closed the silent node's connection.
	if _, err := rc.recv(); err == nil {
		t.Error("the silent node's connection is still open")
	}
}

func TestRayServeDiesWithItsWorker(t *testing.T) {
	h := startHead(t, 1, nil)
	stop, _ := startWorker(t, h.Addr(), RayNode{Address: "127.0.0.2", GPUs: 1})
	cfg := DefaultConfig()
	cfg.Host, cfg.Port, cfg.Speed = "127.0.0.1", 0, 50
	cfg.PipelineParallelSize, cfg.DistributedExecutorBackend, cfg.RayAddress = 2, "ray", h.Addr()
	var log syncBuffer
	ready := make(chan string, 1)
	errc := make(chan error, 1)
	go func() { errc <- Serve(context.Background(), cfg, &log, func(a string) { ready <- a }) }()
	select {
	case <-ready:
	case err := <-errc:
		t.Fatalf("serve over the cluster: %v\n%s", err, log.String())
	}
	if !strings.Contains(log.String(), "placed on 127.0.0.1 (node_1, 1 GPU), 127.0.0.2 (node_2, 1 GPU)") {
		t.Errorf("log does not name the placement:\n%s", log.String())
	}
	stop()
	if err := <-errc; !errors.Is(err, ErrEngineDied) {
		t.Fatalf("serve after its worker died: %v; want ErrEngineDied", err)
	}
	if !strings.Contains(log.String(), "ActorDiedError") || !strings.Contains(log.String(), "127.0.0.2") {
		t.Errorf("log does not say which node died:\n%s", log.String())
	}
}

func TestRayServeRefusesTooFewNodes(t *testing.T) {
	h := startHead(t, 1, nil)
	cfg := DefaultConfig()
	cfg.Host, cfg.Port = "127.0.0.1", 0
	cfg.PipelineParallelSize, cfg.DistributedExecutorBackend, cfg.RayAddress = 2, "ray", h.Addr()
	var log syncBuffer
	err := Serve(context.Background(), cfg, &log, nil)
	if !errors.Is(err, ErrRayTooFewGPUs) || !strings.Contains(log.String(), "EngineCore failed to start") {
		t.Fatalf("PP 2 with one node: %v\n%s; want vLLM's refusal", err, log.String())
	}
	cfg.RayAddress = ""
	if err := Serve(context.Background(), cfg, &log, nil); !errors.Is(err, ErrNoRayCluster) {
		t.Errorf("ray backend with no head: %v; want ErrNoRayCluster", err)
	}
}

// syncBuffer is a bytes.Buffer safe for the server's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

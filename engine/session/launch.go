package session

import (
	"context"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/hardware/probe"
	"net"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Launcher starts an inference server for a session and reports how to
// reach it. The Docker launcher (engine/docker + engine/vllm) implements it.
type Launcher interface {
	Launch(ctx context.Context, log func(string)) (*Server, error)
}

// Server is a running server a Launcher started: how to reach it and what
// its start-up reported. The session, the app's Launch view and the CLI's
// `launch` share this one type.
type Server struct {
	Endpoint string
	// APIKey is the per-launch key; it stays in memory and never reaches
	// the run document, the history or a log.
	APIKey string
	// Model is the name the server serves the model under.
	Model string
	// Version is the engine version the start-up log reported ("" when
	// unknown).
	Version string
	// KVCapacity is the KV cache capacity in tokens read from the start-up
	// log (0 when unknown).
	KVCapacity int
	// KVCacheGiB and WeightsGiB are the KV cache's and the weights' memory
	// from the same log ("Available KV cache memory", "Model loading
	// took"), 0 when it did not say: the roofline figure's inputs.
	KVCacheGiB, WeightsGiB float64
	// MaxModelLen is --max-model-len of the launch, 0 when vLLM chose it.
	MaxModelLen int
	// Record is the launch configuration without secrets.
	Record *rundoc.Launch
	// Rig is the Docker host the server runs on, as a run records it
	// (nil: not a Docker launch).
	Rig *rundoc.Rig
	// Simulated is true when the image is RigBench's simulator.
	Simulated bool
	// Container is the container's name ("" when none), so a user can
	// stop a kept server by hand.
	Container string
	// Exited is closed when the server stops on its own (nil: never
	// reported).
	Exited <-chan struct{}
	// ExitReport says, once Exited is closed, why the server ended (exit
	// code, the recognised failure in its last log lines); nil: nothing.
	ExitReport func() string
	// Dial opens connections to Endpoint (nil: this machine's network);
	// a server on a remote rig is reached through the rig's SSH
	// connection.
	Dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// LinkLost says, for a server behind a tunnel, whether the tunnel
	// dropped (bench.Runner.LinkLost); nil: no tunnel.
	LinkLost func() error
	// Exec runs a command in the server's container and returns its
	// standard output (nil: no container to run it in). A run on a remote
	// rig reads the GPUs' telemetry with it.
	Exec func(ctx context.Context, cmd []string) (string, error)
	// Stop stops and removes the server.
	Stop func(ctx context.Context) error
	// Hardware is the hardware the server runs on when its launcher read
	// it (a cluster: every rig's GPUs, numbered rig after rig); nil: the
	// session reads it.
	Hardware *hardware.Snapshot
	// Telemetry starts the sampler of the server's GPUs where its launcher
	// knows them (a cluster: every rig's, numbered as in Hardware); nil:
	// the session reads them through Exec on a rig, or on this machine.
	Telemetry func(ctx context.Context, log func(string)) (*probe.Sampler, error)
}

// Reuse returns a Launcher that hands s to a session and leaves it running
// afterwards: whoever started it (the app's Launch view) owns it and stops
// it when the user says so.
func (s *Server) Reuse() Launcher { return reused{s} }

type reused struct{ s *Server }

func (r reused) Launch(context.Context, func(string)) (*Server, error) {
	c := *r.s
	c.Stop = func(context.Context) error { return nil }
	return &c, nil
}

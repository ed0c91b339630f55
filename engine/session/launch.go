package session

import (
	"context"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Launcher starts an inference server for a session and reports how to
// reach it. The Docker launcher (engine/docker + engine/vllm) implements it.
type Launcher interface {
	Launch(ctx context.Context, log func(string)) (*Server, error)
}

// Server is a running server a Launcher started.
type Server struct {
	Endpoint string
	// APIKey is the per-launch key; it never reaches the run document.
	APIKey string
	// KVCapacityFromLog is the KV capacity read from the start-up log.
	KVCapacityFromLog int
	// Record is the launch configuration without secrets.
	Record *rundoc.Launch
	// Simulated is true when the image is RigBench's simulator.
	Simulated bool
	// Stop stops and removes the server.
	Stop func(ctx context.Context) error
}

package launchview

import (
	"context"

	"github.com/rigbench/rigbench/engine/vllm"
)

// Server is a vLLM server the launch view started and that is ready.
type Server struct {
	Endpoint string
	// APIKey is the random key of this launch; it stays in memory.
	APIKey string
	// Version is the engine version the server reported.
	Version string
	// KVCapacity is K in tokens (0 when unknown), MaxModelLen the server's.
	KVCapacity, MaxModelLen int
	// Stop stops and removes the container.
	Stop func(context.Context) error
}

// Progress carries start-up progress to the view; both may be called from
// any goroutine.
type Progress struct {
	// Pull reports image-pull bytes done of total (total 0 when unknown).
	Pull func(done, total int64)
	// Log receives each container log line.
	Log func(line string)
}

// LaunchFunc starts a server for cfg and returns when it is ready or has
// failed. A recognised start-up failure is returned as *vllm.StartupError.
type LaunchFunc func(ctx context.Context, cfg vllm.LaunchConfig, p Progress) (*Server, error)

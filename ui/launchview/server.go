package launchview

import (
	"context"

	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
)

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
// The server is engine/session's: the one launch sequence returns it, and a
// run reuses it (Server.Reuse) without a copy of its fields.
type LaunchFunc func(ctx context.Context, cfg vllm.LaunchConfig, p Progress) (*session.Server, error)

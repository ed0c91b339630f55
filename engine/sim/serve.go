package sim

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"time"
)

// ErrEngineDied is returned by Serve when the exit fault killed the engine.
var ErrEngineDied = errors.New("the simulated engine died (exit fault)")

// StartupError is a start-up failure that Serve has already printed in
// vLLM's words.
type StartupError struct{ Err error }

func (e *StartupError) Error() string { return e.Err.Error() }
func (e *StartupError) Unwrap() error { return e.Err }

// Serve runs a simulated server the way `vllm serve` does: it validates cfg
// (printing vLLM's error and returning it when start-up fails), listens on
// cfg.Host:cfg.Port, prints the start-up log to logw and serves until ctx is
// done (a clean shutdown, nil) or the exit fault fires (ErrEngineDied).
// ready, when not nil, receives the listening address once requests can be
// accepted.
func Serve(ctx context.Context, cfg Config, logw io.Writer, ready func(addr string)) error {
	claim, err := claimCluster(ctx, &cfg, logw)
	if err != nil {
		fmt.Fprintf(logw, "ERROR %s [core.py:719] EngineCore failed to start.\n", time.Now().Format("01-02 15:04:05"))
		fmt.Fprintln(logw, err)
		return &StartupError{err}
	}
	if claim != nil {
		defer claim.Close()
	}
	s, err := New(cfg)
	if err != nil {
		fmt.Fprintf(logw, "ERROR %s [core.py:719] EngineCore failed to start.\n", time.Now().Format("01-02 15:04:05"))
		fmt.Fprintln(logw, err)
		return &StartupError{err}
	}
	defer s.Close()
	ln, err := net.Listen("tcp", net.JoinHostPort(s.cfg.Host, strconv.Itoa(s.cfg.Port)))
	if err != nil {
		return fmt.Errorf("cannot listen on %s:%d: %w (choose another --port)", s.cfg.Host, s.cfg.Port, err)
	}
	if claim != nil {
		go watchCluster(s, claim, logw)
	}
	// Port 0 picks a free port: log the real one.
	s.cfg.Port = ln.Addr().(*net.TCPAddr).Port
	s.WriteStartupLog(logw)
	hs := &http.Server{Handler: s.Handler(), ReadHeaderTimeout: 10 * time.Second, ConnState: s.ConnState}
	errc := make(chan error, 1)
	go func() { errc <- hs.Serve(ln) }()
	if ready != nil {
		ready(ln.Addr().String())
	}
	var result error
	select {
	case <-ctx.Done():
		fmt.Fprintln(logw, "INFO:     Shutting down")
	case <-s.Exited():
		fmt.Fprintf(logw, "ERROR %s [core_client.py:564] Engine core proc EngineCore_DP0 died unexpectedly, shutting down client.\n",
			time.Now().Format("01-02 15:04:05"))
		result = ErrEngineDied
	case err := <-errc:
		return err
	}
	s.Close() // ends open streams so Shutdown does not wait for them
	sctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if err := hs.Shutdown(sctx); err != nil {
		hs.Close()
	}
	if result == nil {
		fmt.Fprintln(logw, "INFO:     Application shutdown complete.")
	}
	return result
}

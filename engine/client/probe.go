package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// ProbeTimeout bounds one liveness probe. A server that has died refuses
// the connection or closes it at once; one that accepts and says nothing
// for this long is slow or stuck, which the probe does not call gone.
const ProbeTimeout = 3 * time.Second

// GoneError means the server no longer takes requests: a connection to it
// was refused, or accepted and closed before any answer (a process that
// died behind a port another process still holds, or the simulator's exit
// fault). Refused tells the two apart for the message.
type GoneError struct {
	URL     string
	Refused bool
	Err     error
}

func (e *GoneError) Error() string {
	if e.Refused {
		return fmt.Sprintf("the server at %s refuses connections", e.URL)
	}
	return fmt.Sprintf("the server at %s closes connections without answering", e.URL)
}

func (e *GoneError) Unwrap() error { return e.Err }

// Probe asks the server once, on a fresh connection, whether it is still
// there: GET /health, where any HTTP answer (even 404 or 503) counts as
// alive, since a server that answers is not gone; a *GoneError when the
// connection is refused or closed without an answer. Anything else (a
// timeout, the caller's cancel) returns nil or the caller's error: the probe
// declares a server gone only on evidence, so a busy server is never taken
// for a dead one. A fresh connection matters: a pooled keep-alive
// connection the server closed would fail although the server is alive.
func (c *Client) Probe(ctx context.Context) error {
	pctx, cancel := context.WithTimeout(ctx, ProbeTimeout)
	defer cancel()
	req, err := c.newRequest(pctx, http.MethodGet, "/health", nil)
	if err != nil {
		return err
	}
	tr := newTransport(1)
	tr.DisableKeepAlives = true
	if c.dial != nil {
		tr.DialContext = c.dial
	}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, CheckRedirect: refuseRedirect}).Do(req)
	if err == nil {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
		resp.Body.Close()
		return nil
	}
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.As(err, new(*RedirectError)) {
		return nil // it answered: alive
	}
	switch {
	case connRefused(err) || isDialError(err) && pctx.Err() == nil:
		return &GoneError{URL: c.base.String(), Refused: true, Err: err}
	case errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || connReset(err) || strings.Contains(err.Error(), "server closed idle connection"):
		// EPIPE and net/http's "server closed idle connection" (its
		// word for a close before any response byte, on a fresh
		// connection too) are the same evidence as EOF: a loaded
		// machine lets the close win the race with the write.
		return &GoneError{URL: c.base.String(), Err: err}
	}
	return nil
}

package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"syscall"
)

// MaxTransientRetries is how many times a request that failed before any
// response byte, on a connection the server had just closed, is sent again.
const MaxTransientRetries = 2

// doRetrying sends req and returns an open 2xx response, or the package's
// error. A transient connection error (see transient) is retried at most
// MaxTransientRetries times with a fresh copy of the body; retries says how
// many were needed.
//
// Go's transport retries such a failure only for idempotent requests (GET,
// HEAD, …) or those with an Idempotency-Key header, never for a POST whose
// body it already wrote. But the server answered nothing, so it did not
// start the request: llama-server closes idle keep-alive connections, and a
// client that reuses one at that instant would otherwise fail a whole cell
// on a harmless race (issue 17).
func (c *Client) doRetrying(req *http.Request) (*http.Response, int, error) {
	ctx := req.Context()
	for retries := 0; ; retries++ {
		var reused bool
		trace := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { reused = i.Reused }}
		resp, err := c.http.Do(req.WithContext(httptrace.WithClientTrace(ctx, trace)))
		if err == nil {
			if resp.StatusCode/100 != 2 {
				defer resp.Body.Close()
				return nil, retries, c.scrubErr(statusError(resp))
			}
			return resp, retries, nil
		}
		if retries >= MaxTransientRetries || ctx.Err() != nil || !transient(err, reused) {
			return nil, retries, c.transportError(ctx, err)
		}
		if req.Body != nil && req.Body != http.NoBody {
			if req.GetBody == nil {
				return nil, retries, c.transportError(ctx, err)
			}
			body, gerr := req.GetBody()
			if gerr != nil {
				return nil, retries, c.transportError(ctx, err)
			}
			req = req.Clone(ctx)
			req.Body = body
		}
	}
}

// transient reports whether err is a connection failure before any
// response byte that is safe to send again: the server closed the
// connection just as the client reused it ("server closed idle
// connection"), or a reused connection was reset or ended (EOF, broken
// pipe) before the answer. A fresh connection that fails says the server
// is going away, which is not retried; neither are cancellations.
func transient(err error, reused bool) bool {
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) || isDialError(err) {
		return false
	}
	msg := err.Error()
	if strings.Contains(msg, "server closed idle connection") {
		return true
	}
	if !reused {
		return false
	}
	return errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) ||
		errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.EPIPE) ||
		strings.Contains(msg, "transport connection broken") || strings.Contains(msg, "connection reset")
}

package client

import (
	"context"
	"errors"
	"io"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"
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
				serr := c.scrubErr(statusError(resp))
				resp.Body.Close()
				if wait, ok := honourRetryAfter(ctx, serr, retries); ok {
					if req, err = c.again(req); err != nil {
						return nil, retries, serr
					}
					select {
					case <-ctx.Done():
						return nil, retries, serr
					case <-time.After(wait):
					}
					continue
				}
				return nil, retries, serr
			}
			return resp, retries, nil
		}
		if retries >= MaxTransientRetries || ctx.Err() != nil || !transient(err, reused) {
			return nil, retries, c.transportError(ctx, err)
		}
		if req, err = c.again(req); err != nil {
			return nil, retries, c.transportError(ctx, err)
		}
	}
}

// again is req ready to be sent once more, with a fresh copy of its body.
func (c *Client) again(req *http.Request) (*http.Request, error) {
	if req.Body == nil || req.Body == http.NoBody {
		return req, nil
	}
	if req.GetBody == nil {
		return nil, errors.New("the request's body cannot be sent again")
	}
	body, err := req.GetBody()
	if err != nil {
		return nil, err
	}
	req = req.Clone(req.Context())
	req.Body = body
	return req, nil
}

// MaxRetryAfter is the longest Retry-After the client waits out, and
// MaxRetryAfterRetries how often: a server that is busy for a moment (HTTP
// 429 or 503 with Retry-After) is asked again, within the request's own
// limits (its context: a cell's window, an info request's timeout); one
// that asks for longer, or again and again, fails the request with its
// answer worded.
const (
	MaxRetryAfter        = 30 * time.Second
	MaxRetryAfterRetries = 2
)

// honourRetryAfter says whether to wait out err's Retry-After, and how
// long: only for 429 and 503, up to MaxRetryAfter, MaxRetryAfterRetries
// times, and only when the request's deadline leaves room for it.
func honourRetryAfter(ctx context.Context, err error, retries int) (time.Duration, bool) {
	var he *HTTPError
	if !errors.As(err, &he) || he.RetryAfter <= 0 || he.RetryAfter > MaxRetryAfter || retries >= MaxRetryAfterRetries ||
		he.Status != http.StatusTooManyRequests && he.Status != http.StatusServiceUnavailable {
		return 0, false
	}
	if d, ok := ctx.Deadline(); ok && time.Until(d) <= he.RetryAfter {
		return 0, false
	}
	return he.RetryAfter, true
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
		connReset(err) ||
		strings.Contains(msg, "transport connection broken") || strings.Contains(msg, "connection reset")
}

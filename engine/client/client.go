package client

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/rigbench/rigbench/internal/redact"
)

// Client talks to one OpenAI-compatible server.
type Client struct {
	base        *url.URL
	apiKey      string
	http        *http.Client
	infoTimeout time.Duration
	// personality picks request bodies that differ between servers.
	personality Personality
	// afterFunc runs f after d and returns a function that stops it (a
	// seam for tests; time.AfterFunc otherwise).
	afterFunc func(d time.Duration, f func()) (stop func() bool)
	// dial opens the client's connections (nil: this machine's network).
	dial func(ctx context.Context, network, addr string) (net.Conn, error)
	// sendTimes: streamed requests carry HeaderSimSent (TellSendTimes).
	sendTimes bool
}

// withAfterFunc replaces the timer of FinishGrace (tests).
func withAfterFunc(f func(time.Duration, func()) func() bool) Option {
	return func(c *Client) { c.afterFunc = f }
}

func realAfterFunc(d time.Duration, f func()) func() bool { return time.AfterFunc(d, f).Stop }

// DefaultInfoTimeout bounds each non-streaming request (/v1/models,
// /version, /health, /metrics, /tokenize). They answer in milliseconds on a
// healthy server; a server that accepts the connection and then says
// nothing would otherwise hang the run before its first cell.
const DefaultInfoTimeout = 30 * time.Second

// WithInfoTimeout replaces DefaultInfoTimeout (tests, very slow links).
func WithInfoTimeout(d time.Duration) Option { return func(c *Client) { c.infoTimeout = d } }

// SilentError means the server took the connection but sent no answer to
// a request within the client's limit.
type SilentError struct {
	URL, Path string
	After     time.Duration
}

func (e *SilentError) Error() string {
	return fmt.Sprintf("the server at %s accepted the connection but did not answer %s within %s: is it overloaded, stuck, or not an OpenAI-compatible server?",
		e.URL, e.Path, e.After)
}

// infoContext bounds one non-streaming request to the info timeout.
// explain turns the error of a request cut short by that limit (not by the
// caller) into a *SilentError.
func (c *Client) infoContext(ctx context.Context, path string) (context.Context, context.CancelFunc, func(error) error) {
	d := c.infoTimeout
	if d <= 0 {
		d = DefaultInfoTimeout
	}
	silent := &SilentError{URL: c.base.String(), Path: path, After: d}
	ictx, cancel := context.WithTimeoutCause(ctx, d, silent)
	explain := func(err error) error {
		if err != nil && ctx.Err() == nil && errors.Is(context.Cause(ictx), silent) {
			return silent
		}
		return err
	}
	return ictx, cancel, explain
}

// Option configures a Client.
type Option func(*Client)

// WithAPIKey sends key as a Bearer token on every request. The key is never
// logged or put in an error message.
func WithAPIKey(key string) Option { return func(c *Client) { c.apiKey = key } }

// WithConcurrency sizes the connection pool for n streams in flight. Go's
// default transport keeps only 2 idle connections per host (and 100 in all),
// so a 128-stream window would open and close connections all the time and
// measure the client instead of the server.
func WithConcurrency(n int) Option {
	return func(c *Client) { c.http = &http.Client{Transport: newTransport(n), CheckRedirect: refuseRedirect} }
}

// WithDial opens every connection with dial instead of this machine's
// network: a server on a remote rig is reached through the rig's SSH
// connection (engine/rig), its URL naming the rig's loopback. Nil keeps
// the default.
func WithDial(dial func(ctx context.Context, network, addr string) (net.Conn, error)) Option {
	return func(c *Client) { c.dial = dial }
}

// DefaultConcurrency is the pool size when WithConcurrency is not given.
const DefaultConcurrency = 128

func newTransport(n int) *http.Transport {
	if n < 1 {
		n = 1
	}
	return &http.Transport{
		Proxy:               nil, // benchmark traffic never goes through a proxy
		DialContext:         (&net.Dialer{Timeout: 10 * time.Second, KeepAlive: 30 * time.Second}).DialContext,
		MaxIdleConns:        2*n + 8,
		MaxIdleConnsPerHost: 2*n + 8,
		MaxConnsPerHost:     0, // no cap: each stream has its own connection
		IdleConnTimeout:     90 * time.Second,
		DisableCompression:  true, // SSE is small and latency-bound
		ForceAttemptHTTP2:   false,
		WriteBufferSize:     64 << 10,
		ReadBufferSize:      64 << 10,
	}
}

// New returns a client for the server at endpoint ("http://127.0.0.1:8000",
// with or without a trailing /v1, or a full /v1/completions or
// /v1/chat/completions URL as users paste it).
func New(endpoint string, opts ...Option) (*Client, error) {
	u, err := ParseEndpoint(endpoint)
	if err != nil {
		return nil, err
	}
	c := &Client{base: u, afterFunc: realAfterFunc}
	WithConcurrency(DefaultConcurrency)(c)
	for _, o := range opts {
		o(c)
	}
	if tr, ok := c.http.Transport.(*http.Transport); ok && c.dial != nil {
		tr.DialContext = c.dial
	}
	return c, nil
}

// ParseEndpoint reads a server's address as users give it (New's rule: a
// missing scheme is http, a pasted /v1 or completions path is cut) into
// the base URL requests go to. It is the one reader of an endpoint's
// address: engine/session's TargetInput checks the CLI's --endpoint and
// the app's URL field with it, so both accept what a run can reach.
func ParseEndpoint(endpoint string) (*url.URL, error) {
	s := strings.TrimSpace(endpoint)
	if s == "" {
		return nil, errors.New("no endpoint given: pass the server's URL, e.g. http://127.0.0.1:8000")
	}
	if !strings.Contains(s, "://") {
		s = "http://" + s
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("%q is not a server URL: use the form http://HOST:PORT", endpoint)
	}
	u.Path = basePath(u.Path)
	u.RawQuery, u.Fragment, u.User = "", "", nil
	return u, nil
}

// apiSuffixes are the endpoint paths users paste whole from a server's
// docs or another tool ("…/v1/chat/completions"): the base URL is what
// comes before them. Longest first, so "/v1/chat/completions" is cut
// whole rather than leaving "/v1/chat".
var apiSuffixes = []string{"/v1/chat/completions", "/v1/completions", "/chat/completions", "/completions", "/v1/models", "/v1"}

// basePath is the server's base path from a pasted URL path: without a
// trailing slash and without a known API suffix (issue 30 item 6: a full
// completions URL read as a base answered "HTTP 404: File Not Found").
func basePath(p string) string {
	p = strings.TrimRight(p, "/")
	for _, suf := range apiSuffixes {
		if strings.HasSuffix(p, suf) {
			return strings.TrimRight(strings.TrimSuffix(p, suf), "/")
		}
	}
	return p
}

// Endpoint returns the server's base URL (without /v1).
func (c *Client) Endpoint() string { return c.base.String() }

// CloseIdle closes idle pooled connections (after a run, or on cancel).
func (c *Client) CloseIdle() { c.http.CloseIdleConnections() }

func (c *Client) url(path string) string { return c.base.String() + path }

func (c *Client) newRequest(ctx context.Context, method, path string, body io.Reader) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, method, c.url(path), body)
	if err != nil {
		return nil, err
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if c.apiKey != "" {
		req.Header.Set("Authorization", "Bearer "+c.apiKey)
	}
	return req, nil
}

// do sends req and turns transport failures and error statuses into the
// package's errors, retrying transient connection errors (retry.go). A 2xx
// response is returned open.
func (c *Client) do(req *http.Request) (*http.Response, error) {
	resp, _, err := c.doRetrying(req)
	return resp, err
}

func (c *Client) transportError(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if re := (*RedirectError)(nil); errors.As(err, &re) {
		return re
	}
	if connRefused(err) || isDialError(err) {
		return &UnreachableError{URL: c.base.String(), Err: err}
	}
	if connReset(err) || errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return fmt.Errorf("the server at %s closed the connection without an answer (%w): is it restarting, or behind a proxy that cut it?", c.base.String(), err)
	}
	return fmt.Errorf("request to %s failed: %w", c.base.String(), err)
}

func isDialError(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) && op.Op == "dial"
}

// maxInfoBody bounds a JSON answer such as /v1/models: a server with a
// thousand models answers well under a megabyte.
const maxInfoBody = 8 << 20

// getJSON fetches path and decodes the JSON body into v.
func (c *Client) getJSON(ctx context.Context, path string, v any) error {
	ctx, cancel, explain := c.infoContext(ctx, path)
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, path, nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return explain(err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxInfoBody+1))
	if err != nil {
		return explain(c.transportError(ctx, err))
	}
	if len(body) > maxInfoBody {
		return fmt.Errorf("%s%s answered more than %d MiB, far more than such an answer holds; RigBench stopped reading it", c.base.String(), path, maxInfoBody>>20)
	}
	if err := json.Unmarshal(c.scrubBytes(body), v); err != nil {
		if err := explain(err); err != nil && errors.As(err, new(*SilentError)) {
			return err
		}
		return fmt.Errorf("%s%s answered something that is not the expected JSON: %w", c.base.String(), path, err)
	}
	return nil
}

// scrub removes the client's API key from text the server sent (an error
// body that echoes the Authorization header, a model's name): server text
// is shown on the console and saved with the run, and the key must never
// be. internal/redact's rule decides what is masked, as in a container's
// log.
func (c *Client) scrub(s string) string {
	if c.apiKey == "" {
		return s
	}
	return redact.New(c.apiKey).String(s)
}

// scrubBytes is scrub for a response body.
func (c *Client) scrubBytes(b []byte) []byte {
	if c.apiKey == "" {
		return b
	}
	return redact.New(c.apiKey).Bytes(b)
}

// scrubErr removes the API key from the server's text in the package's
// errors, in place, and returns err.
func (c *Client) scrubErr(err error) error {
	if err == nil || c.apiKey == "" {
		return err
	}
	var (
		he *HTTPError
		pe *PromptTooLongError
		oe *OverCapacityError
		se *StreamError
	)
	switch {
	case errors.As(err, &he):
		he.Message = c.scrub(he.Message)
	case errors.As(err, &pe):
		pe.Message = c.scrub(pe.Message)
	case errors.As(err, &oe):
		oe.Message = c.scrub(oe.Message)
	case errors.As(err, &se):
		se.Reason = c.scrub(se.Reason)
	}
	return err
}

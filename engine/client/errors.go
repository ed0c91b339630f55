package client

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// UnreachableError means nothing answered at the endpoint.
type UnreachableError struct {
	URL string
	Err error
}

func (e *UnreachableError) Error() string {
	return fmt.Sprintf("cannot reach the server at %s: check that it is running and the URL is right", e.URL)
}

func (e *UnreachableError) Unwrap() error { return e.Err }

// ErrUnauthorized means the server answered 401 or 403.
var ErrUnauthorized = errors.New("the server rejected the request: its API key is missing or wrong")

// ErrNotSupported means the server has no such endpoint (404/405/501).
var ErrNotSupported = errors.New("the server does not support this endpoint")

// HTTPError is any other non-2xx answer. Message is the server's own
// explanation when it sent one; RetryAfter is its Retry-After header (0
// when it sent none).
type HTTPError struct {
	Status     int
	Message    string
	RetryAfter time.Duration
}

func (e *HTTPError) Error() string {
	what := ""
	switch {
	case e.Status == http.StatusTooManyRequests:
		what = " (too many requests: it limits how many it takes)"
	case e.Status == http.StatusServiceUnavailable:
		what = " (unavailable: overloaded, or still loading its model)"
	case e.Status >= 500:
		what = " (an error of its own: its log says why)"
	}
	s := fmt.Sprintf("the server answered HTTP %d%s", e.Status, what)
	if e.Message != "" {
		s += ": " + e.Message
	}
	if e.RetryAfter > 0 {
		s += fmt.Sprintf("; it asked to be asked again after %s", e.RetryAfter)
	}
	return s
}

// retryAfter reads a Retry-After header: delay-seconds or an HTTP date
// (RFC 9110 10.2.3); 0 when absent, unreadable or in the past.
func retryAfter(h http.Header, now time.Time) time.Duration {
	v := strings.TrimSpace(h.Get("Retry-After"))
	if v == "" {
		return 0
	}
	if n, err := strconv.ParseInt(v, 10, 64); err == nil {
		if n <= 0 || n > 86400 {
			return 0
		}
		return time.Duration(n) * time.Second
	}
	if t, err := http.ParseTime(v); err == nil && t.After(now) {
		return t.Sub(now).Round(time.Second)
	}
	return 0
}

// PromptTooLongError is the server refusing a prompt longer than its
// context (vLLM and llama-server both answer 400 naming the limit).
type PromptTooLongError struct {
	// MaxContext is the limit the server named, 0 when it named none.
	MaxContext int
	Message    string
}

func (e *PromptTooLongError) Error() string {
	return "the prompt is longer than the server's context: " + e.Message
}

// OverCapacityError is the server refusing or ending a request because its
// KV cache is full: llama-server's 400 exceed_context_size_error "Context
// size has been exceeded." when its shared pool cannot hold every slot's
// tokens. It is the cell's Over capacity, not a broken server.
type OverCapacityError struct{ Message string }

func (e *OverCapacityError) Error() string {
	return "the server ran out of KV cache: " + e.Message
}

// StreamError is a stream that broke: the server sent an error object
// mid-stream, a malformed chunk, a line over MaxSSELineBytes, or the
// connection ended before [DONE].
type StreamError struct {
	Reason string
	// Err is the cause when there is one (ErrLineTooLong, a read error).
	Err error
}

func (e *StreamError) Error() string { return "the stream broke: " + e.Reason }

func (e *StreamError) Unwrap() error { return e.Err }

var (
	overCapRe = regexp.MustCompile(`(?i)context size has been exceeded`)
	tooLongRe = regexp.MustCompile(`(?i)longer than the model's context length|maximum context length|max_model_len|context length is|exceed_context_size|exceeds the available context|n_ctx|too long|longer than the maximum model length`)
	limitRe   = regexp.MustCompile(`(?i)(?:maximum context length is|max_model_len|n_ctx(?:_slot)?)\D{0,20}(\d+)`)
)

// statusError reads an error response into one of the package's errors.
func statusError(resp *http.Response) error {
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 64<<10))
	msg := errorMessage(body)
	switch {
	case resp.StatusCode == http.StatusUnauthorized || resp.StatusCode == http.StatusForbidden:
		return ErrUnauthorized
	case resp.StatusCode == http.StatusNotFound && msg == "",
		resp.StatusCode == http.StatusMethodNotAllowed,
		resp.StatusCode == http.StatusNotImplemented:
		return ErrNotSupported
	case resp.StatusCode == http.StatusBadRequest && overCapRe.MatchString(msg):
		return &OverCapacityError{Message: msg}
	case resp.StatusCode == http.StatusBadRequest && tooLongRe.MatchString(msg):
		return tooLong(msg)
	}
	return &HTTPError{Status: resp.StatusCode, Message: msg, RetryAfter: retryAfter(resp.Header, time.Now())}
}

func tooLong(msg string) *PromptTooLongError {
	e := &PromptTooLongError{Message: msg}
	if m := limitRe.FindStringSubmatch(msg); m != nil {
		fmt.Sscan(m[1], &e.MaxContext)
	}
	return e
}

// errorMessage pulls the human message out of the error bodies servers
// send: {"error":{"message":…}}, {"message":…}, {"detail":…} or plain text.
func errorMessage(body []byte) string {
	var v struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
		Detail  any             `json:"detail"`
	}
	if json.Unmarshal(body, &v) == nil {
		if len(v.Error) > 0 {
			var inner struct {
				Message string `json:"message"`
			}
			if json.Unmarshal(v.Error, &inner) == nil && inner.Message != "" {
				return inner.Message
			}
			var s string
			if json.Unmarshal(v.Error, &s) == nil && s != "" {
				return s
			}
		}
		if v.Message != "" {
			return v.Message
		}
		if v.Detail != nil {
			return fmt.Sprint(v.Detail)
		}
	}
	s := strings.TrimSpace(string(body))
	if len(s) > 300 {
		s = s[:300] + "…"
	}
	return s
}

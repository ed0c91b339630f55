package client

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"net/http"
	"sort"
	"strconv"
	"strings"
)

// Model is one entry of /v1/models.
type Model struct {
	ID string `json:"id"`
	// MaxModelLen is vLLM's max_model_len; 0 when the server does not say.
	MaxModelLen int `json:"max_model_len"`
	// Meta is llama-server's model facts: n_ctx (its context) and
	// n_ctx_train (the model's).
	Meta *struct {
		NCtx      int `json:"n_ctx"`
		NCtxTrain int `json:"n_ctx_train"`
	} `json:"meta,omitempty"`
}

// Models lists the models the server serves.
func (c *Client) Models(ctx context.Context) ([]Model, error) {
	var v struct {
		Data []Model `json:"data"`
	}
	if err := c.getJSON(ctx, "/v1/models", &v); err != nil {
		return nil, err
	}
	return v.Data, nil
}

// UnknownModelError is a model name the server does not serve.
type UnknownModelError struct {
	Name      string
	Available []string
}

func (e *UnknownModelError) Error() string {
	if len(e.Available) == 0 {
		return fmt.Sprintf("the server serves no model named %q (it lists none)", e.Name)
	}
	return fmt.Sprintf("the server serves no model named %q; it has: %s", e.Name, strings.Join(e.Available, ", "))
}

// PickModel returns the model named name, or the only/first model when name
// is empty.
func PickModel(models []Model, name string) (Model, error) {
	if len(models) == 0 {
		return Model{}, errors.New("the server lists no models at /v1/models: is it still loading?")
	}
	if name == "" {
		return models[0], nil
	}
	ids := make([]string, 0, len(models))
	for _, m := range models {
		if m.ID == name {
			return m, nil
		}
		ids = append(ids, m.ID)
	}
	sort.Strings(ids)
	return Model{}, &UnknownModelError{Name: name, Available: ids}
}

// VersionInfo is what /version says. vLLM sends only the version;
// RigBench's simulator adds that it is simulated and its speed factor.
type VersionInfo struct {
	Version   string  `json:"version"`
	Simulated bool    `json:"simulated"`
	Speed     float64 `json:"speed"`
}

// Version returns what the server's /version says (ErrNotSupported when it
// has none).
func (c *Client) Version(ctx context.Context) (VersionInfo, error) {
	var v VersionInfo
	err := c.getJSON(ctx, "/version", &v)
	return v, err
}

// Health reports whether /health answers 2xx. vLLM answers 200 with an
// empty body, llama-server {"status":"ok"}; 503 means loading or dead.
func (c *Client) Health(ctx context.Context) error {
	ctx, cancel, explain := c.infoContext(ctx, "/health")
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, "/health", nil)
	if err != nil {
		return err
	}
	resp, err := c.do(req)
	if err != nil {
		return explain(err)
	}
	io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<16))
	return resp.Body.Close()
}

// ErrNoTokens means /tokenize answered an empty token list for a
// non-empty text: the endpoint exists but did not read the body (llama-server
// answers 200 {"tokens":[]} to a body without "content"), so it cannot
// count prompts.
var ErrNoTokens = errors.New("the server's /tokenize returned no tokens for a non-empty text")

// Tokenize counts the tokens of prompt with the server's tokenizer, with the
// special tokens a completion adds (BOS), in the body this server reads:
// vLLM's {"model","prompt","add_special_tokens"} or llama-server's
// {"content","add_special"}. A server of unknown kind gets vLLM's body and,
// if that yields nothing, llama-server's. ErrNotSupported when the server
// has no /tokenize, ErrNoTokens when it counts nothing.
func (c *Client) Tokenize(ctx context.Context, model, prompt string) (int, error) {
	vllm := map[string]any{"model": model, "prompt": prompt, "add_special_tokens": true}
	llama := map[string]any{"content": prompt, "add_special": true}
	switch c.personality {
	case PersonalityLlama:
		return c.tokenize(ctx, llama, prompt)
	case PersonalityVLLM, PersonalitySGLang:
		return c.tokenize(ctx, vllm, prompt)
	}
	n, err := c.tokenize(ctx, vllm, prompt)
	if errors.Is(err, ErrNoTokens) {
		return c.tokenize(ctx, llama, prompt)
	}
	return n, err
}

func (c *Client) tokenize(ctx context.Context, body map[string]any, prompt string) (int, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return 0, err
	}
	ctx, cancel, explain := c.infoContext(ctx, "/tokenize")
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodPost, "/tokenize", bytes.NewReader(b))
	if err != nil {
		return 0, err
	}
	resp, err := c.do(req)
	if err != nil {
		return 0, explain(err)
	}
	defer resp.Body.Close()
	var v struct {
		Count  *int  `json:"count"`
		Tokens []int `json:"tokens"`
	}
	if err := json.NewDecoder(io.LimitReader(resp.Body, 64<<20)).Decode(&v); err != nil {
		if err := explain(err); errors.As(err, new(*SilentError)) {
			return 0, err
		}
		return 0, fmt.Errorf("/tokenize answered something that is not JSON: %w", err)
	}
	n := -1
	switch {
	case v.Count != nil:
		n = *v.Count
	case v.Tokens != nil:
		n = len(v.Tokens)
	}
	switch {
	case n < 0:
		return 0, ErrNotSupported
	case n == 0 && strings.TrimSpace(prompt) != "":
		return 0, ErrNoTokens
	}
	return n, nil
}

// UnmarshalJSON reads a model entry with its numbers as servers write
// them: 4096, 4096.0 or "4096". A count that is not a whole number from 0
// to 1<<40 reads as 0 (not said), so one odd field never fails the run.
func (m *Model) UnmarshalJSON(b []byte) error {
	var raw struct {
		ID          string   `json:"id"`
		MaxModelLen looseInt `json:"max_model_len"`
		Meta        *struct {
			NCtx      looseInt `json:"n_ctx"`
			NCtxTrain looseInt `json:"n_ctx_train"`
		} `json:"meta,omitempty"`
	}
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*m = Model{ID: raw.ID, MaxModelLen: int(raw.MaxModelLen)}
	if raw.Meta != nil {
		m.Meta = &struct {
			NCtx      int `json:"n_ctx"`
			NCtxTrain int `json:"n_ctx_train"`
		}{int(raw.Meta.NCtx), int(raw.Meta.NCtxTrain)}
	}
	return nil
}

// looseInt is a token count as a server may write it; see Model.UnmarshalJSON.
type looseInt int

func (n *looseInt) UnmarshalJSON(b []byte) error {
	*n = 0
	s := strings.Trim(string(b), `"`)
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || f != math.Trunc(f) || f < 0 || f > 1<<40 {
		return nil
	}
	*n = looseInt(f)
	return nil
}

package client

import (
	"context"
	"errors"
)

// Personality is the kind of server behind an OpenAI-compatible endpoint,
// which decides what RigBench can ask it and read from it (README: Servers).
type Personality string

// Personalities RigBench knows.
const (
	// PersonalityVLLM: /version, max_model_len in /v1/models, vllm:* metrics
	// with cache_config_info (KV capacity), /tokenize with "prompt".
	PersonalityVLLM Personality = "vllm"
	// PersonalityLlama: llama.cpp's llama-server. /props and /slots (context
	// per slot, slots; not the KV pool), llamacpp:* metrics, /tokenize with
	// "content", usage in the last chunk only, no /version.
	PersonalityLlama Personality = "llama-server"
	// PersonalitySGLang: /get_server_info (max_total_num_tokens), sglang:*
	// metrics, no /tokenize.
	PersonalitySGLang Personality = "sglang"
	// PersonalityOpenAI is any other OpenAI-compatible server: only what
	// the completions API itself gives.
	PersonalityOpenAI Personality = "openai"
)

// ServerInfo is what a server says about itself beyond /v1/models.
type ServerInfo struct {
	Personality Personality
	// Version is vLLM's /version, llama-server's build_info or SGLang's
	// version; "" when the server gives none.
	Version string
	// Simulated and Speed: RigBench's simulator and its speed factor.
	Simulated bool
	Speed     float64
	// ContextLimit is the most tokens (prompt + output) one request may
	// have where the server says so outside /v1/models: llama-server's
	// context per slot, SGLang's context_length. 0: not said.
	ContextLimit int
	// KVCapacity is the KV cache in tokens: SGLang's max_total_num_tokens.
	// 0: not said, as llama-server never says it (its /props has no pool
	// size, and a slot's n_ctx is the pool with -kvu but a share of it
	// without, which nothing it answers tells apart).
	KVCapacity int
	// Slots is llama-server's total_slots or SGLang's max_running_requests:
	// the requests it runs at once. 0: not said.
	Slots int
}

// Identify asks the server what it is: its metric names when it has
// /metrics (family), then /version (vLLM), /props (llama-server) and
// /get_server_info (SGLang). Endpoints a server lacks are skipped; only an
// API-key refusal or the caller's cancellation is an error.
func (c *Client) Identify(ctx context.Context, family string) (ServerInfo, error) {
	var info ServerInfo
	fatal := func(err error) bool { return ctx.Err() != nil || errors.Is(err, ErrUnauthorized) }
	v, verr := c.Version(ctx)
	if verr == nil {
		info.Version, info.Simulated, info.Speed = v.Version, v.Simulated, v.Speed
	} else if fatal(verr) {
		return info, verr
	}
	if family == "" || family == "llamacpp" {
		ok, err := c.llamaProps(ctx, &info)
		if err != nil && fatal(err) {
			return info, err
		}
		if ok {
			info.Personality = PersonalityLlama
			return info, nil
		}
	}
	if family == "" || family == "sglang" {
		ok, err := c.sglangInfo(ctx, &info)
		if err != nil && fatal(err) {
			return info, err
		}
		if ok {
			info.Personality = PersonalitySGLang
			return info, nil
		}
	}
	switch {
	case family == "vllm", family == "" && verr == nil:
		info.Personality = PersonalityVLLM
	case family == "llamacpp":
		info.Personality = PersonalityLlama
	case family == "sglang":
		info.Personality = PersonalitySGLang
	default:
		info.Personality = PersonalityOpenAI
	}
	return info, nil
}

// llamaProps reads llama-server's /props and /slots into info (their b9928
// shapes: /props default_generation_settings.n_ctx and total_slots, /slots
// a per-slot n_ctx); false when the server has no such endpoint.
func (c *Client) llamaProps(ctx context.Context, info *ServerInfo) (bool, error) {
	var p struct {
		DGS struct {
			NCtx int `json:"n_ctx"`
		} `json:"default_generation_settings"`
		TotalSlots int     `json:"total_slots"`
		BuildInfo  string  `json:"build_info"`
		Simulated  bool    `json:"simulated"`
		Speed      float64 `json:"speed"`
	}
	if err := c.getJSON(ctx, "/props", &p); err != nil {
		return false, err
	}
	if p.TotalSlots <= 0 && p.DGS.NCtx <= 0 {
		return false, nil // some other server's /props
	}
	slot := p.DGS.NCtx
	var slots []struct {
		NCtx int `json:"n_ctx"`
	}
	if err := c.getJSON(ctx, "/slots", &slots); err == nil && len(slots) > 0 && slots[0].NCtx > 0 {
		slot = slots[0].NCtx
	}
	info.Version = p.BuildInfo
	info.Simulated, info.Speed = info.Simulated || p.Simulated, max(info.Speed, p.Speed)
	info.ContextLimit, info.Slots = slot, max(p.TotalSlots, 0)
	return true, nil
}

// sglangInfo reads SGLang's /get_server_info into info; false when the
// server has none.
func (c *Client) sglangInfo(ctx context.Context, info *ServerInfo) (bool, error) {
	var s struct {
		MaxTotal      int `json:"max_total_num_tokens"`
		ContextLength int `json:"context_length"`
		// MaxRunning is --max-running-requests as the server was started
		// with it (null, read as 0, when SGLang chose it itself).
		MaxRunning int     `json:"max_running_requests"`
		Version    string  `json:"version"`
		Simulated  bool    `json:"simulated"`
		Speed      float64 `json:"speed"`
	}
	if err := c.getJSON(ctx, "/get_server_info", &s); err != nil {
		return false, err
	}
	if s.MaxTotal <= 0 {
		return false, nil
	}
	info.KVCapacity, info.ContextLimit = s.MaxTotal, s.ContextLength
	info.Slots = max(s.MaxRunning, 0)
	if s.Version != "" {
		info.Version = s.Version
	}
	info.Simulated, info.Speed = info.Simulated || s.Simulated, max(info.Speed, s.Speed)
	return true, nil
}

// UsePersonality tells the client which server it talks to, so requests
// whose body differs between servers (/tokenize) take that server's form.
// Call it once, before the client is shared.
func (c *Client) UsePersonality(p Personality) { c.personality = p }

package sim

import (
	"fmt"
	"net"
	"net/http"
	"strings"
	"sync"
	"time"
)

// Personality is the server the simulator imitates. The engine underneath
// is the same; what changes is what a client sees: endpoints, metric
// names, where usage is reported, error bodies, and a few habits (the
// llama-server personality holds queued requests without headers and
// fails requests its shared KV pool cannot hold).
type Personality string

// Personalities.
const (
	// PersonalityVLLM is vLLM's OpenAI-compatible server (the default).
	PersonalityVLLM Personality = "vllm"
	// PersonalityLlama is llama.cpp's llama-server: n_ctx tokens of KV
	// shared by -np slots, /props and /slots, llamacpp:* metrics, usage in
	// the last chunk only, no /version (personality_llama.go).
	PersonalityLlama Personality = "llama-server"
	// PersonalitySGLang is SGLang's server: sglang:* metrics and
	// /get_server_info with max_total_num_tokens (personality_sglang.go).
	PersonalitySGLang Personality = "sglang"
)

// Personalities lists the accepted --personality values.
func Personalities() []Personality {
	return []Personality{PersonalityVLLM, PersonalityLlama, PersonalitySGLang}
}

// ParsePersonality reads a --personality value ("llama.cpp" and "llama"
// are accepted for llama-server).
func ParsePersonality(v string) (Personality, error) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "", "vllm":
		return PersonalityVLLM, nil
	case "llama-server", "llama.cpp", "llama", "llamacpp":
		return PersonalityLlama, nil
	case "sglang":
		return PersonalitySGLang, nil
	}
	names := make([]string, 0, 3)
	for _, p := range Personalities() {
		names = append(names, "'"+string(p)+"'")
	}
	return "", fmt.Errorf("unknown personality %q (choose from %s)", v, strings.Join(names, ", "))
}

// LlamaSettings are llama-server's own sizing flags.
type LlamaSettings struct {
	// CtxSize is -c: the KV cache in tokens, shared by all slots (default
	// 4096 × Slots, rounded down to whole KV blocks).
	CtxSize int
	// Slots is -np: requests processed at once (default 4).
	Slots int
	// KVUnified is -kvu: every slot may use the whole pool (its context is
	// CtxSize); without it each slot gets CtxSize / Slots.
	KVUnified bool
}

// slotCtx is the context of one slot (n_ctx_slot).
func (l LlamaSettings) slotCtx() int {
	if l.KVUnified {
		return l.CtxSize
	}
	return l.CtxSize / l.Slots
}

// applyPersonality fills a personality's defaults into cfg after vLLM's
// own checks: llama-server's slots replace max_num_seqs and the slot
// context replaces max_model_len.
func applyPersonality(cfg *Config) error {
	switch cfg.Personality {
	case "":
		cfg.Personality = PersonalityVLLM
	case PersonalityVLLM, PersonalitySGLang:
	case PersonalityLlama:
		l := &cfg.Llama
		if l.Slots == 0 {
			l.Slots = 4
		}
		if l.CtxSize == 0 {
			l.CtxSize = 4096 * l.Slots
		}
		bs := cfg.Profile.BlockSize
		l.CtxSize -= l.CtxSize % bs
		if l.Slots < 1 || l.CtxSize < bs || l.slotCtx() < bs {
			return fmt.Errorf("llama-server needs at least %d tokens of context per slot (got -c %d, -np %d)", bs, l.CtxSize, l.Slots)
		}
		cfg.MaxNumSeqs = l.Slots
		cfg.MaxModelLen = l.slotCtx()
		if cfg.MaxNumBatchedTokens < l.Slots {
			cfg.MaxNumBatchedTokens = l.Slots
		}
	default:
		_, err := ParsePersonality(string(cfg.Personality))
		return err
	}
	if !(cfg.Faults.CloseIdleRate >= 0 && cfg.Faults.CloseIdleRate <= 1) {
		return fmt.Errorf("the idle-close rate must be between 0 and 1 (got %g)", cfg.Faults.CloseIdleRate)
	}
	return nil
}

// llamaKV is llama-server's KV cache: exactly -c tokens, whatever the
// card's memory (llama.cpp allocates what it is told, or fails to load).
func llamaKV(cfg Config, blockSize int) kvSizing {
	n := cfg.Llama.CtxSize / blockSize
	return kvSizing{
		availableBytes: float64(cfg.Llama.CtxSize) * float64(cfg.Profile.KVBytesPerToken),
		bytesPerToken:  float64(cfg.Profile.KVBytesPerToken),
		numBlocks:      n,
		tokens:         n * blockSize,
	}
}

// persState is the personality-specific state of a Server, guarded by
// Server.mu except where noted.
type persState struct {
	// llama-server's counters, which it updates when a prompt has been
	// processed (prompt) and when a request finishes (predicted): a request
	// cancelled half way never adds its tokens to tokens_predicted_total.
	promptTokens, predictedTokens int64
	promptSeconds, predictedSecs  float64
	decodes                       int64

	// doomed are idle connections picked to be closed (own mutex: ConnState
	// runs on the connections' goroutines).
	connMu sync.Mutex
	doomed map[net.Conn]bool
}

// onFirstToken records a request whose prompt is processed (llama-server's
// prompt counters count only the tokens it computed, not cache hits).
func (s *Server) onFirstToken(sq *seq) {
	p := &s.pers
	p.promptTokens += int64(len(sq.prompt) - sq.cached)
	p.promptSeconds += max(0, sq.firstTokenAt-sq.scheduledAt)
}

// onFinish records a finished request: llama-server's tokens_predicted_total
// and tokens_predicted_seconds_total (the slot's generation time, from its
// first token to its last).
func (s *Server) onFinish(sq *seq) {
	p := &s.pers
	p.predictedTokens += int64(sq.output)
	p.predictedSecs += max(0, sq.lastTokenAt-sq.firstTokenAt)
}

// fail ends a sequence the KV pool cannot hold (failOnFull): llama-server
// answers it with "Context size has been exceeded.".
func (c *core) fail(s *seq) {
	s.failed = true
	c.finish(s)
	c.failed = append(c.failed, s)
}

// publishFailed wakes the handlers of sequences that failed in the last
// step.
func (s *Server) publishFailed() {
	for _, sq := range s.core.failed {
		if st, ok := s.streams[sq]; ok {
			signal(st.notify)
		}
	}
	s.core.failed = s.core.failed[:0]
}

// ConnState closes a fraction (Faults.CloseIdleRate) of the keep-alive
// connections that fall idle, as llama-server does: a connection picked
// is closed after up to 2 ms, or at once if a new request arrives on it
// first, which is the race a client sees as "server closed idle
// connection" (its request was written, nothing was answered). Serve
// installs it; tests put it on their http.Server.
func (s *Server) ConnState(c net.Conn, st http.ConnState) {
	rate := s.cfg.Faults.CloseIdleRate
	if rate <= 0 {
		return
	}
	p := &s.pers
	p.connMu.Lock()
	defer p.connMu.Unlock()
	switch st {
	case http.StateIdle:
		s.mu.Lock()
		pick, delay := s.rng.Float64() < rate, time.Duration(s.rng.IntN(2000))*time.Microsecond
		s.mu.Unlock()
		if !pick {
			return
		}
		if p.doomed == nil {
			p.doomed = map[net.Conn]bool{}
		}
		p.doomed[c] = true
		time.AfterFunc(delay, func() { c.Close() })
	case http.StateActive:
		if p.doomed[c] {
			c.Close()
		}
	case http.StateClosed, http.StateHijacked:
		delete(p.doomed, c)
	}
}

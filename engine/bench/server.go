package bench

import (
	"context"
	"errors"
	"github.com/rigbench/rigbench/engine/rundoc"
	"math"
	"path"
	"strings"

	"github.com/rigbench/rigbench/engine/client"
)

// discovered is what discover learns beyond the run document's Server.
type discovered struct {
	// modelID is the id requests send: the server's own, which for
	// llama-server is a file path the run document does not keep.
	modelID string
	// speed is the simulator's speed factor (0 for a real server);
	// simulated is true for RigBench's simulator of any personality.
	speed     float64
	simulated bool
}

// discover asks the server about itself: the model (name "" takes the
// first one listed), its context limit, version, personality (vLLM,
// llama-server, SGLang or another OpenAI-compatible server), whether it has
// /metrics and a working /tokenize, which figures it cannot give, and its KV
// capacity with the source of that figure: vllm:cache_config_info, then
// llama-server's /props or SGLang's /get_server_info, then kvFromLog (the
// capacity a launcher read from the start-up log, 0 when none); override,
// when > 0, wins over all: METHOD.md puts a typed value last, for servers
// that report none, but a user who types one on purpose (to plan as if the
// cache were that size) gets it, recorded with source "user" (METHOD.md: KV
// capacity). It also returns what requests need (discovered).
func discover(ctx context.Context, c *client.Client, model string, kvFromLog, override int) (rundoc.Server, discovered, error) {
	var d discovered
	models, err := c.Models(ctx)
	if err != nil {
		return rundoc.Server{}, d, err
	}
	m, err := client.PickModel(models, model)
	if err != nil {
		return rundoc.Server{}, d, err
	}
	d.modelID = m.ID
	s := rundoc.Server{Model: modelName(m.ID), MaxModelLen: m.MaxModelLen, KVCapacitySource: rundoc.KVSourceUnknown}
	// A max_model_len no model has (negative, or 2^62) is not planned
	// with: the plan would resolve "max" to it. It counts as not reported.
	if s.MaxModelLen < 0 || s.MaxModelLen > rundoc.MaxContextTokens {
		s.MaxModelLen = 0
	}
	met, err := c.Metrics(ctx)
	switch {
	case err == nil:
		s.HasMetrics = true
	case ctx.Err() != nil:
		return rundoc.Server{}, d, ctx.Err()
	}
	info, err := c.Identify(ctx, met.Family)
	if err != nil {
		return rundoc.Server{}, d, err
	}
	c.UsePersonality(info.Personality)
	s.Version, s.Personality = info.Version, string(info.Personality)
	if info.Slots <= rundoc.MaxConcurrency {
		s.Slots = info.Slots // beyond any plan's concurrency it limits nothing
	}
	if info.Simulated {
		d.speed, d.simulated = info.Speed, true
		c.TellSendTimes() // docs/simulator.md: Figures in card time on a busy machine
	}
	// The longest request: vLLM's max_model_len, else the server's context
	// per request (llama-server's slot, SGLang's context_length), else
	// llama-server's meta.n_ctx.
	if s.MaxModelLen == 0 {
		s.MaxModelLen = info.ContextLimit
	}
	if s.MaxModelLen == 0 && m.Meta != nil {
		s.MaxModelLen = m.Meta.NCtx
	}
	if s.MaxModelLen < 0 || s.MaxModelLen > rundoc.MaxContextTokens {
		s.MaxModelLen = 0
	}
	switch {
	case met.Cache != nil && met.Cache.KVCapacityTokens > 0 && met.Cache.KVCapacityTokens <= math.MaxInt32:
		s.KVCapacityTokens, s.KVCapacitySource = met.Cache.KVCapacityTokens, rundoc.KVSourceMetrics
	case info.KVCapacity > math.MaxInt32:
		// not a real cache: not reported
	case info.KVCapacity > 0:
		s.KVCapacityTokens, s.KVCapacitySource = info.KVCapacity, rundoc.KVSourceServerInfo
	}
	if _, err := c.Tokenize(ctx, d.modelID, "Hello"); err == nil {
		s.HasTokenize = true
	} else if ctx.Err() != nil {
		return rundoc.Server{}, d, ctx.Err()
	} else if errors.Is(err, client.ErrUnauthorized) {
		return rundoc.Server{}, d, err
	}
	if s.KVCapacityTokens == 0 && kvFromLog > 0 {
		s.KVCapacityTokens, s.KVCapacitySource = kvFromLog, rundoc.KVSourceLog
	}
	if override > 0 {
		s.KVCapacityTokens, s.KVCapacitySource = override, rundoc.KVSourceUser
	}
	s.Engine = engineName(info, s.Version, met, s.HasMetrics)
	s.NotReported = notReported(s, met)
	return s, d, nil
}

// modelName is the model as the run document keeps it: a file path (what
// llama-server lists without --alias) becomes its file name, since the
// document holds no paths; a hub id such as "org/model" stays.
func modelName(id string) string {
	if strings.HasPrefix(id, "/") || strings.Contains(id, `\`) || strings.HasSuffix(strings.ToLower(id), ".gguf") {
		return path.Base(strings.ReplaceAll(id, `\`, "/"))
	}
	return id
}

// notReported lists the figures this server does not give (METHOD.md:
// Server-side samples), so they are absent from its cells, never 0.
func notReported(s rundoc.Server, m client.Metrics) []string {
	var out []string
	add := func(missing bool, name string) {
		if missing {
			out = append(out, name)
		}
	}
	add(!s.HasMetrics || !m.HasQueue, rundoc.NotReportedQueue)
	add(!s.HasMetrics || !m.HasKVUsage, rundoc.NotReportedKVUsage)
	add(!s.HasMetrics || !m.HasPrefixCache, rundoc.NotReportedPrefixCache)
	add(!s.HasMetrics || !m.HasPreemptions, rundoc.NotReportedPreemptions)
	add(!s.HasMetrics || !m.HasGenerationTokens, rundoc.NotReportedServerTokens)
	add(!s.HasMetrics || !m.HasDecodeSeconds, rundoc.NotReportedDecodeTime)
	add(!s.HasMetrics || !m.HasPrefillSeconds, rundoc.NotReportedPrefillTime)
	add(s.KVCapacityTokens == 0, rundoc.NotReportedKVCapacity)
	add(!s.HasTokenize, rundoc.NotReportedTokenize)
	return out
}

// engineName names the server in the run document's engine field.
func engineName(info client.ServerInfo, version string, m client.Metrics, hasMetrics bool) string {
	switch {
	case info.Personality == client.PersonalityLlama:
		return "llama.cpp"
	case info.Personality == client.PersonalitySGLang:
		return "sglang"
	case strings.Contains(strings.ToLower(version), "sim"):
		return "simulated"
	case hasMetrics && m.Cache != nil, hasMetrics && m.HasKVUsage:
		return "vllm"
	case version != "":
		return "vllm"
	default:
		return "unknown"
	}
}

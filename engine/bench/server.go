package bench

import (
	"context"
	"errors"
	"github.com/rigbench/rigbench/engine/rundoc"
	"math"
	"strings"

	"github.com/rigbench/rigbench/engine/client"
)

// discover asks the server about itself: the model (name "" takes the
// first one listed), max_model_len, version, engine, whether it has
// /metrics and /tokenize, and its KV capacity with the source of that
// figure. kvFromLog is the capacity a launcher read from the start-up log
// (0 when none); override, when > 0, wins over both: METHOD.md puts a typed
// value last, for servers that report none, but a user who types one on
// purpose (to plan as if the cache were that size) gets it, recorded with
// source "user" (METHOD.md: KV capacity).
// It also returns the simulator's speed factor (0 for a real server).
func discover(ctx context.Context, c *client.Client, model string, kvFromLog, override int) (rundoc.Server, float64, error) {
	models, err := c.Models(ctx)
	if err != nil {
		return rundoc.Server{}, 0, err
	}
	m, err := client.PickModel(models, model)
	if err != nil {
		return rundoc.Server{}, 0, err
	}
	var speed float64
	s := rundoc.Server{Model: m.ID, MaxModelLen: m.MaxModelLen, KVCapacitySource: rundoc.KVSourceUnknown}
	// A max_model_len no model has (negative, or 2^62) is not planned
	// with: the plan would resolve "max" to it. It counts as not reported.
	if s.MaxModelLen < 0 || s.MaxModelLen > rundoc.MaxContextTokens {
		s.MaxModelLen = 0
	}
	if v, err := c.Version(ctx); err == nil {
		s.Version = v.Version
		if v.Simulated {
			speed = v.Speed
		}
	} else if ctx.Err() != nil {
		return rundoc.Server{}, 0, ctx.Err()
	}
	met, err := c.Metrics(ctx)
	switch {
	case err == nil:
		s.HasMetrics = true
		if met.Cache != nil && met.Cache.KVCapacityTokens > 0 && met.Cache.KVCapacityTokens <= math.MaxInt32 {
			s.KVCapacityTokens, s.KVCapacitySource = met.Cache.KVCapacityTokens, rundoc.KVSourceMetrics
		}
	case ctx.Err() != nil:
		return rundoc.Server{}, 0, ctx.Err()
	}
	if _, err := c.Tokenize(ctx, s.Model, "Hello"); err == nil {
		s.HasTokenize = true
	} else if ctx.Err() != nil {
		return rundoc.Server{}, 0, ctx.Err()
	} else if errors.Is(err, client.ErrUnauthorized) {
		return rundoc.Server{}, 0, err
	}
	if s.KVCapacityTokens == 0 && kvFromLog > 0 {
		s.KVCapacityTokens, s.KVCapacitySource = kvFromLog, rundoc.KVSourceLog
	}
	if override > 0 {
		s.KVCapacityTokens, s.KVCapacitySource = override, rundoc.KVSourceUser
	}
	s.Engine = engineName(s.Version, met, s.HasMetrics)
	return s, speed, nil
}

// engineName guesses which server this is from its version and metrics.
func engineName(version string, m client.Metrics, hasMetrics bool) string {
	switch {
	case strings.Contains(strings.ToLower(version), "sim"):
		return "simulated"
	case hasMetrics && m.Cache != nil, hasMetrics && m.HasKVUsage:
		return "vllm"
	case hasMetrics && m.HasQueue && !m.HasKVUsage:
		return "llama.cpp"
	case version != "":
		return "vllm"
	default:
		return "unknown"
	}
}

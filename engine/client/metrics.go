package client

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"
)

// Metrics is what RigBench reads from a server's Prometheus /metrics page.
// Each Has… flag says whether the server exposed the figure at all, so a
// missing figure shows as unavailable rather than zero.
type Metrics struct {
	Running, Waiting float64
	HasQueue         bool
	// KVUsage is the fraction (0–1) of the KV cache in use.
	KVUsage    float64
	HasKVUsage bool
	// Cumulative counters.
	PrefixCacheQueries, PrefixCacheHits  float64
	HasPrefixCache                       bool
	Preemptions                          float64
	HasPreemptions                       bool
	PromptTokens, GenerationTokens       float64
	HasPromptTokens, HasGenerationTokens bool
	// DecodeSeconds is llama-server's tokens_predicted_seconds_total: the
	// time its slots spent generating, summed over finished requests.
	DecodeSeconds    float64
	HasDecodeSeconds bool
	// PrefillSeconds is the server's own time computing prompts, summed
	// over requests: llama-server's prompt_seconds_total, the sum of
	// vLLM's request_prefill_time_seconds histogram (observed when a
	// request finishes).
	PrefillSeconds    float64
	HasPrefillSeconds bool
	// Family is the prefix of the server's metric names: "vllm",
	// "llamacpp", "sglang", or "" when none of them appears.
	Family string
	// Cache holds vllm:cache_config_info's labels when present.
	Cache *CacheConfig
}

// CacheConfig is vLLM's cache configuration as its info metric reports it.
type CacheConfig struct {
	BlockSize    int
	NumGPUBlocks int
	// KVCapacityTokens is kv_cache_size_tokens where the server gives it,
	// else NumGPUBlocks × BlockSize (METHOD.md: KV capacity).
	KVCapacityTokens int
	CacheDtype       string
}

// Metric names, current and older vLLM spellings, and llama-server's.
var (
	runningNames     = []string{"vllm:num_requests_running", "llamacpp:requests_processing", "sglang:num_running_reqs"}
	waitingNames     = []string{"vllm:num_requests_waiting", "llamacpp:requests_deferred", "sglang:num_queue_reqs"}
	kvUsageNames     = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"}
	prefixQueryNames = []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"}
	prefixHitNames   = []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"}
	preemptionNames  = []string{"vllm:num_preemptions_total", "vllm:num_preemptions"}
	promptTokNames   = []string{"vllm:prompt_tokens_total", "vllm:prompt_tokens", "llamacpp:prompt_tokens_total", "sglang:prompt_tokens_total"}
	genTokNames      = []string{"vllm:generation_tokens_total", "vllm:generation_tokens", "llamacpp:tokens_predicted_total", "sglang:generation_tokens_total"}
	decodeSecNames   = []string{"llamacpp:tokens_predicted_seconds_total"}
	prefillSecNames  = []string{"llamacpp:prompt_seconds_total", "vllm:request_prefill_time_seconds"}
)

// metricFamilies are the name prefixes that say which server this is.
var metricFamilies = []string{"vllm", "llamacpp", "sglang"}

// Metrics scrapes /metrics. ErrNotSupported when the server has none.
func (c *Client) Metrics(ctx context.Context) (Metrics, error) {
	ctx, cancel, explain := c.infoContext(ctx, "/metrics")
	defer cancel()
	req, err := c.newRequest(ctx, http.MethodGet, "/metrics", nil)
	if err != nil {
		return Metrics{}, err
	}
	resp, err := c.do(req)
	if err != nil {
		return Metrics{}, explain(err)
	}
	defer resp.Body.Close()
	m, err := ParseMetrics(io.LimitReader(resp.Body, 32<<20))
	if err != nil {
		if err := explain(err); errors.As(err, new(*SilentError)) {
			return Metrics{}, err
		}
	}
	return m, err
}

// ParseMetrics reads a Prometheus text exposition with expfmt.
func ParseMetrics(r io.Reader) (Metrics, error) {
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(r)
	if err != nil {
		return Metrics{}, fmt.Errorf("the server's /metrics page is not valid Prometheus text: %w", err)
	}
	var m Metrics
	m.Running, m.HasQueue = sum(fams, runningNames)
	m.Waiting, _ = sum(fams, waitingNames)
	m.KVUsage, m.HasKVUsage = sum(fams, kvUsageNames)
	m.PrefixCacheQueries, m.HasPrefixCache = sum(fams, prefixQueryNames)
	m.PrefixCacheHits, _ = sum(fams, prefixHitNames)
	m.Preemptions, m.HasPreemptions = sum(fams, preemptionNames)
	m.PromptTokens, m.HasPromptTokens = sum(fams, promptTokNames)
	m.GenerationTokens, m.HasGenerationTokens = sum(fams, genTokNames)
	m.DecodeSeconds, m.HasDecodeSeconds = sum(fams, decodeSecNames)
	m.PrefillSeconds, m.HasPrefillSeconds = sum(fams, prefillSecNames)
	m.Family = family(fams)
	m.Cache = cacheConfig(fams["vllm:cache_config_info"])
	return m, nil
}

// family returns the known prefix most of the metric names carry.
func family(fams map[string]*dto.MetricFamily) string {
	best, bestN := "", 0
	for _, f := range metricFamilies {
		n := 0
		for name := range fams {
			if strings.HasPrefix(name, f+":") {
				n++
			}
		}
		if n > bestN {
			best, bestN = f, n
		}
	}
	return best
}

// sum adds the values of every series of the first family present among
// names (several model names or engines each get a series).
func sum(fams map[string]*dto.MetricFamily, names []string) (float64, bool) {
	for _, n := range names {
		f, ok := fams[n]
		if !ok {
			continue
		}
		var total float64
		for _, m := range f.GetMetric() {
			total += value(m)
		}
		return total, true
	}
	return 0, false
}

func value(m *dto.Metric) float64 {
	switch {
	case m.Gauge != nil:
		return m.Gauge.GetValue()
	case m.Counter != nil:
		return m.Counter.GetValue()
	case m.Untyped != nil:
		return m.Untyped.GetValue()
	case m.Histogram != nil:
		return m.Histogram.GetSampleSum() // the total of what it observed
	}
	return 0
}

func cacheConfig(f *dto.MetricFamily) *CacheConfig {
	if f == nil || len(f.GetMetric()) == 0 {
		return nil
	}
	labels := map[string]string{}
	for _, l := range f.GetMetric()[0].GetLabel() {
		labels[l.GetName()] = l.GetValue()
	}
	atoi := func(k string) int {
		v, err := strconv.ParseFloat(labels[k], 64)
		if err != nil || v < 0 || v > 1e15 {
			return 0
		}
		return int(v)
	}
	cc := &CacheConfig{BlockSize: atoi("block_size"), NumGPUBlocks: atoi("num_gpu_blocks"),
		KVCapacityTokens: atoi("kv_cache_size_tokens"), CacheDtype: labels["cache_dtype"]}
	if cc.KVCapacityTokens == 0 {
		cc.KVCapacityTokens = cc.BlockSize * cc.NumGPUBlocks
	}
	return cc
}

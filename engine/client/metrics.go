package client

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
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
	// Spec is the server's speculative-decoding counters; nil when it
	// exposes none (it does not decode speculatively, or is no vLLM).
	Spec *SpecCounters
	// SpecAcceptLength is SGLang's sglang:spec_accept_length gauge, the
	// tokens each drafted step yields lately; HasSpecAcceptLength says
	// whether the server exposes it.
	SpecAcceptLength    float64
	HasSpecAcceptLength bool
}

// SpecCounters are vLLM's cumulative speculative-decoding counters
// (shared/VLLM.md): drafts proposed (one per sequence and drafted step),
// draft tokens proposed, draft tokens accepted, and the accepted ones by
// draft position (AcceptedPerPos[i] for position label i).
type SpecCounters struct {
	Drafts, DraftTokens, Accepted float64
	AcceptedPerPos                []float64
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
	runningNames      = []string{"vllm:num_requests_running", "llamacpp:requests_processing", "sglang:num_running_reqs"}
	waitingNames      = []string{"vllm:num_requests_waiting", "llamacpp:requests_deferred", "sglang:num_queue_reqs"}
	kvUsageNames      = []string{"vllm:kv_cache_usage_perc", "vllm:gpu_cache_usage_perc", "sglang:token_usage"}
	prefixQueryNames  = []string{"vllm:prefix_cache_queries_total", "vllm:prefix_cache_queries", "vllm:gpu_prefix_cache_queries_total", "vllm:gpu_prefix_cache_queries"}
	prefixHitNames    = []string{"vllm:prefix_cache_hits_total", "vllm:prefix_cache_hits", "vllm:gpu_prefix_cache_hits_total", "vllm:gpu_prefix_cache_hits"}
	preemptionNames   = []string{"vllm:num_preemptions_total", "vllm:num_preemptions"}
	promptTokNames    = []string{"vllm:prompt_tokens_total", "vllm:prompt_tokens", "llamacpp:prompt_tokens_total", "sglang:prompt_tokens_total"}
	genTokNames       = []string{"vllm:generation_tokens_total", "vllm:generation_tokens", "llamacpp:tokens_predicted_total", "sglang:generation_tokens_total"}
	decodeSecNames    = []string{"llamacpp:tokens_predicted_seconds_total"}
	specDraftNames    = []string{"vllm:spec_decode_num_drafts_total", "vllm:spec_decode_num_drafts"}
	specDraftTokNames = []string{"vllm:spec_decode_num_draft_tokens_total", "vllm:spec_decode_num_draft_tokens"}
	specAcceptNames   = []string{"vllm:spec_decode_num_accepted_tokens_total", "vllm:spec_decode_num_accepted_tokens"}
	specPerPosNames   = []string{"vllm:spec_decode_num_accepted_tokens_per_pos_total", "vllm:spec_decode_num_accepted_tokens_per_pos"}
	specLengthNames   = []string{"sglang:spec_accept_length"}
	prefillSecNames   = []string{"llamacpp:prompt_seconds_total", "vllm:request_prefill_time_seconds"}
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

// ParseMetrics reads a Prometheus text exposition with expfmt, keeping
// only the series RigBench reads (see wantedLines), so a server with a
// 20 MB page of other metrics costs a scan, not 10× its size in parsed
// structs.
func ParseMetrics(r io.Reader) (Metrics, error) {
	kept, families, err := wantedLines(r)
	if err != nil {
		return Metrics{}, fmt.Errorf("the server's /metrics page is not valid Prometheus text: %w", err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(kept))
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
	m.Family = family(families)
	m.Cache = cacheConfig(fams[cacheInfoName])
	m.Spec = specCounters(fams)
	m.SpecAcceptLength, m.HasSpecAcceptLength = sum(fams, specLengthNames)
	return m, nil
}

// maxSpecPositions bounds the per-position series read: no drafter
// proposes more than a handful of tokens, a hostile page could list
// millions of positions.
const maxSpecPositions = 64

// specCounters reads vLLM's speculative-decoding counters: nil unless the
// drafts, draft-token and accepted-token counters are all there.
func specCounters(fams map[string]*dto.MetricFamily) *SpecCounters {
	var s SpecCounters
	var ok1, ok2, ok3 bool
	s.Drafts, ok1 = sum(fams, specDraftNames)
	s.DraftTokens, ok2 = sum(fams, specDraftTokNames)
	s.Accepted, ok3 = sum(fams, specAcceptNames)
	if !ok1 || !ok2 || !ok3 {
		return nil
	}
	for _, n := range specPerPosNames {
		f, found := fams[n]
		if !found {
			continue
		}
		for _, m := range f.GetMetric() {
			pos := -1
			for _, l := range m.GetLabel() {
				if l.GetName() == "position" {
					if v, err := strconv.Atoi(l.GetValue()); err == nil && v >= 0 && v < maxSpecPositions {
						pos = v
					}
				}
			}
			v := value(m)
			if pos < 0 || math.IsNaN(v) || math.IsInf(v, 0) {
				continue
			}
			for len(s.AcceptedPerPos) <= pos {
				s.AcceptedPerPos = append(s.AcceptedPerPos, 0)
			}
			s.AcceptedPerPos[pos] += v
		}
		break
	}
	return &s
}

// cacheInfoName is vLLM's info metric whose labels are its cache
// configuration.
const cacheInfoName = "vllm:cache_config_info"

// wantedNames is every metric name ParseMetrics reads.
var wantedNames = func() map[string]bool {
	w := map[string]bool{cacheInfoName: true}
	for _, l := range [][]string{runningNames, waitingNames, kvUsageNames, prefixQueryNames, prefixHitNames,
		preemptionNames, promptTokNames, genTokNames, decodeSecNames, prefillSecNames,
		specDraftNames, specDraftTokNames, specAcceptNames, specPerPosNames, specLengthNames} {
		for _, n := range l {
			w[n] = true
		}
	}
	return w
}()

// histogramSuffixes are the sample names of a histogram or summary
// family beside its own name (# TYPE names the family).
var histogramSuffixes = []string{"_bucket", "_sum", "_count", "_created"}

// wanted reports whether a line about name belongs to a family ParseMetrics
// reads: the name itself, or a histogram's or summary's sample of one.
func wanted(name []byte) bool {
	if wantedNames[string(name)] {
		return true
	}
	for _, suf := range histogramSuffixes {
		if base, ok := bytes.CutSuffix(name, []byte(suf)); ok && wantedNames[string(base)] {
			return true
		}
	}
	return false
}

// maxKeptMetrics bounds the text of the wanted series: a real server has
// a few series of each (one per model or engine), a hostile one could
// send millions.
const maxKeptMetrics = 1 << 20

// maxMetricsLine is the longest line kept whole; the rest of a longer
// line is skipped (its name is in its first bytes).
const maxMetricsLine = 64 << 10

// wantedLines reads a Prometheus text page line by line and returns the
// lines of the wanted metrics (samples and their # HELP / # TYPE), and,
// for each known family prefix, how many metric names carry it. The text
// format keeps a family's lines together, so a name is counted when it
// differs from the line before. A line that is neither blank, a comment,
// nor a sample starting with a metric name is an error: an HTML page is
// refused here, as the full parser would refuse it.
func wantedLines(r io.Reader) (kept []byte, families map[string]int, err error) {
	br := bufio.NewReaderSize(r, maxMetricsLine)
	families = map[string]int{}
	var prev []byte
	for {
		line, rerr := br.ReadSlice('\n')
		whole := rerr != bufio.ErrBufferFull
		if rerr != nil && rerr != io.EOF && rerr != bufio.ErrBufferFull {
			return nil, nil, rerr
		}
		if len(line) > 0 {
			name, sample, ok := metricsLineName(line)
			if !ok {
				return nil, nil, fmt.Errorf("line %q is not a metric", cut(line, 40))
			}
			if sample && len(name) > 0 && !bytes.Equal(name, prev) {
				prev = append(prev[:0], name...)
				if i := bytes.IndexByte(name, ':'); i > 0 {
					families[string(name[:i])]++
				}
			}
			if wanted(name) && whole {
				if len(kept)+len(line) > maxKeptMetrics {
					return nil, nil, fmt.Errorf("the series RigBench reads take over %d MiB", maxKeptMetrics>>20)
				}
				kept = append(kept, line...)
				if line[len(line)-1] != '\n' {
					kept = append(kept, '\n')
				}
			}
		}
		for rerr == bufio.ErrBufferFull { // skip the rest of an overlong line
			_, rerr = br.ReadSlice('\n')
		}
		if rerr == io.EOF {
			return kept, families, nil
		}
		if rerr != nil {
			return nil, nil, rerr
		}
	}
}

// metricsLineName returns the metric name a line is about: a sample's
// own name (sample true), the name of a # HELP or # TYPE comment, or
// nothing for a blank line, another comment, or a sample whose name is
// quoted (the UTF-8 form, which none of the wanted names needs). ok is
// false for a line that cannot be Prometheus text. The name aliases line.
func metricsLineName(line []byte) (name []byte, sample, ok bool) {
	s := bytes.TrimRight(bytes.TrimLeft(line, " \t"), "\r\n")
	switch {
	case len(s) == 0:
		return nil, false, true
	case s[0] == '#':
		for _, kw := range [][]byte{[]byte("# HELP "), []byte("# TYPE ")} {
			if rest, found := bytes.CutPrefix(s, kw); found {
				rest = bytes.TrimLeft(rest, " \t")
				if end := bytes.IndexAny(rest, " \t"); end >= 0 {
					rest = rest[:end]
				}
				return rest, false, true
			}
		}
		return nil, false, true
	case s[0] == '{':
		return nil, true, true
	}
	end := bytes.IndexAny(s, "{ \t")
	if end < 0 {
		end = len(s)
	}
	name = s[:end]
	for i, c := range name {
		if !(c == '_' || c == ':' || 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || i > 0 && '0' <= c && c <= '9') {
			return nil, false, false
		}
	}
	return name, true, true
}

// cut returns b's first n bytes as a string, for an error message.
func cut(b []byte, n int) string {
	if len(b) > n {
		b = b[:n]
	}
	return strings.TrimRight(string(b), "\r\n")
}

// family returns the known prefix most of the metric names carry, from
// wantedLines' counts.
func family(counts map[string]int) string {
	best, bestN := "", 0
	for _, f := range metricFamilies {
		if n := counts[f]; n > bestN {
			best, bestN = f, n
		}
	}
	return best
}

// sum adds the values of every series of the first family present among
// names (several model names or engines each get a series). A family with
// a NaN or infinite value (Prometheus text allows both) counts as not
// reported: no figure can be made from it, a NaN waiting gauge would never
// read 0 (the idle wait before a cell would wait out its limit), and a NaN
// counter's delta would reach a cell as a number JSON cannot hold.
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
		if math.IsNaN(total) || math.IsInf(total, 0) {
			return 0, false
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

package sim

import (
	"bytes"
	"io"
	"math"
	"net/http"
	"strings"
	"testing"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"github.com/rigbench/rigbench/engine/client"
)

// scraped is one /metrics page: what the project's own parser
// (engine/client) reads of it, and its metric families for the figures
// that parser does not keep.
type scraped struct {
	parsed client.Metrics
	fams   map[string]*dto.MetricFamily
}

// scrapeMetrics reads /metrics; the page must parse with engine/client's
// parser and with expfmt.
func scrapeMetrics(t *testing.T, url string) scraped {
	t.Helper()
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	m, err := client.ParseMetrics(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("engine/client cannot parse /metrics: %v", err)
	}
	p := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := p.TextToMetricFamilies(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	return scraped{parsed: m, fams: fams}
}

// value is a counter's value, summed over its series; with source, only
// the series of that source label.
func (s scraped) value(name, source string) float64 {
	total := 0.0
	for _, m := range s.fams[name].GetMetric() {
		if source != "" && label(m, "source") != source {
			continue
		}
		total += m.GetCounter().GetValue()
	}
	return total
}

func (s scraped) sum(name string) float64 {
	return s.fams[name].GetMetric()[0].GetHistogram().GetSampleSum()
}

func (s scraped) count(name string) float64 {
	return float64(s.fams[name].GetMetric()[0].GetHistogram().GetSampleCount())
}

func label(m *dto.Metric, name string) string {
	for _, l := range m.GetLabel() {
		if l.GetName() == name {
			return l.GetValue()
		}
	}
	return ""
}

// TestPrefillMetricTypes: vLLM's prefill metrics have vLLM's names,
// Prometheus types, labels and buckets (request_prefill_time_seconds: the
// request-latency buckets; request_prefill_kv_computed_tokens: 1, 2, 5, …
// up to max_model_len).
func TestPrefillMetricTypes(t *testing.T) {
	cfg := fastConfig()
	cfg.MaxModelLen = 32768
	_, url := newTestServer(t, cfg)
	post(t, url+"/v1/completions", `{"prompt":"warm the counters","max_tokens":2}`)
	resp, err := http.Get(url + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	page := string(b)
	for _, line := range []string{
		"# TYPE vllm:request_prefill_time_seconds histogram",
		"# TYPE vllm:request_prefill_kv_computed_tokens histogram",
		"# TYPE vllm:prompt_tokens_cached_total counter",
		"# TYPE vllm:prompt_tokens_by_source_total counter",
	} {
		if !strings.Contains(page, line+"\n") {
			t.Errorf("/metrics lacks %q", line)
		}
	}
	m := scrapeMetrics(t, url)
	want := map[string]dto.MetricType{
		"vllm:request_prefill_time_seconds":       dto.MetricType_HISTOGRAM,
		"vllm:request_prefill_kv_computed_tokens": dto.MetricType_HISTOGRAM,
		"vllm:prompt_tokens_cached_total":         dto.MetricType_COUNTER,
		"vllm:prompt_tokens_by_source_total":      dto.MetricType_COUNTER,
		"vllm:time_to_first_token_seconds":        dto.MetricType_HISTOGRAM,
		"vllm:prefix_cache_hits_total":            dto.MetricType_COUNTER,
	}
	for name, typ := range want {
		f, ok := m.fams[name]
		if !ok || f.GetType() != typ {
			t.Errorf("%s: %v, want %v", name, f.GetType(), typ)
		}
	}
	sources := map[string]bool{}
	for _, s := range m.fams["vllm:prompt_tokens_by_source_total"].GetMetric() {
		sources[label(s, "source")] = true
		if label(s, "model_name") == "" || label(s, "engine") != "0" {
			t.Errorf("series without vLLM's labels: %v", s.GetLabel())
		}
	}
	if len(sources) != 3 || !sources["local_compute"] || !sources["local_cache_hit"] || !sources["external_kv_transfer"] {
		t.Errorf("sources %v", sources)
	}
	var bounds []float64
	for _, bk := range m.fams["vllm:request_prefill_kv_computed_tokens"].GetMetric()[0].GetHistogram().GetBucket() {
		bounds = append(bounds, bk.GetUpperBound())
	}
	if len(bounds) != 15 || bounds[0] != 1 || bounds[2] != 5 || bounds[13] != 20000 || !math.IsInf(bounds[14], 1) {
		t.Errorf("kv computed buckets %v, want 1, 2, 5 … 20000, +Inf for max_model_len 32768", bounds)
	}
	if got := m.value("vllm:prompt_tokens_by_source_total", "local_compute"); got != m.parsed.PromptTokens {
		t.Errorf("local_compute %g, prompt_tokens_total %g (one uncached request)", got, m.parsed.PromptTokens)
	}
}

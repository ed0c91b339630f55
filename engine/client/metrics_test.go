package client

import (
	"fmt"
	"strings"
	"testing"
)

const vllmMetrics = `# HELP vllm:num_requests_running Number of requests in model execution batches.
# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{engine="0",model_name="m"} 7.0
# TYPE vllm:num_requests_waiting gauge
vllm:num_requests_waiting{engine="0",model_name="m"} 2.0
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.42
# TYPE vllm:prefix_cache_queries counter
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 1000.0
# TYPE vllm:prefix_cache_hits counter
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 900.0
# TYPE vllm:num_preemptions counter
vllm:num_preemptions_total{engine="0",model_name="m"} 3.0
# TYPE vllm:cache_config_info gauge
vllm:cache_config_info{block_size="16",cache_dtype="auto",enable_prefix_caching="True",gpu_memory_utilization="0.9",num_gpu_blocks="2304"} 1.0
# TYPE vllm:time_to_first_token_seconds histogram
vllm:time_to_first_token_seconds_bucket{le="0.1",model_name="m"} 3.0
vllm:time_to_first_token_seconds_bucket{le="+Inf",model_name="m"} 5.0
vllm:time_to_first_token_seconds_sum{model_name="m"} 1.5
vllm:time_to_first_token_seconds_count{model_name="m"} 5.0
`

func TestParseMetricsVLLM(t *testing.T) {
	t.Parallel()
	m, err := ParseMetrics(strings.NewReader(vllmMetrics))
	if err != nil {
		t.Fatal(err)
	}
	if !m.HasQueue || m.Running != 7 || m.Waiting != 2 || m.KVUsage != 0.42 || m.PrefixCacheHits != 900 ||
		m.PrefixCacheQueries != 1000 || m.Preemptions != 3 {
		t.Errorf("got %+v", m)
	}
	if m.Cache == nil || m.Cache.KVCapacityTokens != 2304*16 || m.Cache.BlockSize != 16 {
		t.Errorf("cache config %+v, want 36864 tokens", m.Cache)
	}
}

func TestParseMetricsNewestAndOld(t *testing.T) {
	t.Parallel()
	newest := `vllm:cache_config_info{block_size="16",kv_cache_size_tokens="34952",num_gpu_blocks="2184"} 1
vllm:gpu_cache_usage_perc 0.5
`
	m, err := ParseMetrics(strings.NewReader(newest))
	if err != nil || m.Cache.KVCapacityTokens != 34952 || !m.HasKVUsage || m.KVUsage != 0.5 {
		t.Errorf("got %+v %v", m, err)
	}
	llama := "llamacpp:requests_processing 2\nllamacpp:requests_deferred 1\nllamacpp:tokens_predicted_total 100\n"
	m, err = ParseMetrics(strings.NewReader(llama))
	if err != nil || m.Running != 2 || m.Waiting != 1 || m.GenerationTokens != 100 || m.Cache != nil || m.HasKVUsage {
		t.Errorf("llama: %+v %v", m, err)
	}
}

func TestParseMetricsRejectsGarbage(t *testing.T) {
	t.Parallel()
	if _, err := ParseMetrics(strings.NewReader("<html>not metrics</html>")); err == nil {
		t.Error("garbage accepted")
	}
}

func FuzzParseMetrics(f *testing.F) {
	f.Add(vllmMetrics)
	f.Add("vllm:cache_config_info{num_gpu_blocks=\"1e300\",block_size=\"-5\"} 1\n")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMetrics(strings.NewReader(s))
		if err == nil && m.Cache != nil && m.Cache.KVCapacityTokens < 0 {
			t.Fatalf("negative capacity %+v", m.Cache)
		}
	})
}

// bigMetricsPage is vllmMetrics with n bytes of other series in front: a
// server that exports per-LoRA or per-request histograms (issue 23: a 20
// MB page took 255 MB of RSS).
func bigMetricsPage(n int) string {
	var b strings.Builder
	b.WriteString("# HELP vllm:request_latency_seconds Other figures RigBench does not read.\n# TYPE vllm:request_latency_seconds histogram\n")
	for i := 0; b.Len() < n; i++ {
		fmt.Fprintf(&b, "vllm:request_latency_seconds_bucket{le=\"%d\",lora=\"adapter-%d\",model_name=\"m\"} %d\n", i%20, i, i)
	}
	b.WriteString(vllmMetrics)
	return b.String()
}

// TestParseMetricsKeepsOnlyWhatItReads: a 20 MB page is read through, and
// only the series RigBench reads reach the Prometheus parser, so its
// memory is that of a few lines, not of the page.
func TestParseMetricsKeepsOnlyWhatItReads(t *testing.T) {
	t.Parallel()
	page := bigMetricsPage(20 << 20)
	kept, fams, err := wantedLines(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if len(kept) > len(vllmMetrics) {
		t.Fatalf("kept %d bytes of a %d-byte page; want at most the %d bytes of the wanted series", len(kept), len(page), len(vllmMetrics))
	}
	if fams["vllm"] == 0 {
		t.Fatalf("family counts %v", fams)
	}
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if m.Running != 7 || m.Waiting != 2 || m.Cache == nil || m.Cache.NumGPUBlocks != 2304 || m.Family != "vllm" {
		t.Fatalf("parsed %+v", m)
	}
}

// TestParseMetricsOverlongLine: a line past the reader's buffer is
// skipped whole, and the lines after it are still read.
func TestParseMetricsOverlongLine(t *testing.T) {
	t.Parallel()
	page := "other_metric{x=\"" + strings.Repeat("a", 3*maxMetricsLine) + "\"} 1\n" + vllmMetrics
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil || m.Running != 7 {
		t.Fatalf("m %+v, err %v", m, err)
	}
}

// BenchmarkParseMetricsBigPage: allocations per 20 MB page (-benchmem);
// measured on a 2-core VM: expfmt over the whole page allocated 388 MB
// and took 6.6 s; the filtered parse allocates 80 KB and takes 0.28 s.
func BenchmarkParseMetricsBigPage(b *testing.B) {
	page := bigMetricsPage(20 << 20)
	b.SetBytes(int64(len(page)))
	for b.Loop() {
		if _, err := ParseMetrics(strings.NewReader(page)); err != nil {
			b.Fatal(err)
		}
	}
}

// TestParseMetricsKeepsWantedHistograms: a histogram RigBench reads (vLLM's
// request_prefill_time_seconds) keeps its _sum, _count and _bucket samples
// through the filter, so its total is read, not 0.
func TestParseMetricsKeepsWantedHistograms(t *testing.T) {
	t.Parallel()
	page := `# TYPE vllm:request_prefill_time_seconds histogram
vllm:request_prefill_time_seconds_bucket{le="0.5",model_name="m"} 1
vllm:request_prefill_time_seconds_bucket{le="+Inf",model_name="m"} 2
vllm:request_prefill_time_seconds_sum{model_name="m"} 1.25
vllm:request_prefill_time_seconds_count{model_name="m"} 2
`
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil || !m.HasPrefillSeconds || m.PrefillSeconds != 1.25 {
		t.Fatalf("prefill seconds %v (has %v), err %v", m.PrefillSeconds, m.HasPrefillSeconds, err)
	}
}

// TestParseMetricsNonFiniteIsNotReported: Prometheus text may say NaN or
// ±Inf. A NaN generated-token counter reached a cell as
// -9223372036854775808 tokens and then lost the run at its save, and a NaN
// running gauge never read 0, so the idle wait before each cell waited out
// its limit (issue 36 item 1). Such a family is not reported.
func TestParseMetricsNonFiniteIsNotReported(t *testing.T) {
	t.Parallel()
	page := `# TYPE vllm:num_requests_running gauge
vllm:num_requests_running{model_name="m"} NaN
# TYPE vllm:kv_cache_usage_perc gauge
vllm:kv_cache_usage_perc{model_name="m"} +Inf
# TYPE vllm:generation_tokens_total counter
vllm:generation_tokens_total{model_name="m"} NaN
# TYPE vllm:prompt_tokens_total counter
vllm:prompt_tokens_total{model_name="a"} 1e308
vllm:prompt_tokens_total{model_name="b"} 1e308
# TYPE vllm:num_preemptions_total counter
vllm:num_preemptions_total{model_name="m"} 4
`
	m, err := ParseMetrics(strings.NewReader(page))
	if err != nil {
		t.Fatal(err)
	}
	if m.HasQueue || m.HasKVUsage || m.HasGenerationTokens || m.HasPromptTokens {
		t.Errorf("non-finite families read as reported: %+v", m)
	}
	if !m.HasPreemptions || m.Preemptions != 4 {
		t.Errorf("a finite family beside them was lost: %+v", m)
	}
}

package client

import (
	"strings"
	"syscall"
	"testing"
	"time"
)

func TestParseChunk(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want chunk
	}{
		{"vllm content with continuous usage",
			`{"id":"cmpl-1","object":"text_completion","created":1,"model":"m","choices":[{"index":0,"text":" hello","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":12,"total_tokens":15,"completion_tokens":3}}`,
			chunk{hasChoices: true, textLen: 6, hasUsage: true, promptTokens: 12, completionTokens: 3}},
		{"final usage chunk",
			`{"id":"x","choices":[],"usage":{"prompt_tokens":12,"completion_tokens":8192,"total_tokens":8204}}`,
			chunk{hasChoices: true, emptyChoices: true, hasUsage: true, promptTokens: 12, completionTokens: 8192}},
		{"finish reason",
			`{"choices":[{"text":"","finish_reason":"length"}],"usage":null}`,
			chunk{hasChoices: true, finished: true}},
		{"escaped text",
			`{"choices":[{"text":"a\"b\\\\","finish_reason":null}]}`,
			chunk{hasChoices: true, textLen: 8}},
		{"error object",
			`{"error":{"object":"error","message":"boom","type":"InternalServerError","code":500}}`,
			chunk{isError: true, errMsg: []byte("boom")}},
		{"flat error",
			`{"object":"error","message":"This model's maximum context length is 4096 tokens","type":"BadRequestError","code":400}`,
			chunk{isError: true, errMsg: []byte("This model's maximum context length is 4096 tokens")}},
		{"llama-server last chunk",
			`{"choices":[{"text":"!","index":0,"logprobs":null,"finish_reason":"length"}],"created":1,"model":"/models/x.gguf","system_fingerprint":"b1","object":"text_completion","id":"c","usage":{"completion_tokens":64,"prompt_tokens":7,"total_tokens":71},"timings":{"prompt_n":7,"predicted_ms":1.5e3}}`,
			chunk{hasChoices: true, textLen: 1, finished: true, hasUsage: true, promptTokens: 7, completionTokens: 64}},
		{"nested unknown fields",
			`{"x":[1,[2,{"a":[true,false,null]}],-3.5e+2],"choices":[{"text":"ok","extra":{"deep":[{}]}}, {"text":"second ignored"}]}`,
			chunk{hasChoices: true, textLen: 2}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got chunk
			if err := parseChunk([]byte(tt.in), &got); err != nil {
				t.Fatalf("parseChunk: %v", err)
			}
			if got.hasChoices != tt.want.hasChoices || got.emptyChoices != tt.want.emptyChoices ||
				got.textLen != tt.want.textLen || got.finished != tt.want.finished ||
				got.hasUsage != tt.want.hasUsage || got.promptTokens != tt.want.promptTokens ||
				got.completionTokens != tt.want.completionTokens || got.isError != tt.want.isError ||
				string(got.errMsg) != string(tt.want.errMsg) {
				t.Errorf("got %+v (err %q), want %+v", got, got.errMsg, tt.want)
			}
		})
	}
}

func TestParseChunkRejectsMalformed(t *testing.T) {
	t.Parallel()
	for _, in := range []string{``, `[]`, `{`, `{"choices":[{"text":"abc}]}`, `{"choices":[{"text":"a"]}`,
		`{"usage":{"completion_tokens":}}`, `{"a":1,}`, `{"a" 1}`, strings.Repeat("[", 200)} {
		var c chunk
		if err := parseChunk([]byte(in), &c); err == nil {
			t.Errorf("parseChunk(%q) accepted malformed input", in)
		}
	}
}

func FuzzParseChunk(f *testing.F) {
	f.Add([]byte(`{"choices":[{"text":" hi","finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`))
	f.Add([]byte(`{"choices":[],"usage":{"completion_tokens":5}}`))
	f.Add([]byte(`{"error":{"message":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c chunk
		if err := parseChunk(b, &c); err == nil && c.textLen > len(b) {
			t.Fatalf("text length %d beyond input %d", c.textLen, len(b))
		}
	})
}

// BenchmarkParseChunk checks the per-chunk budget: ≤ 300 ns and at most one
// allocation for a typical vLLM chunk with continuous usage.
func BenchmarkParseChunk(b *testing.B) {
	in := []byte(`{"id":"cmpl-8a1b2c3d4e5f","object":"text_completion","created":1732890000,"model":"agents-a1-4b-fp8","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":32768,"total_tokens":33000,"completion_tokens":232}}`)
	var c chunk
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	cpu0 := cpuTime()
	for b.Loop() {
		if err := parseChunk(in, &c); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time per op, unlike ns/op, is not inflated when other processes
	// share the cores.
	b.ReportMetric(float64((cpuTime()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

// cpuTime is the user+system CPU time of this process so far.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

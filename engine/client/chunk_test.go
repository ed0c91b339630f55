package client

import (
	"bytes"
	"encoding/json"
	"strconv"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/internal/cputime"
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
		`{"usage":{"completion_tokens":}}`, `{"a":1,}`, `{"a" 1}`, strings.Repeat("[", 200),
		`{"a":}`, `{"a":1:2}`, `{"choices":[{"text":"a"},]}`, `{"usage":{"prompt_tokens":1}x}`, `{"a":[1}`,
		`{"x":` + strings.Repeat(`{"y":`, maxDepth) + `1` + strings.Repeat("}", maxDepth+1), `{"a":1} x`} {
		var c chunk
		if err := parseChunk([]byte(in), &c); err == nil {
			t.Errorf("parseChunk(%q) accepted malformed input", in)
		}
	}
}

// FuzzParseChunk checks parseChunk against encoding/json: on every input
// that encoding/json calls valid, it must agree with refChunk on error or
// success and on every field; on other input it must not panic and must
// keep its slices inside the input.
func FuzzParseChunk(f *testing.F) {
	f.Add([]byte(`{"choices":[{"text":" hi","finish_reason":null}],"usage":{"prompt_tokens":1,"completion_tokens":2}}`))
	f.Add([]byte(`{"choices":[],"usage":{"completion_tokens":5}}`))
	f.Add([]byte(`{"error":{"message":"x"}}`))
	f.Add([]byte(`{"object":"error","message":"too long","error":"y"}`))
	f.Add([]byte(`{"choices":[{"text":"a\"b","finish_reason":"length"},{"text":"z"}],"usage":{"prompt_tokens":1.5e3,"completion_tokens":null}}`))
	f.Add([]byte(` {"x":[1,{"choices":[]}],"usage":null} `))
	f.Fuzz(func(t *testing.T, b []byte) {
		var c chunk
		err := parseChunk(b, &c)
		if err == nil && (c.textLen > len(b) || len(c.errMsg) > len(b)) {
			t.Fatalf("text length %d or message %d beyond input %d", c.textLen, len(c.errMsg), len(b))
		}
		want, wantErr, ok := refChunk(b)
		if !ok {
			return // outside what the oracle compares (see refChunk)
		}
		if (err != nil) != wantErr {
			t.Fatalf("parseChunk(%q) error %v, encoding/json says error %v", b, err, wantErr)
		}
		if err == nil && !sameChunk(c, want) {
			t.Fatalf("parseChunk(%q)\n got %+v (message %q)\nwant %+v (message %q)", b, c, c.errMsg, want, want.errMsg)
		}
	})
}

func sameChunk(a, b chunk) bool {
	return a.hasChoices == b.hasChoices && a.emptyChoices == b.emptyChoices && a.textLen == b.textLen &&
		a.finished == b.finished && a.hasUsage == b.hasUsage && a.promptTokens == b.promptTokens &&
		a.completionTokens == b.completionTokens && a.isError == b.isError && string(a.errMsg) == string(b.errMsg)
}

// refChunk is parseChunk's meaning written with encoding/json: the oracle
// of FuzzParseChunk. ok is false for input it does not judge: invalid JSON
// (parseChunk checks structure, not every literal), nesting deeper than
// parseChunk's stack, duplicate or escaped keys in the objects read (JSON
// leaves their meaning open), and counts too long for scanInt's bound.
func refChunk(b []byte) (c chunk, wantErr, ok bool) {
	if !json.Valid(b) || bytes.Count(b, []byte("{"))+bytes.Count(b, []byte("[")) >= maxDepth {
		return c, false, false
	}
	top, ok := objectOf(b)
	if !ok {
		return c, !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{")), !bytes.HasPrefix(bytes.TrimSpace(b), []byte("{"))
	}
	if v, has := top["choices"]; has && v[0] == '[' {
		c.hasChoices = true
		var elems []json.RawMessage
		json.Unmarshal(v, &elems)
		c.emptyChoices = len(elems) == 0
		if len(elems) > 0 && elems[0][0] == '{' {
			ch0, ok := objectOf(elems[0])
			if !ok {
				return c, false, false
			}
			if t, has := ch0["text"]; has && t[0] == '"' {
				c.textLen = len(t) - 2 // as sent, still escaped
			}
			if fr, has := ch0["finish_reason"]; has {
				c.finished = string(fr) != "null"
			}
		}
	}
	if v, has := top["usage"]; has && v[0] == '{' {
		u, ok := objectOf(v)
		if !ok {
			return c, false, false
		}
		for key, dst := range map[string]*int{"prompt_tokens": &c.promptTokens, "completion_tokens": &c.completionTokens} {
			n, has := u[key]
			if !has {
				continue
			}
			c.hasUsage = true
			digits := n[:len(n)-len(bytes.TrimLeft(n, "0123456789"))]
			switch {
			case string(n) == "null":
			case len(digits) == 0:
				return c, true, true // a string, negative number, object…: not a count
			case len(digits) > 12:
				return c, false, false // near scanInt's bound
			default:
				*dst, _ = strconv.Atoi(string(digits)) // the whole part of 1.5e3 too
			}
		}
	}
	if v, has := top["error"]; has {
		c.isError = true
		switch v[0] {
		case '"':
			c.errMsg = v[1 : len(v)-1]
		case '{':
			e, ok := objectOf(v)
			if !ok {
				return c, false, false
			}
			if m, has := e["message"]; has && m[0] == '"' {
				c.errMsg = m[1 : len(m)-1]
			}
		}
	}
	if string(top["object"]) == `"error"` {
		c.isError, c.errMsg = true, nil
		if m, has := top["message"]; has && m[0] == '"' {
			c.errMsg = m[1 : len(m)-1]
		}
	}
	return c, false, true
}

// objectOf reads a JSON object's members as raw values, in the bytes as
// sent. ok is false for anything but an object, and for an object with a
// duplicate or escaped key.
func objectOf(raw []byte) (map[string]json.RawMessage, bool) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	m := map[string]json.RawMessage{}
	for dec.More() {
		before := dec.InputOffset()
		t, err := dec.Token()
		if err != nil {
			return nil, false
		}
		k, _ := t.(string)
		if bytes.IndexByte(raw[before:dec.InputOffset()], '\\') >= 0 {
			return nil, false
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, false
		}
		if _, dup := m[k]; dup {
			return nil, false
		}
		m[k] = v
	}
	return m, true
}

// BenchmarkParseChunk checks the per-chunk budget: ≤ 300 ns and at most one
// allocation for a typical vLLM chunk with continuous usage.
func BenchmarkParseChunk(b *testing.B) {
	in := []byte(`{"id":"cmpl-8a1b2c3d4e5f","object":"text_completion","created":1732890000,"model":"agents-a1-4b-fp8","choices":[{"index":0,"text":" the","logprobs":null,"finish_reason":null,"stop_reason":null}],"usage":{"prompt_tokens":32768,"total_tokens":33000,"completion_tokens":232}}`)
	var c chunk
	b.ReportAllocs()
	b.SetBytes(int64(len(in)))
	cpu0 := cputime.Process()
	for b.Loop() {
		if err := parseChunk(in, &c); err != nil {
			b.Fatal(err)
		}
	}
	// CPU time per op, unlike ns/op, is not inflated when other processes
	// share the cores.
	b.ReportMetric(float64((cputime.Process()-cpu0).Nanoseconds())/float64(b.N), "cpu-ns/op")
}

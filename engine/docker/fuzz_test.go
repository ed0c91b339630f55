package docker

import (
	"bytes"
	"errors"
	"slices"
	"strings"
	"testing"
)

// FuzzReadPullStream feeds the daemon's pull stream parser arbitrary bytes:
// it must never panic, every failure is a pull error that names the image,
// and the running totals stay consistent (no more layers done than seen,
// no negative counts).
func FuzzReadPullStream(f *testing.F) {
	f.Add([]byte(`{"status":"Pulling from vllm/vllm-openai","id":"v0.11.0"}
{"status":"Pulling fs layer","progressDetail":{},"id":"a1"}
{"status":"Downloading","progressDetail":{"current":100,"total":1000},"id":"a1"}
{"status":"Download complete","progressDetail":{},"id":"a1"}
{"status":"Pull complete","progressDetail":{},"id":"a1"}
{"status":"Status: Downloaded newer image for vllm/vllm-openai:v0.11.0"}`))
	f.Add([]byte(`{"errorDetail":{"message":"manifest unknown"},"error":"manifest unknown"}`))
	f.Add([]byte(`{"status":"Downloading","id":"x"`))
	f.Add([]byte(`[1,2,3]`))
	f.Fuzz(func(t *testing.T, in []byte) {
		const ref = "vllm/vllm-openai:v0.11.0"
		var last PullProgress
		calls := 0
		err := readPullStream(ref, bytes.NewReader(in), func(p PullProgress) {
			calls++
			if p.Ref != ref || p.LayersDone > p.Layers || p.Layers < 0 || p.LayersDone < 0 {
				t.Fatalf("inconsistent progress %+v", p)
			}
			if p.Layers < last.Layers {
				t.Fatalf("layer count went down: %d after %d", p.Layers, last.Layers)
			}
			last = p
		})
		if err != nil {
			var de *Error
			if !errors.As(err, &de) || de.Kind != ErrPull || !strings.Contains(err.Error(), ref) {
				t.Fatalf("error %v (%T) is not a pull error naming the image", err, err)
			}
		}
	})
}

// FuzzLineWriter: however the container's output is cut into writes, the
// lines that come out are the same: the input split at every \r or \n,
// empty pieces dropped, and no line holds a line break.
func FuzzLineWriter(f *testing.F) {
	f.Add([]byte("INFO loading\r\n50%\r100%\nready"), 7)
	f.Add([]byte("\n\n\r"), 1)
	f.Add([]byte("no newline at all"), 3)
	f.Fuzz(func(t *testing.T, in []byte, cut int) {
		if cut < 0 || cut > len(in) {
			cut = len(in) / 2
		}
		var got []string
		w := &lineWriter{stream: "stdout", emit: func(l LogLine) {
			if strings.ContainsAny(l.Text, "\r\n") || l.Text == "" || l.Stream != "stdout" {
				t.Fatalf("bad line %q", l.Text)
			}
			got = append(got, l.Text)
		}}
		w.Write(in[:cut])
		w.Write(in[cut:])
		w.flush()
		want := strings.FieldsFunc(string(in), func(r rune) bool { return r == '\r' || r == '\n' })
		if !slices.Equal(got, want) {
			t.Fatalf("lines %q, want %q", got, want)
		}
	})
}

// FuzzParseOwner: an owner label comes from whoever can start a container;
// parsing never panics, and what parses prints back to itself.
func FuzzParseOwner(f *testing.F) {
	f.Add("box/0b9e1f4c-6a7d-4a55-9d1e-3a1b2c3d4e5f/4242/987654")
	f.Add("a/b/-1/2")
	f.Add("////")
	f.Fuzz(func(t *testing.T, s string) {
		o, ok := ParseOwner(s)
		if !ok {
			return
		}
		if back, ok2 := ParseOwner(o.String()); !ok2 || back != o {
			t.Fatalf("ParseOwner(%q) = %+v, which does not round-trip", s, o)
		}
	})
}

// FuzzParseStatStart: never panics on any /proc stat text.
func FuzzParseStatStart(f *testing.F) {
	f.Add("1 (init) S 0 1 1 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 5 1000 100")
	f.Add("1 ((a)) b) S")
	f.Fuzz(func(t *testing.T, s string) {
		_, _ = parseStatStart(s)
	})
}

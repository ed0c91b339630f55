package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/sim"
)

var completionTokensRE = regexp.MustCompile(`"completion_tokens":(\d+)`)

// usageWriter rewrites every completion_tokens n a stream reports as
// usage(n), to play a server whose usage is not what it streams; its
// /metrics counter stays the simulator's, which counts what it streamed.
type usageWriter struct {
	http.ResponseWriter
	usage func(n int) int
}

func (w usageWriter) Write(p []byte) (int, error) {
	out := completionTokensRE.ReplaceAllFunc(p, func(m []byte) []byte {
		n, _ := strconv.Atoi(string(completionTokensRE.FindSubmatch(m)[1]))
		return []byte(`"completion_tokens":` + strconv.Itoa(w.usage(n)))
	})
	if _, err := w.ResponseWriter.Write(out); err != nil {
		return 0, err
	}
	return len(p), nil
}

func (w usageWriter) Flush() { w.ResponseWriter.(http.Flusher).Flush() }

// usageSim serves the tiny simulator at speed 10 on 127.0.0.1 with its
// usage rewritten by usage (nil: the simulator as it is).
func usageSim(t *testing.T, usage func(int) int) *httptest.Server {
	t.Helper()
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed, cfg.Seed = p, 10, 1
	s, err := sim.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	h := s.Handler()
	hs := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if usage != nil {
			w = usageWriter{w, usage}
		}
		h.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); hs.Close() })
	return hs
}

// TestLyingUsageSaysWhyEverywhere (issue 35 item 1): against a server
// whose usage claims 10× the tokens it streams, and one whose usage runs
// backwards, no decode cell is Valid. Each is Unreliable and says why on
// the cell: in the matrix `run` and `show` print (with the whole reason
// under it), in the Markdown, HTML and CSV exports; the run ends with the
// command that measures them again, and `run --resume` on an honest server
// does, into the same run.
func TestLyingUsageSaysWhyEverywhere(t *testing.T) {
	for _, tc := range []struct {
		name  string
		usage func(int) int
		head  *regexp.Regexp
	}{
		{"usage 10x", func(n int) int { return 10 * n }, regexp.MustCompile(`^counter -\d+%$`)},
		{"usage backwards", func(n int) int { return max(0, 1000-n) }, regexp.MustCompile(`^usage fell$`)},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := filepath.Join(t.TempDir(), "history.db")
			hs := usageSim(t, tc.usage)
			code, stdout, stderr := runCLI(t, "run", "--endpoint", hs.URL, "--db", db, "--no-telemetry",
				"--contexts", "0", "--concurrency", "1,2", "--prefill", "512", "--duration", "5s", "--max-output", "64")
			if code != 0 {
				t.Fatalf("run: exit %d\n%s", code, stderr)
			}
			m := regexp.MustCompile(`2 cell\(s\) are Unreliable \(their reasons are above\); measure them again with: rigbench-cli run --endpoint \S+ --resume ([0-9a-f]{8})`).FindStringSubmatch(stderr)
			if m == nil {
				t.Fatalf("the run does not end with the command that measures its Unreliable cells again:\n%s", stderr)
			}
			id := m[1]
			json := filepath.Join(t.TempDir(), "run.json")
			if code, _, stderr := runCLI(t, "export", id, "--db", db, "-o", json); code != 0 {
				t.Fatalf("export: %s", stderr)
			}
			run := readRunFile(t, json)
			var heads []string
			for _, c := range run.Cells {
				if c.Phase != rundoc.PhaseDecode {
					continue
				}
				h := rundoc.UnreliableHead(&c)
				if c.Status != rundoc.StatusUnreliable || !tc.head.MatchString(h) {
					t.Fatalf("%s: %s, head %q (%s), want Unreliable with a head matching %s", c.Label(), c.Status, h, c.Reason, tc.head)
				}
				heads = append(heads, h)
			}
			_, shown, _ := runCLI(t, "show", id, "--db", db)
			for where, out := range map[string]string{"run": stdout, "show": shown} {
				for i, n := range []int{1, 2} {
					if want := "Unreliable: " + heads[i]; !strings.Contains(out, want) {
						t.Errorf("%s's matrix lacks %q for 0×%d:\n%s", where, want, n, out)
					}
					if want := "unreliable: decode 0×" + strconv.Itoa(n) + ": " + heads[i] + ": "; !strings.Contains(out, want) {
						t.Errorf("%s lacks the whole reason %q:\n%s", where, want, out)
					}
				}
			}
			if !strings.Contains(shown, "--resume "+id) {
				t.Errorf("show does not say --resume measures the Unreliable cells again:\n%s", shown)
			}
			for _, format := range []string{"md", "html", "csv"} {
				path := filepath.Join(t.TempDir(), "run."+format)
				if code, _, stderr := runCLI(t, "export", id, "--db", db, "--format", format, "-o", path); code != 0 {
					t.Fatalf("export --format %s: %s", format, stderr)
				}
				b, err := os.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				text := string(b)
				for _, h := range heads {
					if !strings.Contains(text, "Unreliable") || !strings.Contains(text, h) {
						t.Errorf("the %s export lacks Unreliable and its reason %q", format, h)
					}
				}
				if format == "md" && !strings.Contains(text, "| Unreliable: "+heads[0]+" |") {
					t.Errorf("the Markdown matrix lacks the cell %q:\n%s", "Unreliable: "+heads[0], text)
				}
				if format == "html" && !strings.Contains(text, `<span class="v">Unreliable</span><span class="s">`+heads[0]+`</span>`) {
					t.Errorf("the HTML matrix lacks the cell's reason %q", heads[0])
				}
				if format == "csv" && !strings.Contains(strings.SplitN(text, "\n", 2)[0], ",reason") {
					t.Errorf("the CSV has no reason column:\n%s", text)
				}
			}

			honest := usageSim(t, nil)
			code, _, stderr = runCLI(t, "run", "--endpoint", honest.URL, "--db", db, "--no-telemetry", "--resume", id)
			if code != 0 || !strings.Contains(stderr, "resuming: 1 of 3 cells are kept as measured, 2 to measure") {
				t.Fatalf("resume: exit %d, want the two Unreliable cells measured again:\n%s", code, stderr)
			}
			if code, _, stderr := runCLI(t, "export", id, "--db", db, "-o", json); code != 0 {
				t.Fatalf("export: %s", stderr)
			}
			for _, c := range readRunFile(t, json).Cells {
				if c.Status != rundoc.StatusValid {
					t.Errorf("%s after the resume on an honest server: %s (%s)", c.Label(), c.Status, c.Reason)
				}
			}
		})
	}
}

package report_test

import (
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

const refFile = "testdata/ref_rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

// refName is the published file's own name (the testdata copy is prefixed).
const refName = "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0.csv"

func readRef(t testing.TB) (*rundoc.Run, []byte) {
	t.Helper()
	data, err := os.ReadFile(refFile)
	if err != nil {
		t.Fatal(err)
	}
	run, err := report.ReadReferenceCSVNamed(bytes.NewReader(data), refName)
	if err != nil {
		t.Fatalf("ReadReferenceCSVNamed: %v", err)
	}
	return run, data
}

func TestReadReferenceCSVFigures(t *testing.T) {
	t.Parallel()
	run, _ := readRef(t)
	if run.Origin != rundoc.OriginImported || run.Status != rundoc.RunComplete || run.Schema != rundoc.Schema {
		t.Errorf("origin/status/schema = %q/%q/%q", run.Origin, run.Status, run.Schema)
	}
	if got, want := len(run.Cells), 53; got != want {
		t.Fatalf("cells = %d, want %d", got, want)
	}
	if run.Hardware == nil || len(run.Hardware.GPUs) != 1 || run.Hardware.GPUs[0].Name != "RTX 3060 12GB" {
		t.Errorf("hardware = %+v, want one GPU named RTX 3060 12GB", run.Hardware)
	} else if g := run.Hardware.GPUs[0]; g.VRAMTotalBytes != 0 || g.PowerLimitW != 0 {
		t.Errorf("GPU figures invented from a file name: %+v", g)
	}
	if s := run.Server; s.Model != "agents-a1-4b-fp8" || s.Engine != "vllm" || s.Version != "0.32.0" || s.KVCapacityTokens != 0 {
		t.Errorf("server = %+v", s)
	}
	if run.Name != "rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0" {
		t.Errorf("name = %q", run.Name)
	}
	p := run.Find(rundoc.PhasePrefill, 8192, 1)
	if p == nil || p.PromptTokS != 2341 || p.TTFTMs != 3583 || p.CompletedRequests != 1 || p.TotalTokS != 0 {
		t.Errorf("prefill 8K = %+v", p)
	}
	d := run.Find(rundoc.PhaseDecode, 16384, 8)
	if d == nil || d.TotalTokS != 213.3 || d.PerRequestTokS != 23.6 || d.TTFTMs != 6198 || d.TBTMs != 42.3 ||
		d.AvgActive != 8 || d.OutputTokens != 6392 || d.MeasuredS != 30 || d.Status != rundoc.StatusValid {
		t.Errorf("decode 16K×8 = %+v", d)
	}
	if q := run.Find(rundoc.PhaseDecode, 131072, 2); q == nil || q.Status != rundoc.StatusQueued {
		t.Errorf("decode 128K×2 = %+v, want Requests queued", q)
	}
	if o := run.Find(rundoc.PhaseDecode, 253952, 1); o == nil || o.Status != rundoc.StatusOverCapacity || o.AvgActive != 0.7 || o.MeasuredS != 30 {
		t.Errorf("decode 248K×1 = %+v", o)
	}
	wantCtx := []int{0, 16384, 32768, 65536, 131072, 253952}
	if got := run.Plan.Contexts; !slices.Equal(got, wantCtx) {
		t.Errorf("plan contexts = %v, want %v", got, wantCtx)
	}
	if got := run.Plan.Concurrency; !slices.Equal(got, []int{1, 2, 4, 8, 16, 32, 64, 128}) {
		t.Errorf("plan concurrency = %v", got)
	}
	if run.Plan.DurationS != 30 || run.Plan.MaxOutput != 0 {
		t.Errorf("plan D=%v M=%v, want 30 and 0 (unknown)", run.Plan.DurationS, run.Plan.MaxOutput)
	}
	if !run.CreatedAt.IsZero() {
		t.Errorf("created = %v, want zero for the caller to set", run.CreatedAt)
	}
}

// The reference file read and written again is the same file, byte for byte.
func TestReferenceCSVRoundTrip(t *testing.T) {
	t.Parallel()
	run, data := readRef(t)
	var out bytes.Buffer
	if err := report.WriteCSV(&out, run); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(out.Bytes(), data) {
		t.Errorf("WriteCSV(ReadReferenceCSV(ref)) differs from ref:\n%s", firstDiff(out.String(), string(data)))
	}
}

func TestReadReferenceCSVStableUUID(t *testing.T) {
	t.Parallel()
	a, data := readRef(t)
	b, err := report.ReadReferenceCSV(bytes.NewReader(data))
	if err != nil {
		t.Fatal(err)
	}
	if a.UUID == "" || a.UUID != b.UUID {
		t.Errorf("uuid %q then %q, want the same non-empty one", a.UUID, b.UUID)
	}
	c, err := report.ReadReferenceCSV(strings.NewReader(strings.Replace(string(data), "2341.0", "2342.0", 1)))
	if err != nil {
		t.Fatal(err)
	}
	if c.UUID == a.UUID {
		t.Error("different files got the same uuid")
	}
	if b.Name != "" || b.Hardware != nil || b.Server.Model != "" {
		t.Errorf("without a name nothing may be guessed: %q %+v %+v", b.Name, b.Hardware, b.Server)
	}
}

func TestReadReferenceCSVRejects(t *testing.T) {
	t.Parallel()
	head := strings.Join(report.CSVColumns, ",") + "\n"
	cases := []struct{ name, in, want string }{
		{"empty", "", "empty"},
		{"header only", head, "no measurements"},
		{"no phase column", "context_tokens,concurrency,status\n1,1,Valid\n", `"phase"`},
		{"bad phase", head + "warmup,0,0,1,Valid,,,,,,,,\n", "phase"},
		{"bad status", head + "decode,0,0,1,Great,,,,,,,,\n", "status"},
		{"negative", head + "decode,0,0,1,Valid,-3,,,,,,,\n", "total_tok_s"},
		{"nan", head + "decode,0,0,1,Valid,NaN,,,,,,,\n", "total_tok_s"},
		{"huge context", head + "decode,99999999999,0,1,Valid,,,,,,,,\n", "context_tokens"},
		{"zero concurrency", head + "decode,0,0,0,Valid,,,,,,,,\n", "concurrency"},
		{"short row", head + "decode,0,0\n", "fields"},
		{"duplicate", head + "decode,0,0,1,Valid,10,,,,,,,\ndecode,0,0,1,Valid,10,,,,,,,\n", "repeats"},
		// Issue 35: a figure beyond its physical bound, and a cell that ran
		// without its rate, are refused with the field's name.
		{"absurd rate", head + "decode,0,0,1,Valid,1e300,,,,,,,\n", "total_tok_s 1e300 is beyond"},
		{"absurd per-request", head + "decode,0,0,1,Valid,10,2e7,,,,,,\n", "per_request_tok_s 2e7 is beyond"},
		{"blank valid", head + "decode,0,0,1,Valid,,,,,,,,\n", "a Valid cell has no total_tok_s"},
		{"not csv", "{\"schema\":\"rigbench.run/v1\"}", "not a valid CSV"},
		// Issue 12: strconv reads these; no measurement file holds them.
		{"hex float", head + "decode,0,0,1,Valid,0x1p4,,,,,,,\n", `total_tok_s "0x1p4"`},
		{"underscore", head + "decode,0,0,1,Valid,1_000,,,,,,,\n", `total_tok_s "1_000"`},
		{"infinity", head + "decode,0,0,1,Valid,Inf,,,,,,,\n", `total_tok_s "Inf"`},
		{"plus sign", head + "decode,+5,0,1,Valid,,,,,,,,\n", `context_tokens "+5"`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := report.ReadReferenceCSV(strings.NewReader(tc.in))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want one mentioning %q", err, tc.want)
			}
		})
	}
}

func TestReadReferenceCSVTooLarge(t *testing.T) {
	t.Parallel()
	big := strings.Join(report.CSVColumns, ",") + "\n" + strings.Repeat("decode,0,0,1,Valid,,,,,,,,\n", report.MaxReferenceCSVBytes/20)
	_, err := report.ReadReferenceCSV(strings.NewReader(big))
	if err == nil || !strings.Contains(err.Error(), "larger than") {
		t.Errorf("err = %v, want a size error", err)
	}
}

func TestParseReferenceName(t *testing.T) {
	t.Parallel()
	cases := []struct {
		in   string
		want report.ReferenceName
	}{
		{"rtx3060-12gb_agents-a1-4b-fp8_vllm-0.32.0", report.ReferenceName{GPU: "RTX 3060 12GB", Model: "agents-a1-4b-fp8", Engine: "vllm", Version: "0.32.0"}},
		{"rtx4060-ti-16gb_qwen3-8b_vllm-0.11.2", report.ReferenceName{GPU: "RTX 4060 Ti 16GB", Model: "qwen3-8b", Engine: "vllm", Version: "0.11.2"}},
		{"h100-80gb_llama-70b_llama.cpp", report.ReferenceName{GPU: "H100 80GB", Model: "llama-70b", Engine: "llama.cpp"}},
		{"my-results", report.ReferenceName{}},
		{"a__b", report.ReferenceName{}},
	}
	for _, tc := range cases {
		if got := report.ParseReferenceName(tc.in); got != tc.want {
			t.Errorf("ParseReferenceName(%q) = %+v, want %+v", tc.in, got, tc.want)
		}
	}
}

func FuzzReadReferenceCSV(f *testing.F) {
	data, err := os.ReadFile(refFile)
	if err != nil {
		f.Fatal(err)
	}
	f.Add(data, refName)
	f.Add([]byte("phase,context_tokens,concurrency,status\nprefill,8192,1,Valid\n"), "x_y_z-1")
	f.Add([]byte("\xef\xbb\xbfphase,context_tokens,concurrency,status\n\"decode\",0,1,\"Over capacity\"\n"), "")
	f.Add([]byte("a,b\n\"unterminated"), "a_b_c")
	f.Add([]byte("phase,context_tokens,concurrency,status,simulated\ndecode,0,1,Valid,yes\ndecode,0,2,Valid,Yes\n"), "")
	f.Fuzz(func(t *testing.T, in []byte, name string) {
		run, err := report.ReadReferenceCSVNamed(bytes.NewReader(in), filepath.Base(name))
		if err != nil {
			return
		}
		if len(run.Cells) == 0 || run.UUID == "" {
			t.Fatalf("accepted a run with no cells or uuid: %+v", run)
		}
		// What was accepted must write and read back to the same cells.
		var out bytes.Buffer
		if err := report.WriteCSV(&out, run); err != nil {
			t.Fatal(err)
		}
		again, err := report.ReadReferenceCSV(&out)
		if err != nil {
			t.Fatalf("re-reading our own CSV: %v\n%s", err, out.String())
		}
		if len(again.Cells) != len(run.Cells) {
			t.Fatalf("cells %d then %d", len(run.Cells), len(again.Cells))
		}
		if again.Simulated != run.Simulated {
			t.Fatalf("simulated %v then %v", run.Simulated, again.Simulated)
		}
	})
}

// firstDiff shows the first differing line of two texts.
func firstDiff(got, want string) string {
	g, w := strings.Split(got, "\n"), strings.Split(want, "\n")
	for i := 0; i < len(g) || i < len(w); i++ {
		var gl, wl string
		if i < len(g) {
			gl = g[i]
		}
		if i < len(w) {
			wl = w[i]
		}
		if gl != wl {
			return "line " + strconv.Itoa(i+1) + ":\n got: " + gl + "\nwant: " + wl
		}
	}
	return "(no line differs)"
}

// A simulated run keeps its label through CSV: a "simulated" column says
// yes on every row, and the reader sets Simulated back. A measured run's
// CSV keeps exactly the reference columns.
func TestCSVKeepsSimulatedLabel(t *testing.T) {
	t.Parallel()
	run := mdFullRun()
	run.Simulated = true
	var b bytes.Buffer
	if err := report.WriteCSV(&b, run); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(b.String()), "\n")
	if want := strings.Join(report.CSVColumns, ",") + ",simulated"; lines[0] != want {
		t.Errorf("header = %q, want %q", lines[0], want)
	}
	for _, l := range lines[1:] {
		if !strings.HasSuffix(l, ",yes") {
			t.Errorf("row %q does not say simulated", l)
		}
	}
	for _, name := range []string{"", "sim_demo-model_simulated-1.0.csv"} {
		back, err := report.ReadReferenceCSVNamed(bytes.NewReader(b.Bytes()), name)
		if err != nil {
			t.Fatal(err)
		}
		if !back.Simulated || len(back.Cells) != len(run.Cells) {
			t.Errorf("name %q: read back simulated=%v with %d cells, want true and %d", name, back.Simulated, len(back.Cells), len(run.Cells))
		}
		var again bytes.Buffer
		if err := report.WriteCSV(&again, back); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(again.Bytes(), b.Bytes()) {
			t.Errorf("a simulated CSV read and written again differs:\n%s", firstDiff(again.String(), b.String()))
		}
	}

	run.Simulated = false
	b.Reset()
	if err := report.WriteCSV(&b, run); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "simulated") {
		t.Error("a measured run's CSV names the simulated column")
	}
	ref, _ := readRef(t)
	if ref.Simulated {
		t.Error("the published reference imported as simulated")
	}
}

func TestReadReferenceCSVSimulatedColumn(t *testing.T) {
	t.Parallel()
	head := strings.Join(report.CSVColumns, ",") + ",simulated\n"
	row := func(n int, sim string) string {
		return "decode,0,0," + strconv.Itoa(n) + ",Valid,10,,,,,,,," + sim + "\n"
	}
	for _, tc := range []struct {
		name, in string
		want     bool
	}{
		{"yes", head + row(1, "yes") + row(2, "YES"), true},
		{"true", head + row(1, "true") + row(2, " True "), true},
		{"no", head + row(1, "no") + row(2, ""), false},
		{"blank", head + row(1, "") + row(2, ""), false},
	} {
		r, err := report.ReadReferenceCSV(strings.NewReader(tc.in))
		if err != nil {
			t.Errorf("%s: %v", tc.name, err)
		} else if r.Simulated != tc.want {
			t.Errorf("%s: simulated = %v, want %v", tc.name, r.Simulated, tc.want)
		}
	}
	for _, tc := range []struct{ name, in, want string }{
		{"mixed", head + row(1, "yes") + row(2, "no"), "mark all its rows the same"},
		{"bad value", head + row(1, "maybe"), "neither yes nor no"},
	} {
		_, err := report.ReadReferenceCSV(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: err = %v, want one mentioning %q", tc.name, err, tc.want)
		}
	}
}

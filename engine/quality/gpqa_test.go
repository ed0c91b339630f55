package quality

import (
	"context"
	"encoding/json"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// testdata/gpqa holds a project-made stand-in for GPQA's dataset.zip:
// fixture.zip is `zip -P fixture-password` of a five-row
// dataset/gpqa_diamond.csv in the official columns (written by Python's
// csv.writer: \r\n records, quotes, commas, a quoted \r\n, non-ASCII, an
// emoji, a tab, a backslash, a control character, padding to strip), and
// expected.jsonl is what the seed tool's _build_gpqa_diamond_jsonl
// (llm_decode_bench.py 0.4.29) made of that CSV under CPython 3.11.
func gpqaFixture(t *testing.T) (archive, want []byte) {
	t.Helper()
	archive, err := os.ReadFile(filepath.Join("testdata", "gpqa", "fixture.zip"))
	if err != nil {
		t.Fatal(err)
	}
	want, err = os.ReadFile(filepath.Join("testdata", "gpqa", "expected.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	return archive, want
}

// The build, byte for byte the seed tool's: the ZipCrypto member, Python's
// CSV reading, stripping, shuffle and json.dumps.
func TestBuildGPQADiamondMatchesSeedTool(t *testing.T) {
	archive, want := gpqaFixture(t)
	member, err := readZipMember(archive, "dataset/gpqa_diamond.csv", "fixture-password")
	if err != nil {
		t.Fatal(err)
	}
	got, err := BuildGPQADiamond(member)
	if err != nil {
		t.Fatal(err)
	}
	if string(got) != string(want) {
		t.Fatalf("built:\n%s\nthe seed tool's:\n%s", got, want)
	}
	d, err := ParseChoice("gpqa-diamond", LayoutGPQA, got)
	if err != nil || len(d.Items) != 4 || d.Items[0].ID != "gpqa-rec06pnAkLOr2t2mp" || d.Items[2].Category != "Biology" {
		t.Fatalf("%v %+v", err, d)
	}
	if _, err := readZipMember(archive, "dataset/gpqa_diamond.csv", "wrong"); err == nil || !strings.Contains(err.Error(), "password") {
		t.Errorf("a wrong password: %v", err)
	}
	if _, err := readZipMember(archive, "dataset/other.csv", "fixture-password"); err == nil || !strings.Contains(err.Error(), "holds no") {
		t.Errorf("a missing member: %v", err)
	}
	if _, err := BuildGPQADiamond([]byte("Record ID,Question\r\nrec1,\r\n")); err == nil || !strings.Contains(err.Error(), "row 0 is malformed") {
		t.Errorf("a malformed row: %v", err)
	}
}

// The archive's download end to end against a loopback server: a good
// archive builds the pinned file and caches it; a wrong archive, a wrong
// build, a cut download and no network each say what to do.
func TestFetchGPQAArchive(t *testing.T) {
	archive, want := gpqaFixture(t)
	src := func(url string) Source {
		return Source{Name: "gpqa-diamond", SHA256: hexSHA(want), File: "gpqa_diamond.jsonl", Hint: GPQADiamond.Hint,
			Archive: &Archive{URL: url, SHA256: hexSHA(archive), Member: "dataset/gpqa_diamond.csv", Password: "fixture-password", Build: BuildGPQADiamond}}
	}
	t.Run("good archive, then from the cache", func(t *testing.T) {
		dir := t.TempDir()
		srv := fileServer(t, archive, 0)
		s := src(srv.URL + "/data.jsonl")
		data, err := Fetch(context.Background(), srv.Client(), s, dir)
		if err != nil || string(data) != string(want) {
			t.Fatalf("fetch: %v", err)
		}
		srv.Close()
		if data, err := Fetch(context.Background(), srv.Client(), s, dir); err != nil || string(data) != string(want) {
			t.Fatalf("from the cache: %v", err)
		}
	})
	for _, tc := range []struct {
		name     string
		truncate int
		mod      func(*Source)
		want     string
	}{
		{"wrong archive sha256", 0, func(s *Source) { s.Archive.SHA256 = strings.Repeat("0", 64) }, "the archive of gpqa-diamond from"},
		{"wrong built sha256", 0, func(s *Source) { s.SHA256 = strings.Repeat("1", 64) }, "gpqa_diamond.jsonl built from"},
		{"wrong password", 0, func(s *Source) { s.Archive.Password = "x" }, "cannot build gpqa_diamond.jsonl"},
		{"truncated", len(archive) / 2, func(*Source) {}, "stopped after " + strconv.Itoa(len(archive)/2) + " of " + strconv.Itoa(len(archive)) + " bytes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			srv := fileServer(t, archive, tc.truncate)
			s := src(srv.URL + "/data.jsonl")
			tc.mod(&s)
			_, err := Fetch(context.Background(), srv.Client(), s, dir)
			if err == nil || !strings.Contains(err.Error(), tc.want) || !strings.Contains(err.Error(), filepath.Join(dir, "gpqa_diamond.jsonl")) {
				t.Fatalf("err = %v, want %q and the path", err, tc.want)
			}
			if _, serr := os.Stat(filepath.Join(dir, "gpqa_diamond.jsonl")); serr == nil {
				t.Error("a bad file was kept")
			}
		})
	}
	t.Run("offline", func(t *testing.T) {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close()
		dir := t.TempDir()
		_, err = Fetch(context.Background(), http.DefaultClient, src("http://"+addr+"/dataset.zip"), dir)
		if err == nil || !strings.Contains(err.Error(), "gpqa-diamond is not cached and http://"+addr+"/dataset.zip cannot be reached") ||
			!strings.Contains(err.Error(), "build gpqa_diamond.jsonl from it") || !strings.Contains(err.Error(), filepath.Join(dir, "gpqa_diamond.jsonl")) ||
			!strings.Contains(err.Error(), "llm_decode_bench.py") {
			t.Fatalf("err = %v", err)
		}
	})
}

func FuzzBuildGPQADiamond(f *testing.F) {
	f.Add([]byte("Record ID,Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3,High-level domain,Subdomain\r\nrec1,\"q, \"\"x\"\"\",a,b,c,d,Physics,Optics\r\n"))
	f.Add([]byte("\"unterminated\n,,"))
	f.Add([]byte{0xff, 0xfe})
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := BuildGPQADiamond(data)
		if err != nil {
			return
		}
		for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
			if !json.Valid([]byte(line)) {
				t.Fatalf("line %q is not JSON", line)
			}
		}
		if _, err := ParseChoice("f", LayoutGPQA, out); err != nil {
			t.Fatalf("the built file does not read back: %v", err)
		}
	})
}

func FuzzReadZipMember(f *testing.F) {
	archive, err := os.ReadFile(filepath.Join("testdata", "gpqa", "fixture.zip"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(archive)
	f.Add(archive[:len(archive)/2])
	f.Add([]byte("PK\x03\x04"))
	f.Fuzz(func(t *testing.T, data []byte) {
		out, err := readZipMember(data, "dataset/gpqa_diamond.csv", "fixture-password")
		if err == nil && len(out) > 0 && string(data) == string(archive) && !strings.HasPrefix(string(out), "Record ID,") {
			t.Fatalf("the fixture's member reads %q", out[:min(len(out), 40)])
		}
	})
}

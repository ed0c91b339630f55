package quality

import (
	"context"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

func TestExtractAnswer(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"5 + 3 = 8\n#### 8", "8"},
		{"so 1,000 apples.\n#### 1,000", "1000"},
		{"#### $18.00 dollars", "18"},
		{"first 3, then 12, so the answer is 42.", "42"},
		{"#### 7\nand later 99", "7"}, // the first number after the last ####
		{"#### none\nthe total is -3.50", "-3.5"},
		{"no number here", ""},
		{"", ""},
	} {
		if got := ExtractAnswer(tc.text); got != tc.want {
			t.Errorf("ExtractAnswer(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
}

func FuzzExtractAnswer(f *testing.F) {
	f.Add("#### 1,234.50")
	f.Add("the answer is 7")
	f.Fuzz(func(t *testing.T, s string) {
		got := ExtractAnswer(s)
		if got != "" && NormalizeNumber(got) != got {
			t.Errorf("ExtractAnswer(%q) = %q is not normalised", s, got)
		}
	})
}

func FuzzParseGSM8K(f *testing.F) {
	f.Add(DemoGSM8K(3))
	f.Add([]byte(`{"question":"q","answer":"#### 1,000"}` + "\n\n"))
	f.Add([]byte("not json"))
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := ParseGSM8K("f", data)
		if err != nil {
			return
		}
		for _, it := range d.Items {
			if it.Question == "" || it.Answer == "" || NormalizeNumber(it.Answer) != it.Answer {
				t.Fatalf("item %+v from %q", it, data)
			}
		}
	})
}

func TestParseDemoGSM8K(t *testing.T) {
	data := DemoGSM8K(50)
	d, err := ParseGSM8K(DemoDatasetName, data)
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Items) != 50 || d.Items[7].ID != "demo-arith/7" || d.SHA256 != hexSHA(data) {
		t.Fatalf("got %d items, id %q, sha %s", len(d.Items), d.Items[7].ID, d.SHA256)
	}
	// The answer is the last line's number, and the worked steps reach it.
	for _, it := range d.Items[:5] {
		if !strings.HasPrefix(it.Question, "Start with ") || it.Answer == "" || it.Category == "" {
			t.Errorf("item %+v", it)
		}
	}
	if got := d.Subset(10); len(got) != 10 || got[9].ID != d.Items[9].ID {
		t.Errorf("Subset(10) is not the first ten")
	}
	if again := DemoGSM8K(50); string(again) != string(data) {
		t.Error("DemoGSM8K is not deterministic")
	}
	if _, err := ParseGSM8K("x", []byte(`{"question":"q","answer":"no final line"}`)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a line without ####: %v", err)
	}
}

// fileServer serves body at /data.jsonl on loopback; truncate > 0 declares
// the full length but sends only that many bytes and drops the connection.
func fileServer(t *testing.T, body []byte, truncate int) *httptest.Server {
	t.Helper()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/data.jsonl" {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Length", strconv.Itoa(len(body)))
		if truncate > 0 {
			w.Write(body[:truncate])
			panic(http.ErrAbortHandler) // the connection drops mid-body
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

func TestFetchEndToEnd(t *testing.T) {
	body := DemoGSM8K(40)
	good := Source{Name: "demo", SHA256: hexSHA(body), File: "demo.jsonl"}

	t.Run("good file, then from the cache", func(t *testing.T) {
		dir := t.TempDir()
		srv := fileServer(t, body, 0)
		src := good
		src.URL = srv.URL + "/data.jsonl"
		data, err := Fetch(context.Background(), srv.Client(), src, dir)
		if err != nil || string(data) != string(body) {
			t.Fatalf("fetch: %v (%d bytes)", err, len(data))
		}
		kept, err := os.ReadFile(filepath.Join(dir, "demo.jsonl"))
		if err != nil || string(kept) != string(body) {
			t.Fatalf("cache: %v", err)
		}
		srv.Close() // offline now: the cache must serve
		if data, err := Fetch(context.Background(), srv.Client(), src, dir); err != nil || string(data) != string(body) {
			t.Fatalf("from the cache: %v", err)
		}
		// A damaged cached file, offline: the error says so.
		os.WriteFile(filepath.Join(dir, "demo.jsonl"), body[:10], 0o644)
		if _, err := Fetch(context.Background(), srv.Client(), src, dir); err == nil || !strings.Contains(err.Error(), "in the cache does not match its pinned sha256") {
			t.Fatalf("damaged cache offline: %v", err)
		}
	})
	t.Run("wrong sha256", func(t *testing.T) {
		dir := t.TempDir()
		srv := fileServer(t, body, 0)
		src := good
		src.URL = srv.URL + "/data.jsonl"
		src.SHA256 = strings.Repeat("0", 64)
		_, err := Fetch(context.Background(), srv.Client(), src, dir)
		if err == nil || !strings.Contains(err.Error(), "has sha256 "+hexSHA(body)+", not the pinned") {
			t.Fatalf("err = %v", err)
		}
		if _, serr := os.Stat(filepath.Join(dir, "demo.jsonl")); serr == nil {
			t.Error("a file with the wrong sha256 was kept")
		}
	})
	t.Run("truncated", func(t *testing.T) {
		dir := t.TempDir()
		srv := fileServer(t, body, len(body)/2)
		src := good
		src.URL = srv.URL + "/data.jsonl"
		_, err := Fetch(context.Background(), srv.Client(), src, dir)
		if err == nil || !strings.Contains(err.Error(), "stopped after "+strconv.Itoa(len(body)/2)+" of "+strconv.Itoa(len(body))+" bytes") {
			t.Fatalf("err = %v", err)
		}
		if _, serr := os.Stat(filepath.Join(dir, "demo.jsonl")); serr == nil {
			t.Error("a truncated file was kept")
		}
	})
	t.Run("offline", func(t *testing.T) {
		dir := t.TempDir()
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			t.Fatal(err)
		}
		addr := l.Addr().String()
		l.Close() // nothing listens there any more
		src := good
		src.URL = "http://" + addr + "/data.jsonl"
		_, err = Fetch(context.Background(), http.DefaultClient, src, dir)
		want := "demo is not cached and " + src.URL + " cannot be reached"
		if err == nil || !strings.Contains(err.Error(), want) || !strings.Contains(err.Error(), filepath.Join(dir, "demo.jsonl")) {
			t.Fatalf("err = %v, want it to say %q and where to put the file", err, want)
		}
	})
}

package quality

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// The seed tool's GSM8K rule (llm_decode_bench.py 0.4.29,
// parse_final_number_loose on the final line, then on the whole text).
func TestExtractAnswer(t *testing.T) {
	for _, tc := range []struct{ text, want string }{
		{"5 + 3 = 8\n#### 8", "8"},
		{"so 1,000 apples.\n#### 1,000", "1000"},
		{"#### $18.00 dollars", "18"},
		{"first 3, then 12, so the answer is 42.", "42"},
		{"#### 7\nand later 99", "99"}, // the last line's number, not the one after ####
		{"the total is 12\n\n  \n", "12"},
		{"steps 1 and 2\nThe answer is below.", "2"}, // no number on the last line: the last in the text
		{"-3.50 is the change", "-3.5"},
		{"50%", "50"},
		{"no number here", ""},
		{"", ""},
	} {
		if got := ExtractAnswer(tc.text); got != tc.want {
			t.Errorf("ExtractAnswer(%q) = %q, want %q", tc.text, got, tc.want)
		}
	}
	if !NumbersMatch("18.00005", "18") || NumbersMatch("18.001", "18") {
		t.Error("NumbersMatch is not isclose(abs_tol=1e-4)")
	}
}

// The seed tool's option-letter rule (extract_mc_letter): its tag on the
// final line, a bare final letter, then tags in the whole text.
func TestExtractLetter(t *testing.T) {
	for _, tc := range []struct {
		text string
		n    int
		want string
	}{
		{"Reasoning...\nAnswer: C", 10, "C"},
		{"**Answer:** (b)", 4, "B"},
		{"I think.\n**D.**", 4, "D"},
		{"The answer is B because of X.\nHope this helps", 4, "B"},
		{"Answer: Answer: B", 4, "B"}, // the tag at the first word fails its lookahead ("An…")
		{"Answer: J", 4, ""},          // not among four options
		{"Answer: F\nso", 10, "F"},    // the whole text's tag
		{"the answer is b", 4, ""},    // "answer is" wants a capital letter
		{"answer: Apple", 4, ""},      // a word, not a letter
		{"nothing to see", 4, ""},
	} {
		if got := ExtractLetter(tc.text, tc.n); got != tc.want {
			t.Errorf("ExtractLetter(%q, %d) = %q, want %q", tc.text, tc.n, got, tc.want)
		}
	}
}

func FuzzExtractAnswer(f *testing.F) {
	f.Add("#### 1,234.50")
	f.Add("the answer is 7")
	f.Fuzz(func(t *testing.T, s string) {
		got := ExtractAnswer(s)
		if got == "" {
			return
		}
		if again := ExtractAnswer(got); again != got || !NumbersMatch(got, got) {
			t.Errorf("ExtractAnswer(%q) = %q does not read back (%q)", s, got, again)
		}
	})
}

func FuzzExtractLetter(f *testing.F) {
	f.Add("Answer: C", 10)
	f.Add("**b**", 4)
	f.Fuzz(func(t *testing.T, s string, n int) {
		got := ExtractLetter(s, n)
		if got != "" && !strings.Contains(OptionLetters[:max(2, min(n, 10))], got) {
			t.Errorf("ExtractLetter(%q, %d) = %q is not one of the options", s, n, got)
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
			if it.Question == "" || it.Answer == "" || ExtractAnswer(it.Answer) != it.Answer {
				t.Fatalf("item %+v from %q", it, data)
			}
		}
	})
}

func FuzzParseChoice(f *testing.F) {
	f.Add(DemoChoice(3), false)
	f.Add([]byte(`{"record_id":"rec1","category":"Physics","question":"q","options":["a","b","c","d"],"answer":"c"}`), true)
	f.Add([]byte(`{"question":"q","options":[],"answer":"A"}`), false)
	f.Fuzz(func(t *testing.T, data []byte, gpqa bool) {
		layout := LayoutMMLUPro
		if gpqa {
			layout = LayoutGPQA
		}
		d, err := ParseChoice("f", layout, data)
		if err != nil {
			return
		}
		for _, it := range d.Items {
			if it.Question == "" || len(it.Options) == 0 || len(it.Options) > 10 || !strings.Contains(OptionLetters[:len(it.Options)], it.Answer) || len(it.Answer) != 1 {
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
	if len(d.Items) != 50 || d.Items[7].ID != "demo-arith/7" || d.SHA256 != hexSHA(data) || d.Scorer != ScoreNumber {
		t.Fatalf("got %d items, id %q, sha %s", len(d.Items), d.Items[7].ID, d.SHA256)
	}
	for _, it := range d.Items[:5] {
		if !strings.HasPrefix(it.Question, "Start with ") || it.Answer == "" || it.Category == "" {
			t.Errorf("item %+v", it)
		}
	}
	// The seed tool's stride_select_items: item ⌊i·50/10⌋, every fifth.
	sub := d.Subset(10)
	for i, it := range sub {
		if it.ID != d.Items[i*5].ID {
			t.Fatalf("Subset(10)[%d] = %s, want %s", i, it.ID, d.Items[i*5].ID)
		}
	}
	if got := d.Subset(50); len(got) != 50 {
		t.Errorf("Subset(all) has %d items", len(got))
	}
	if again := DemoGSM8K(50); string(again) != string(data) {
		t.Error("DemoGSM8K is not deterministic")
	}
	if _, err := ParseGSM8K("x", []byte(`{"question":"q","answer":"no final line"}`)); err == nil || !strings.Contains(err.Error(), "line 1") {
		t.Errorf("a line without ####: %v", err)
	}
	// GSM8K itself gets the seed tool's ids, by item.
	g, err := ParseGSM8K(GSM8K.Name, []byte(`{"question":"q","answer":"x\n#### 1,200"}`+"\n\n"+`{"question":"r","answer":"#### 3"}`))
	if err != nil || g.Items[1].ID != "gsm8k-0001" || g.Items[0].Answer != "1200" {
		t.Fatalf("GSM8K ids: %v %+v", err, g)
	}
}

func TestParseDemoChoice(t *testing.T) {
	data := DemoChoice(40)
	d, err := ParseChoice(DemoChoiceName, LayoutMMLUPro, data)
	if err != nil {
		t.Fatal(err)
	}
	g, _ := ParseGSM8K(DemoDatasetName, DemoGSM8K(40))
	cats := map[string]bool{}
	for i, it := range d.Items {
		cats[it.Category] = true
		if it.Question != g.Items[i].Question || len(it.Options) != 4 || it.ID != fmt.Sprintf("mmlupro-%d", i+1) {
			t.Fatalf("item %d: %+v", i, it)
		}
		// The answer's letter names the problem's result.
		if it.Options[strings.Index(OptionLetters, it.Answer)] != g.Items[i].Answer {
			t.Fatalf("item %d: answer %s names %q, the result is %s", i, it.Answer, it.Options[strings.Index(OptionLetters, it.Answer)], g.Items[i].Answer)
		}
	}
	if len(cats) < 2 {
		t.Errorf("one category: %v", cats)
	}
	for _, bad := range []string{
		`{"question":"q","options":["a","b"],"answer":"C"}`,
		`{"question":"","options":["a","b"],"answer":"A"}`,
	} {
		if _, err := ParseChoice("x", LayoutMMLUPro, []byte(bad)); err == nil || !strings.Contains(err.Error(), "line 1") {
			t.Errorf("%s: %v", bad, err)
		}
	}
	if _, err := ParseChoice("x", LayoutGPQA, []byte(`{"record_id":"r","question":"q","options":["a","b"],"answer":"A"}`)); err == nil {
		t.Error("GPQA with two options was read")
	}
	gp, err := ParseChoice("x", LayoutGPQA, []byte(`{"record_id":"recAB","category":"Physics","question":"q","options":["a","b","c","d"],"answer":"d"}`))
	if err != nil || gp.Items[0].ID != "gpqa-recAB" || gp.Items[0].Answer != "D" {
		t.Fatalf("GPQA: %v %+v", err, gp)
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
			w.(http.Flusher).Flush()
			panic(http.ErrAbortHandler) // the connection drops mid-body
		}
		w.Write(body)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// The download, end to end against loopback file servers, for each layout
// a pinned source has: the real loader reads what Fetch returns.
func TestFetchEndToEnd(t *testing.T) {
	for _, layout := range []struct {
		name  string
		body  []byte
		parse func([]byte) (*Dataset, error)
	}{
		{"gsm8k", DemoGSM8K(40), func(b []byte) (*Dataset, error) { return ParseGSM8K("demo", b) }},
		{"mmlu-pro", DemoChoice(40), func(b []byte) (*Dataset, error) { return ParseChoice("demo", LayoutMMLUPro, b) }},
	} {
		t.Run(layout.name, func(t *testing.T) { fetchEndToEnd(t, layout.body, layout.parse) })
	}
}

func fetchEndToEnd(t *testing.T, body []byte, parse func([]byte) (*Dataset, error)) {
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
		if d, err := parse(data); err != nil || len(d.Items) != 40 || d.SHA256 != src.SHA256 {
			t.Fatalf("the loader: %v", err)
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
	t.Run("dropped before answering", func(t *testing.T) {
		dir := t.TempDir()
		srv := httptest.NewServer(http.HandlerFunc(func(http.ResponseWriter, *http.Request) { panic(http.ErrAbortHandler) }))
		t.Cleanup(srv.Close)
		src := good
		src.URL = srv.URL + "/data.jsonl"
		_, err := Fetch(context.Background(), srv.Client(), src, dir)
		if err == nil || !strings.Contains(err.Error(), "closed the connection before answering for demo") || !strings.Contains(err.Error(), filepath.Join(dir, "demo.jsonl")) {
			t.Fatalf("err = %v", err)
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

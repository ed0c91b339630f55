package report_test

import (
	"bytes"
	"os"
	"strings"
	"testing"

	"golang.org/x/net/html"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

func renderHTML(t *testing.T, runs ...*rundoc.Run) []byte {
	t.Helper()
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, runs, report.HTMLOptions{}); err != nil {
		t.Fatalf("WriteHTML: %v", err)
	}
	return buf.Bytes()
}

func TestHTMLGolden(t *testing.T) {
	ref := reference(t)
	golden(t, "html_reference.html", renderHTML(t, ref))
	golden(t, "html_compare.html", renderHTML(t, ref, tuned(t, ref)))
	// Deterministic: the same runs give the same bytes.
	if a, b := renderHTML(t, ref), renderHTML(t, ref); !bytes.Equal(a, b) {
		t.Fatal("two renders of the same run differ")
	}
}

// TestHTMLEscapesRunStrings puts markup in every free-text field and checks
// the parsed page has no element it introduced and shows it as text.
func TestHTMLEscapesRunStrings(t *testing.T) {
	out := renderHTML(t, hostile())
	doc := parse(t, out)
	var scripts, imgs int
	walk(doc, func(n *html.Node) {
		if n.Type != html.ElementNode {
			return
		}
		switch n.Data {
		case "script":
			scripts++
		case "img":
			imgs++
		}
		for _, a := range n.Attr {
			if strings.HasPrefix(a.Key, "on") {
				t.Errorf("<%s> has an event handler attribute %s=%q", n.Data, a.Key, a.Val)
			}
		}
	})
	if scripts != 0 || imgs != 0 {
		t.Fatalf("page has %d <script> and %d <img> elements, want none", scripts, imgs)
	}
	text := textOf(doc)
	for _, want := range []string{
		`name <script>alert("x")</script>`, `notes <script>`, `model <script>`, `tag <script>`,
		`reason <script>`, `vllm serve <script>`, `<svg onload=alert(1)>`, "Simulated",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("page text lacks %q", want)
		}
	}
}

// TestHTMLSelfContained checks the report parses and fetches nothing: no
// src/href (or SVG xlink:href) and no CSS url() pointing off the page.
func TestHTMLSelfContained(t *testing.T) {
	for name, out := range map[string][]byte{
		"reference": renderHTML(t, reference(t)),
		"hostile":   renderHTML(t, hostile()),
	} {
		doc := parse(t, out)
		var styles []string
		walk(doc, func(n *html.Node) {
			if n.Type == html.ElementNode && n.Data == "style" && n.FirstChild != nil {
				styles = append(styles, n.FirstChild.Data)
			}
			if n.Type != html.ElementNode {
				return
			}
			for _, a := range n.Attr {
				switch a.Key {
				case "src", "href", "action", "poster", "data", "srcset":
					t.Errorf("%s: <%s %s=%q> refers to a resource", name, n.Data, a.Key, a.Val)
				case "style":
					styles = append(styles, a.Val)
				}
			}
		})
		for _, s := range styles {
			if strings.Contains(s, "url(") || strings.Contains(s, "@import") {
				t.Errorf("%s: CSS fetches something: %.80q", name, s)
			}
		}
		if i := bytes.Index(out, []byte("https://")); i >= 0 {
			t.Errorf("%s: page names an external URL near %q", name, out[max(0, i-40):i+40])
		}
	}
}

func TestHTMLReferenceContent(t *testing.T) {
	ref := reference(t)
	text := textOf(parse(t, renderHTML(t, ref)))
	for _, want := range []string{
		"RTX 3060", "agents-a1-4b-fp8", "vllm 0.32.0", "2025-06-01 12:00 UTC",
		"HF_TOKEN=<redacted>", "890.6", "Over capacity", "Requests queued", "2341", "Methodology",
		"prompt tok/s = prompt_tokens / TTFT",
	} {
		if !strings.Contains(text, want) {
			t.Errorf("report text lacks %q", want)
		}
	}
	cmp := textOf(parse(t, renderHTML(t, ref, tuned(t, ref))))
	for _, want := range []string{"Change per cell", "+25.0%", "−20.0%", "--enable-prefix-caching", "NVIDIA GeForce RTX 3090"} {
		if !strings.Contains(cmp, want) {
			t.Errorf("comparison text lacks %q", want)
		}
	}
}

func TestHTMLRejectsBadRunCounts(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteHTML(&buf, nil, report.HTMLOptions{}); err == nil {
		t.Error("no runs: want an error")
	}
	seven := make([]*rundoc.Run, 7)
	for i := range seven {
		seven[i] = hostile()
	}
	if err := report.WriteHTML(&buf, seven, report.HTMLOptions{}); err == nil {
		t.Error("seven runs: want an error")
	}
}

// TestMethodCopyMatchesDocs keeps the embedded copy of METHOD.md equal to
// docs/METHOD.md, the one the project edits.
func TestMethodCopyMatchesDocs(t *testing.T) {
	docs, err := os.ReadFile("../../docs/METHOD.md")
	if err != nil {
		t.Fatal(err)
	}
	embedded, err := os.ReadFile("method.md")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(docs, embedded) {
		t.Fatal("engine/report/method.md differs from docs/METHOD.md: copy docs/METHOD.md over it")
	}
}

func parse(t *testing.T, b []byte) *html.Node {
	t.Helper()
	doc, err := html.Parse(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("parse HTML: %v", err)
	}
	return doc
}

func walk(n *html.Node, f func(*html.Node)) {
	f(n)
	for c := n.FirstChild; c != nil; c = c.NextSibling {
		walk(c, f)
	}
}

// textOf is the page's visible text, block elements separated by spaces.
func textOf(doc *html.Node) string {
	var b strings.Builder
	walk(doc, func(n *html.Node) {
		if n.Type == html.TextNode && (n.Parent == nil || n.Parent.Data != "style") {
			b.WriteString(n.Data)
			b.WriteByte(' ')
		}
	})
	return b.String()
}

// FuzzHTMLEscapes: whatever a run's name and notes hold, the report
// parses and contains no element that came from them.
func FuzzHTMLEscapes(f *testing.F) {
	f.Add("<script>alert(1)</script>", "<img src=x onerror=alert(1)>")
	f.Add("]]><svg onload=x>", "</textarea><style>@import url(http://x)</style>")
	f.Fuzz(func(t *testing.T, name, notes string) {
		r := hostile()
		r.Name, r.Notes, r.Server.Model = name, notes, name
		var buf bytes.Buffer
		if err := report.WriteHTML(&buf, []*rundoc.Run{r}, report.HTMLOptions{}); err != nil {
			t.Fatal(err)
		}
		doc := parse(t, buf.Bytes())
		walk(doc, func(n *html.Node) {
			if n.Type == html.ElementNode && (n.Data == "script" || n.Data == "img" || n.Data == "iframe") {
				t.Fatalf("a <%s> element got into the page", n.Data)
			}
		})
	})
}

// Issue 16 item 7: a report holds nothing meant for developers and no
// placeholder where a fact was not recorded ("KV capacity — tokens
// (unknown)"); Markdown's matrix says its window length.
func TestReportsSayOnlyWhatIsKnown(t *testing.T) {
	ref := reference(t)
	var h, md bytes.Buffer
	if err := report.WriteHTML(&h, []*rundoc.Run{ref, tuned(t, ref)}, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"Change this file only", "— tokens", "(unknown)"} {
		if strings.Contains(h.String(), bad) {
			t.Errorf("the comparison HTML contains %q", bad)
		}
	}
	if err := report.WriteMarkdown(&md, ref); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "(30 s windows)") {
		t.Error("the Markdown matrix does not state its window length")
	}
}

// A paragraph at the margin after a list and an empty line is its own
// paragraph in the report's copy of METHOD.md, as in Markdown, not the
// tail of the list's last item (the Diagnosis section's "Advice follows"
// read as part of "bandwidth-bound").
func TestMethodParagraphAfterAList(t *testing.T) {
	page := string(renderHTML(t, reference(t)))
	if !strings.Contains(page, "</li></ul>\n<p>Advice follows from the same capacity model") {
		i := strings.Index(page, "Advice follows")
		t.Errorf("the paragraph after the Diagnosis list is not its own: …%s…", page[max(0, i-120):i+20])
	}
}

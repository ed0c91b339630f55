package report_test

import (
	"bytes"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/renderer/html"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// mdHostileRun holds, in every string that comes from outside (the user,
// the server, the machine, an imported file), what breaks naive Markdown:
// blank lines followed by raw HTML, backtick runs that would close a code
// span, pipes that would add table columns, links, images, emphasis,
// headings and entities.
func mdHostileRun() *rundoc.Run {
	html := "\n\n<script>alert(1)</script>\n\n<img src=x onerror=alert(2)>"
	md := " | extra | column | `code` ``two`` [link](javascript:alert(3)) ![img](http://x/y.png) **b** _i_ ~~s~~ &lt;b&gt; # h"
	start := time.Date(2025, 11, 29, 14, 3, 0, 0, time.UTC)
	return &rundoc.Run{
		Schema: rundoc.Schema, UUID: "0b6f7d5e-2c1a-4e4b-9f3d-8a7c6b5e4d3c", Status: rundoc.RunFailed,
		Name: "name" + html + md, Tags: []string{"tag|one", "tag" + html, "`"}, Notes: "notes" + html + md,
		Error: "error" + html + md, CreatedAt: start, Origin: rundoc.OriginMeasured,
		Plan: rundoc.Plan{Contexts: []int{0}, Concurrency: []int{1, 2}, DurationS: 30, MaxOutput: 64},
		Hardware: &hardware.Snapshot{
			GPUs:          []hardware.GPU{{Index: 0, Name: "gpu" + html + md, ComputeCapability: "8.6" + md}},
			DriverVersion: "580" + md, CPU: hardware.CPU{Model: "cpu" + html + md},
			OS: hardware.OS{Name: "os" + html + md},
		},
		// No serve command: the arguments are shown in an inline code span.
		Launch: &rundoc.Launch{Image: "vllm/vllm-openai:`latest`" + html + md, Model: "m", GPUs: "all" + md,
			Args: []string{"--served-model-name", "x``y" + html, md}},
		Server: rundoc.Server{Model: "model" + html + md, Engine: "vllm" + md, Version: "0.11" + html,
			KVCapacityTokens: 1000, KVCapacitySource: rundoc.KVSourceUnknown},
		Cells: []rundoc.Cell{
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 98.04, TTFTMs: 41.6},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 2, Status: rundoc.StatusFailed, Reason: "reason" + html + md},
		},
	}
}

// rawTag is an HTML element the hostile text carries; rendered Markdown
// must show it as text, never as an element.
var rawTag = regexp.MustCompile(`(?i)<(script|img|b)\b`)

// TestMarkdownHostileGolden: every outside string is escaped for its
// context (issue 12 #5). A Markdown engine that passes raw HTML through
// (GitHub-flavoured, unsafe) renders no element of the payload, the code
// spans of the image and the arguments stay closed, and no table row
// gains a column. The golden file shows the escaped text.
func TestMarkdownHostileGolden(t *testing.T) {
	var buf bytes.Buffer
	if err := report.WriteMarkdown(&buf, mdHostileRun()); err != nil {
		t.Fatal(err)
	}
	golden(t, "markdown_hostile.md", buf.Bytes())

	var out bytes.Buffer
	md := goldmark.New(goldmark.WithExtensions(extension.GFM), goldmark.WithRendererOptions(html.WithUnsafe()))
	if err := md.Convert(buf.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	rendered := out.String()
	if m := rawTag.FindAllString(rendered, -1); len(m) > 0 {
		t.Errorf("rendered Markdown holds elements of the payload %q:\n%s", m, rendered)
	}
	for _, bad := range []string{`href="javascript`, "<a ", "<em>", "<strong>b", "<del>", "<h1>h", "<h2>h"} {
		if strings.Contains(rendered, bad) {
			t.Errorf("rendered Markdown holds %q made from run text", bad)
		}
	}
	// The image's and the arguments' code spans hold the whole text.
	for _, want := range []string{"<code>vllm/vllm-openai:`latest`", "<code>--served-model-name x``y"} {
		if !strings.Contains(rendered, want) {
			t.Errorf("rendered Markdown lacks %q: a code span was cut open", want)
		}
	}
	// The payload is shown, as text.
	if !strings.Contains(rendered, "&lt;script&gt;alert(1)&lt;/script&gt;") {
		t.Error("the payload text is missing from the rendered page")
	}
	checkTableColumns(t, buf.String())
}

// checkTableColumns checks that every row of every Markdown table has as
// many cells as its header: cells are split at '|' not escaped by '\'
// (GitHub splits a table row so, even inside code spans).
func checkTableColumns(t *testing.T, doc string) {
	t.Helper()
	want := -1
	for i, line := range strings.Split(doc, "\n") {
		if !strings.HasPrefix(line, "|") {
			want = -1
			continue
		}
		n := 0
		for j := 0; j < len(line); j++ {
			switch line[j] {
			case '\\':
				j++
			case '|':
				n++
			}
		}
		if want < 0 {
			want = n
		} else if n != want {
			t.Errorf("line %d has %d cell borders, its table's header %d: %q", i+1, n, want, line)
		}
	}
}

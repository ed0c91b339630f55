package export_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui/export"
)

func reference(t *testing.T) *rundoc.Run { return export.ReferenceRun(t) }

// Export writes every format to a file, and what it writes reads back.
func TestExportWritesEveryFormat(t *testing.T) {
	r := reference(t)
	dir := t.TempDir()
	for _, f := range report.Formats() {
		path := filepath.Join(dir, report.FileName([]*rundoc.Run{r}, f))
		if err := export.WriteFile(path, f, []*rundoc.Run{r}); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		b, err := os.ReadFile(path)
		if err != nil || len(b) == 0 {
			t.Fatalf("%s: file %s empty or missing (%v)", f, path, err)
		}
		switch f {
		case report.JSON:
			back, err := rundoc.ReadRun(bytes.NewReader(b))
			if err != nil || back.UUID != r.UUID || len(back.Cells) != len(r.Cells) {
				t.Errorf("JSON does not read back: %v", err)
			}
		case report.CSV:
			if !strings.HasPrefix(string(b), "phase,context_tokens") {
				t.Errorf("CSV starts %q", string(b[:min(40, len(b))]))
			}
		case report.Markdown:
			if !strings.Contains(string(b), "890.6") {
				t.Error("Markdown lacks the 0×32 figure 890.6")
			}
		case report.HTML:
			if !strings.Contains(string(b), "<html") {
				t.Error("HTML export is not HTML")
			}
		case report.PNG:
			if !bytes.HasPrefix(b, []byte("\x89PNG")) {
				t.Error("PNG export is not a PNG")
			}
		case report.SVG:
			if !strings.Contains(string(b), "<svg") {
				t.Error("SVG export is not SVG")
			}
		}
	}
}

// A comparison exports as Markdown and HTML; one-run formats refuse it
// with a sentence saying what to do.
func TestExportComparison(t *testing.T) {
	a := reference(t)
	b := *a
	b.UUID = "other"
	runs := []*rundoc.Run{a, &b}
	md, err := export.MarkdownText(runs)
	if err != nil || !strings.Contains(md, "comparison") {
		t.Errorf("comparison Markdown: %v", err)
	}
	var buf bytes.Buffer
	if err := report.Write(&buf, report.JSON, runs, report.Options{}); err == nil || !strings.Contains(err.Error(), "one by one") {
		t.Errorf("JSON of two runs: err = %v", err)
	}
	if err := export.WriteFile(filepath.Join(t.TempDir(), "no", "such", "dir.html"), report.HTML, runs); err == nil {
		t.Error("writing into a missing folder succeeded")
	}
}

// Saving over a symbolic link writes the file it points to and keeps the
// link (a plain write used to follow it; a rename would replace it), and an
// existing file keeps its mode.
func TestExportKeepsLinkAndMode(t *testing.T) {
	r := reference(t)
	dir := t.TempDir()
	real := filepath.Join(dir, "kept.md")
	if err := os.WriteFile(real, []byte("old"), 0o600); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link.md")
	if err := os.Symlink(real, link); err != nil {
		t.Fatal(err)
	}
	if err := export.WriteFile(link, report.Markdown, []*rundoc.Run{r}); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Lstat(link); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("link is now %v (%v)", fi.Mode(), err)
	}
	fi, err := os.Stat(real)
	if err != nil || fi.Mode().Perm() != 0o600 {
		t.Errorf("target mode %v (%v), want 0600 kept", fi.Mode().Perm(), err)
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "890.6") {
		t.Errorf("target holds %q", b)
	}
	// A failed export (two runs as JSON) leaves the file as it was.
	if err := export.WriteFile(real, report.JSON, []*rundoc.Run{r, r}); err == nil {
		t.Fatal("JSON of two runs succeeded")
	}
	if b, _ := os.ReadFile(real); !strings.Contains(string(b), "890.6") {
		t.Errorf("a failed export changed the file to %q", b)
	}
}

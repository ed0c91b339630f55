// Package export writes a run, or a comparison of runs, to a file the user
// chooses: JSON (the complete run document), CSV, Markdown, HTML, PNG or
// SVG, and copies Markdown to the clipboard. Write is Fyne-free in all but
// name so tests call it directly; Show is the dialog.
package export

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
)

// Format is an export format.
type Format string

// Export formats, in the order the dialog lists them.
const (
	JSON     Format = "JSON"
	CSV      Format = "CSV"
	Markdown Format = "Markdown"
	HTML     Format = "HTML"
	PNG      Format = "PNG"
	SVG      Format = "SVG"
)

// Formats lists every format.
func Formats() []Format { return []Format{JSON, CSV, Markdown, HTML, PNG, SVG} }

// Ext is the file extension of a format.
func (f Format) Ext() string {
	switch f {
	case Markdown:
		return ".md"
	default:
		return "." + strings.ToLower(string(f))
	}
}

// FileName suggests a file name for runs in format f.
func FileName(runs []*rundoc.Run, f Format) string {
	base := "rigbench-comparison"
	if len(runs) == 1 {
		base = "rigbench-" + slug(runs[0])
	}
	return base + f.Ext()
}

func slug(r *rundoc.Run) string {
	s := r.Name
	if s == "" {
		s = r.Server.Model
	}
	if s == "" && len(r.UUID) >= 8 {
		s = r.UUID[:8]
	}
	var b strings.Builder
	for _, c := range strings.ToLower(s) {
		switch {
		case c >= 'a' && c <= 'z', c >= '0' && c <= '9', c == '.':
			b.WriteRune(c)
		default:
			b.WriteRune('-')
		}
	}
	return strings.Trim(b.String(), "-")
}

// Write writes runs in format f to w. JSON and CSV take one run; the
// others take one run or a comparison of 2–6. PNG and SVG draw the decode
// throughput chart (the matrix heatmap for a single run), chartDark picks
// the dark palette.
func Write(w io.Writer, f Format, runs []*rundoc.Run, chartDark bool) error {
	if len(runs) == 0 {
		return errors.New("choose a run to export first")
	}
	switch f {
	case JSON:
		if len(runs) != 1 {
			return errors.New("JSON holds one run: export the runs one by one")
		}
		return rundoc.WriteRun(w, runs[0])
	case CSV:
		if len(runs) != 1 {
			return errors.New("CSV holds one run: export the runs one by one")
		}
		return report.WriteCSV(w, runs[0])
	case Markdown:
		return WriteMarkdown(w, runs)
	case HTML:
		return report.WriteHTML(w, runs, report.HTMLOptions{})
	case PNG, SVG:
		kind := chart.DecodeTotal
		if len(runs) == 1 {
			kind = chart.Matrix
		}
		return chart.Render(w, kind, runs, chart.Options{Format: chart.Format(strings.ToLower(string(f))), Dark: chartDark})
	}
	return fmt.Errorf("unknown export format %q", f)
}

// WriteMarkdown writes the Markdown of runs: a comparison for two or more,
// and for one run the comparison writer's tables of that run alone when
// no single-run writer exists.
func WriteMarkdown(w io.Writer, runs []*rundoc.Run) error {
	if len(runs) >= 2 {
		return report.WriteCompareMarkdown(w, runs)
	}
	return writeRunMarkdown(w, runs[0])
}

// WriteFile writes runs to path by the safe-file rules: a regular file is
// replaced only when the export succeeded (a failed export leaves no
// half-written file) and keeps its mode, a link stays a link, a device is
// written through.
func WriteFile(path string, f Format, runs []*rundoc.Run, chartDark bool) error {
	if err := safefile.Write(path, func(w io.Writer) error { return Write(w, f, runs, chartDark) }); err != nil {
		var se *safefile.Error
		if errors.As(err, &se) && se.Hint == "" {
			return fmt.Errorf("%w; choose another folder", err)
		}
		return err
	}
	return nil
}

// MarkdownText returns the Markdown of runs as a string (for the
// clipboard).
func MarkdownText(runs []*rundoc.Run) (string, error) {
	var b strings.Builder
	if err := WriteMarkdown(&b, runs); err != nil {
		return "", err
	}
	return b.String(), nil
}

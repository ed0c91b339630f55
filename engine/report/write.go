package report

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// Format is an export format. Its value is the name the CLI's --format
// takes and, with a dot, the file extension.
type Format string

// Export formats, in the order the app's dialog lists them.
const (
	JSON     Format = "json"
	CSV      Format = "csv"
	Markdown Format = "md"
	HTML     Format = "html"
	PNG      Format = "png"
	SVG      Format = "svg"
	// LDB is llm_decode_bench's benchmark_results.json layout.
	LDB Format = "llm-decode-bench"
)

// Formats lists every export format.
func Formats() []Format { return []Format{JSON, CSV, Markdown, HTML, PNG, SVG, LDB} }

// ParseFormat reads a format name as a user types it: "md" or "markdown",
// in any case, with or without a leading dot.
func ParseFormat(s string) (Format, error) {
	name := strings.TrimPrefix(strings.ToLower(strings.TrimSpace(s)), ".")
	if name == "markdown" {
		name = string(Markdown)
	}
	for _, f := range Formats() {
		if string(f) == name {
			return f, nil
		}
	}
	return "", fmt.Errorf("unknown format %q: use one of %s", s, FormatNames())
}

// FormatNames lists the formats for usage lines: "json|csv|md|html|png|svg".
func FormatNames() string {
	names := make([]string, 0, len(Formats()))
	for _, f := range Formats() {
		names = append(names, string(f))
	}
	return strings.Join(names, "|")
}

// Ext is the file extension of a format, with its dot.
func (f Format) Ext() string {
	if f == LDB {
		return ".json" // the tool's own files are JSON
	}
	return "." + string(f)
}

// Label is the format's name for people ("Markdown", "PNG").
func (f Format) Label() string {
	switch f {
	case Markdown:
		return "Markdown"
	case LDB:
		return "llm-decode-bench JSON"
	default:
		return strings.ToUpper(string(f))
	}
}

// Options tune the picture formats. The zero value is what both front ends
// export by default, so the same run gives the same bytes from each.
type Options struct {
	// Chart is the chart of PNG and SVG: "" draws the decode matrix for one
	// run and the decode throughput lines for a comparison.
	Chart chart.Kind
	// Width and Height in pixels (0: chart.DefaultWidth/Height) and Scale,
	// the PNG pixel density (0: 1).
	Width, Height int
	Scale         float64
	// Dark picks the dark chart palette.
	Dark bool
}

// Write writes runs in format f to w: the one writer behind every export
// of the app and the CLI. JSON and CSV hold one run; Markdown, HTML, PNG
// and SVG one run or a comparison of 2–6. It renders into memory first, so
// a failed render writes nothing.
func Write(w io.Writer, f Format, runs []*rundoc.Run, o Options) error {
	if len(runs) == 0 {
		return errors.New("choose a run to export first")
	}
	var buf bytes.Buffer
	if err := render(&buf, f, runs, o); err != nil {
		return err
	}
	_, err := buf.WriteTo(w)
	return err
}

func render(w io.Writer, f Format, runs []*rundoc.Run, o Options) error {
	switch f {
	case JSON, CSV, LDB:
		if len(runs) != 1 {
			return fmt.Errorf("%s holds one run: export the runs one by one", f.Label())
		}
		if f == JSON {
			return rundoc.WriteRun(w, runs[0])
		}
		if f == LDB {
			return WriteLDBJSON(w, runs[0])
		}
		return WriteCSV(w, runs[0])
	case Markdown:
		if len(runs) == 1 {
			return WriteMarkdown(w, runs[0])
		}
		return WriteCompareMarkdown(w, runs)
	case HTML:
		return WriteHTML(w, runs, HTMLOptions{})
	case PNG, SVG:
		kind := o.Chart
		if kind == "" {
			kind = chart.DecodeTotal
			if len(runs) == 1 {
				kind = chart.Matrix
			}
		}
		return chart.Render(w, kind, runs, chart.Options{
			Format: chart.Format(f), Width: o.Width, Height: o.Height, Scale: o.Scale, Dark: o.Dark,
		})
	}
	return fmt.Errorf("unknown export format %q: use one of %s", f, FormatNames())
}

// FileName suggests a file name for runs in format f:
// "rigbench-<name or model>.md", or "rigbench-comparison.html".
func FileName(runs []*rundoc.Run, f Format) string {
	base := "rigbench-comparison"
	if len(runs) == 1 {
		base = "rigbench-" + slug(runs[0])
	}
	return base + f.Ext()
}

// slug is a run's name, model or short ID reduced to lower-case letters,
// digits, dots and dashes, for a file name.
func slug(r *rundoc.Run) string {
	s := r.Name
	if s == "" {
		s = r.Server.Model
	}
	if s == "" {
		s = rundoc.ShortID(r.UUID)
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

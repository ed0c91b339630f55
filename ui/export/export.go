// Package export is the app's export dialog: it writes a run, or a
// comparison of runs, to a file the user chooses in any format of
// engine/report (the writer the CLI uses too, so both give the same bytes),
// and copies Markdown to the clipboard.
package export

import (
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/safefile"
)

// WriteFile writes runs to path in format f with the default options (the
// CLI's defaults too), by the safe-file rules: a regular file is replaced
// only when the export succeeded (a failed export leaves no half-written
// file) and keeps its mode, a link stays a link, a device is written
// through.
func WriteFile(path string, f report.Format, runs []*rundoc.Run) error {
	if err := safefile.Write(path, func(w io.Writer) error { return report.Write(w, f, runs, report.Options{}) }); err != nil {
		var se *safefile.Error
		if errors.As(err, &se) && se.Hint == "" {
			return fmt.Errorf("%w; choose another folder", err)
		}
		return err
	}
	return nil
}

// MarkdownText returns the Markdown of runs as a string (for the
// clipboard): the same text as a Markdown export.
func MarkdownText(runs []*rundoc.Run) (string, error) {
	var b strings.Builder
	if err := report.Write(&b, report.Markdown, runs, report.Options{}); err != nil {
		return "", err
	}
	return b.String(), nil
}

package main

import (
	"io"
	"sort"
	"strings"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// exportFormats maps `export --format` names to the writer of one run. A
// new format is one entry here (the picture formats join from
// visualExports in init).
var exportFormats = map[string]func(w io.Writer, r *rundoc.Run) error{
	"json": rundoc.WriteRun,
	"csv":  report.WriteCSV,
	"md":   report.WriteMarkdown,
}

func init() {
	for name, write := range visualExports {
		exportFormats[name] = write
	}
}

// formatNames lists the export formats for usage lines: "csv|html|json|…".
func formatNames() string {
	names := make([]string, 0, len(exportFormats))
	for n := range exportFormats {
		names = append(names, n)
	}
	sort.Strings(names)
	return strings.Join(names, "|")
}

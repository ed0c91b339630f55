package main

import (
	"io"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// defaultVisual is how `export --format png|svg` draws when given no chart
// flags: the decode matrix, the one picture that sums a run up.
var defaultVisual = visualFlags{chart: string(chart.Matrix), width: chart.DefaultWidth, height: chart.DefaultHeight, scale: 1}

// visualExports are the export formats of the reports package's pictures,
// format name → writer of one run, for `rigbench-cli export ID --format`.
// The export command's format table (formats.go) takes these entries.
var visualExports = map[string]func(w io.Writer, r *rundoc.Run) error{
	"html": func(w io.Writer, r *rundoc.Run) error { return writeVisual(w, "html", []*rundoc.Run{r}, defaultVisual) },
	"png":  func(w io.Writer, r *rundoc.Run) error { return writeVisual(w, "png", []*rundoc.Run{r}, defaultVisual) },
	"svg":  func(w io.Writer, r *rundoc.Run) error { return writeVisual(w, "svg", []*rundoc.Run{r}, defaultVisual) },
}

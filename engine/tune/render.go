package tune

import (
	"fmt"
	"html"
	"io"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/termtext"
)

// Table is the sweep as rows of text: a header and one row per variant
// (index, flags, status, KV capacity, the server's start-up time with
// vLLM's split of it, each decode cell's total tok/s or status, the
// score). The CLI, Markdown, HTML and the app's table all read
// it, so they show the same figures.
func (d *Doc) Table() (header []string, rows [][]string) {
	type key struct{ c, n int }
	var cells []key
	seen := map[key]bool{}
	for _, c := range d.Plan.Contexts {
		for _, n := range d.Plan.Concurrency {
			k := key{c, n}
			if !seen[k] {
				seen[k] = true
				cells = append(cells, k)
			}
		}
	}
	header = []string{"#", "flags", "status", "KV cache", "start-up"}
	for _, k := range cells {
		header = append(header, rundoc.CellName(k.c, k.n))
	}
	header = append(header, "score")
	probe := ""
	for _, v := range d.Variants {
		if v.Quality != nil {
			probe = v.Quality.Probe
		}
	}
	if probe != "" {
		header = append(header, "quality ("+probe+")")
	}
	bars := d.Bars()
	for i, v := range d.Variants {
		mark := strconv.Itoa(i + 1)
		if d.Best != nil && *d.Best == i {
			mark += " ★"
		}
		kv := "—"
		if v.KVCapacityTokens > 0 {
			kv = rundoc.TokensText(v.KVCapacityTokens)
		}
		// A label read from a document may hold a newline or a control
		// character: escaped, it stays on its row in every rendering.
		start := "—"
		if v.Startup != nil {
			start = v.Startup.Text()
		}
		row := []string{mark, termtext.Safe(v.Label), termtext.Safe(string(v.Status)), kv, start}
		for _, k := range cells {
			row = append(row, cellText(v.Cells, k.c, k.n))
		}
		score := "—"
		if bars[i].OK {
			score = bars[i].Score
		}
		row = append(row, score)
		if probe != "" {
			q := "—"
			if v.Quality != nil {
				q = termtext.Safe(v.Quality.Text)
			}
			row = append(row, q)
		}
		rows = append(rows, row)
	}
	return header, rows
}

// objective reads back the document's objective (its plan names the cells).
func (d *Doc) objective() Objective {
	o, _ := ParseObjective(d.Objective, d.Plan)
	return o
}

// cellText is a decode cell's total tok/s, starred when requests queued,
// or its status.
func cellText(cells []DocCell, context, concurrency int) string {
	for _, c := range cells {
		if c.Context != context || c.Concurrency != concurrency {
			continue
		}
		switch c.Status {
		case rundoc.StatusValid:
			return strconv.FormatFloat(c.TotalTokS, 'f', 1, 64)
		case rundoc.StatusQueued:
			return strconv.FormatFloat(c.TotalTokS, 'f', 1, 64) + "*"
		}
		return strings.ToLower(string(c.Status))
	}
	return "·"
}

// Text writes the table aligned in columns and the verdict, for a terminal.
func (d *Doc) Text(w io.Writer) error {
	header, rows := d.Table()
	width := make([]int, len(header))
	for _, r := range append([][]string{header}, rows...) {
		for i, c := range r {
			width[i] = max(width[i], len([]rune(c)))
		}
	}
	line := func(r []string) {
		var b strings.Builder
		for i, c := range r {
			b.WriteString(c)
			if i < len(r)-1 {
				b.WriteString(strings.Repeat(" ", width[i]-len([]rune(c))+2))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
	}
	fmt.Fprintf(w, "\nSweep %s · objective %s · cells: total tok/s (* requests queued)\n", d.SweepID, d.objective().Describe())
	line(header)
	for _, r := range rows {
		line(r)
	}
	for i, v := range d.Variants {
		if v.Error != "" {
			msg := v.Error
			if v.Fix != "" {
				msg += ": " + v.Fix
			}
			fmt.Fprintf(w, "%d: %s\n", i+1, termtext.SafeLines(msg))
		}
	}
	if front := d.FrontierText(); len(front) > 1 {
		fmt.Fprintln(w, "\nPareto frontier (nothing beats these on both total and per-request tok/s):")
		for _, f := range front {
			fmt.Fprintf(w, "  %s\n", termtext.Safe(f))
		}
	}
	_, err := fmt.Fprintf(w, "\nVerdict: %s\n", termtext.SafeLines(d.Verdict))
	return err
}

// Markdown writes the sweep as a Markdown section ready to paste.
func (d *Doc) Markdown(w io.Writer) error {
	header, rows := d.Table()
	esc := func(s string) string {
		return strings.NewReplacer("|", `\|`, "\n", " ", "*", `\*`, "_", `\_`).Replace(s)
	}
	var b strings.Builder
	fmt.Fprintf(&b, "## Tune sweep %s\n\n", esc(d.SweepID))
	fmt.Fprintf(&b, "**Verdict:** %s\n\n", strings.ReplaceAll(d.Verdict, "|", `\|`))
	fmt.Fprintf(&b, "Objective: %s. Base: `%s %s`. Mode: %s.\n\n", esc(d.objective().Describe()), d.Base.Model, strings.Join(d.Base.Flags, " "), d.Mode)
	b.WriteString("|")
	for _, h := range header {
		b.WriteString(" " + esc(h) + " |")
	}
	b.WriteString("\n|")
	for range header {
		b.WriteString("---|")
	}
	b.WriteString("\n")
	for _, r := range rows {
		b.WriteString("|")
		for _, c := range r {
			b.WriteString(" " + esc(c) + " |")
		}
		b.WriteString("\n")
	}
	b.WriteString("\nCells: total tok/s of the decode cell (context×concurrency); \\* requests queued.\n")
	if front := d.FrontierText(); len(front) > 0 {
		b.WriteString("\nPareto frontier (nothing beats these on both total and per-request tok/s):\n\n")
		for _, f := range front {
			b.WriteString("- " + esc(f) + "\n")
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

// HTML writes a self-contained HTML page of the sweep: verdict, table and
// a bar chart of the objective per variant with the base marked.
func (d *Doc) HTML(w io.Writer) error {
	header, rows := d.Table()
	e := html.EscapeString
	var b strings.Builder
	b.WriteString("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>RigBench Tune sweep " + e(d.SweepID) + "</title>\n")
	b.WriteString("<style>body{font-family:sans-serif;margin:2em;max-width:1100px}table{border-collapse:collapse}td,th{border:1px solid #bbb;padding:4px 8px;text-align:right}td:nth-child(2),th:nth-child(2){text-align:left;font-family:monospace}.best{background:#e6f4e6}svg.chart{width:100%;height:auto;max-width:900px}</style></head><body>\n")
	b.WriteString("<h1>Tune sweep " + e(d.SweepID) + "</h1>\n<p><strong>Verdict:</strong> " + e(d.Verdict) + "</p>\n")
	b.WriteString("<p>Objective: " + e(d.objective().Describe()) + ". Base: <code>" + e(d.Base.Model+" "+strings.Join(d.Base.Flags, " ")) + "</code>. Mode: " + e(string(d.Mode)) + ".</p>\n")
	b.WriteString(d.SVG(720, 40+28*len(d.Variants)))
	b.WriteString("\n<table><tr>")
	for _, h := range header {
		b.WriteString("<th>" + e(h) + "</th>")
	}
	b.WriteString("</tr>\n")
	for i, r := range rows {
		cls := ""
		if d.Best != nil && *d.Best == i {
			cls = ` class="best"`
		}
		b.WriteString("<tr" + cls + ">")
		for _, c := range r {
			b.WriteString("<td>" + e(c) + "</td>")
		}
		b.WriteString("</tr>\n")
	}
	b.WriteString("</table>\n<p>Cells: total tok/s of the decode cell (context×concurrency); * requests queued.</p>\n")
	svg, ok, err := d.ParetoChart(chart.Options{Format: chart.SVG})
	if err != nil {
		return err
	}
	if ok {
		b.WriteString("<h2>Trade-off across variants</h2>\n<figure>" + chart.Inline(svg, "Trade-off across variants") + "</figure>\n<ul>")
		for _, f := range d.FrontierText() {
			b.WriteString("<li>" + e(f) + "</li>")
		}
		b.WriteString("</ul>\n")
	}
	b.WriteString("</body></html>\n")
	_, err = io.WriteString(w, b.String())
	return err
}

// Bar is one variant as the sweep's chart draws it and its table scores
// it. Bars are read from the judge's outcome (the document's Best and
// Ties), so the bars, the table and the verdict come from one computation
// and never disagree about who won or who tied.
type Bar struct {
	// Label says what the variant changes ("kv-cache-dtype fp8,
	// max-num-seqs 64"), or BaseLabel for the base.
	Label string
	// Value and CI95 are the score and its 95% half-width (0: none); OK is
	// false when the variant has no score.
	Value, CI95 float64
	OK          bool
	// Base, Best and Tie mark the user's flags, the verdict's winner and
	// the variants within the noise of it.
	Base, Best, Tie bool
	// Score is the score as shown, with its ± and "tie" where it ties
	// ("287.7 ± 3.1 tok/s, a tie"), or "no figure" and why.
	Score string
	// Note is what the objective's cell says about its figure (requests
	// queued, a window mostly spent waiting for first tokens), "" if
	// nothing.
	Note string
}

// Bars is the objective per variant, in the variants' order.
func (d *Doc) Bars() []Bar {
	o := d.objective()
	ties := map[int]bool{}
	for _, i := range d.Ties {
		ties[i] = true
	}
	var out []Bar
	for i, v := range d.Variants {
		b := Bar{Label: BarLabel(v), Base: i == 0, Best: d.Best != nil && *d.Best == i, Tie: ties[i]}
		if v.Score != nil {
			b.Value, b.CI95, b.OK = *v.Score, v.ScoreCI95, true
			b.Score = o.FormatScoreCI(Score{Value: b.Value, CI95: b.CI95, OK: true})
			if b.Tie {
				b.Score += ", a tie"
			}
		} else {
			b.Score = "no figure"
			if v.ScoreWhy != "" {
				b.Score += " (" + v.ScoreWhy + ")"
			}
		}
		if b.OK {
			// A variant without a score says why in its score already
			// (the cell queued); the cell's long reason would repeat it.
			b.Note = d.cellNote(v)
		}
		if q := v.Quality; q != nil && q.Verdict == QualityLost {
			// The bar may be the longest: the chart says why it is not
			// the winner, as the verdict does.
			b.Note = strings.TrimPrefix(b.Note+"; quality "+termtext.Safe(q.Text), "; ")
		}
		out = append(out, b)
	}
	return out
}

// BarLabel names a variant by what it changes, without the dashes a
// command line needs: "kv-cache-dtype fp8, max-num-seqs 64".
//
// Speculative decoding reads in its short form ("speculative mtp:2"), and
// a variant that only leaves a flag out, which has no arguments, by its
// label ("without speculative decoding").
func BarLabel(v DocVariant) string {
	if len(v.Flags) == 0 {
		if v.Label != "" && v.Label != BaseLabel {
			return termtext.Safe(v.Label)
		}
		return BaseLabel
	}
	var parts []string
	spec := strings.TrimPrefix(vllm.SpeculativeFlag, "--")
	for _, a := range v.Flags {
		switch {
		case strings.HasPrefix(a, "--"):
			parts = append(parts, strings.TrimPrefix(a, "--"))
		case len(parts) > 0 && parts[len(parts)-1] == spec:
			parts[len(parts)-1] = "speculative " + vllm.SpeculativeLabel(a)
		case len(parts) > 0:
			parts[len(parts)-1] += " " + a
		default:
			parts = append(parts, a)
		}
	}
	return termtext.Safe(strings.Join(parts, ", "))
}

// cellNote is what the objective's cell says beside its figure: why it
// queued, or a note such as a window mostly spent waiting for first
// tokens (the CLI's `show` prints the same reason). Objectives over many
// cells have no one cell, and so no note.
func (d *Doc) cellNote(v DocVariant) string {
	o := d.objective()
	if !o.Kind.cellObjective() {
		return ""
	}
	for _, c := range v.Cells {
		if c.Context != o.Context || c.Concurrency != o.Concurrency {
			continue
		}
		switch {
		case c.Status == rundoc.StatusQueued && c.Reason != "":
			return "requests queued: " + termtext.Safe(c.Reason)
		case c.Status == rundoc.StatusQueued:
			return "requests queued"
		case c.Status == rundoc.StatusUnreliable:
			return "unreliable: " + termtext.Safe(c.Reason)
		case c.Status == rundoc.StatusValid:
			return termtext.Safe(c.Reason)
		}
	}
	return ""
}

// SVG draws the objective per variant as horizontal bars; the base (the
// first variant) is outlined and labelled "base", the best is green.
func (d *Doc) SVG(width, height int) string {
	bars, o := d.Bars(), d.objective()
	top := 0.0
	for _, x := range bars {
		top = max(top, x.Value+x.CI95)
	}
	const left, right, row = 300, 110, 28
	var b strings.Builder
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="sans-serif" font-size="12">`, width, height)
	fmt.Fprintf(&b, `<text x="0" y="14">%s per variant</text>`, html.EscapeString(o.Describe()))
	for i, x := range bars {
		y := 24 + i*row
		name := x.Label
		if x.Base {
			name = "base: " + x.Label
		}
		if r := []rune(name); len(r) > 44 {
			// Cut in the middle: variants of a grid share their first
			// flags and differ in their last, which an end cut hid.
			name = string(r[:20]) + "…" + string(r[len(r)-23:])
		}
		fmt.Fprintf(&b, `<text x="%d" y="%d" text-anchor="end">%s</text>`, left-6, y+16, html.EscapeString(name))
		if !x.OK {
			fmt.Fprintf(&b, `<text x="%d" y="%d" fill="#888">%s</text>`, left+4, y+16, html.EscapeString(x.Score))
			continue
		}
		scale := 0.0
		if top > 0 {
			scale = float64(width-left-right) / top
		}
		wpx := x.Value * scale
		fill := "#7a9cc6"
		if x.Best || x.Tie {
			fill = "#4caf50"
		}
		stroke := ""
		if x.Base {
			stroke = ` stroke="#000" stroke-width="2"`
		}
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="%.1f" height="20" fill="%s"%s/>`, left, y+2, wpx, fill, stroke)
		if x.CI95 > 0 {
			// The ± as a whisker across the bar's end.
			fmt.Fprintf(&b, `<line x1="%.1f" x2="%.1f" y1="%d" y2="%d" stroke="#000"/>`, float64(left)+(x.Value-x.CI95)*scale, float64(left)+(x.Value+x.CI95)*scale, y+12, y+12)
		}
		fmt.Fprintf(&b, `<text x="%.1f" y="%d">%s</text>`, float64(left)+(x.Value+x.CI95)*scale+4, y+16, html.EscapeString(x.Score))
	}
	b.WriteString("</svg>")
	return b.String()
}

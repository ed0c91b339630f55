package report

import (
	"bufio"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// WriteCompareMarkdown writes a comparison of 2–6 runs as Markdown ready to
// paste: a key naming each run by letter with what differs between them,
// then one table per figure with each run's value per cell and the change
// of every run against run A in percent.
func WriteCompareMarkdown(w io.Writer, runs []*rundoc.Run) error {
	if err := checkRuns(runs, 2); err != nil {
		return err
	}
	b := bufio.NewWriter(w)
	fmt.Fprintf(b, "# RigBench comparison of %d runs\n\n", len(runs))
	diffs := chart.Differences(runs)
	for i, r := range runs {
		fmt.Fprintf(b, "- **%s**: %s", chart.Letter(i), mdText(chart.RunName(r)))
		if d := chart.Describe(r); d != "" {
			fmt.Fprintf(b, " (%s)", mdText(d))
		}
		if len(diffs[i]) > 0 {
			fmt.Fprintf(b, " — differs: %s", mdText(strings.Join(diffs[i], ", ")))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nChanges are against run A. Cells no run measured are left out.\n")
	for _, f := range rundoc.CompareFigures {
		t := Compare(runs, f)
		if len(t.Rows) == 0 {
			continue
		}
		fmt.Fprintf(b, "\n## %s %s\n\n", phaseTitle(f.Phase), f.Label)
		writeMDTable(b, runs, t)
	}
	if lines := QualityCompare(runs); len(lines) > 0 {
		b.WriteString("\n## Quality, paired item by item\n\n")
		for _, l := range lines {
			fmt.Fprintf(b, "- %s\n", mdText(l))
		}
	}
	if ctx, ok := chart.ParetoContext(runs); ok {
		fmt.Fprintf(b, "\n## Pareto frontier at context %s\n\nNothing beats these cells on both total and per-request tok/s "+
			"(the HTML and PNG/SVG exports draw the trade-off):\n\n", rundoc.ContextLabel(ctx))
		for _, f := range chart.FrontierText(chart.ParetoOf(runs, ctx), ctx) {
			fmt.Fprintf(b, "- %s\n", mdText(f))
		}
	}
	return b.Flush()
}

func phaseTitle(p rundoc.Phase) string {
	switch p {
	case rundoc.PhasePrefill:
		return "Prefill"
	case rundoc.PhaseBurst:
		return "Burst"
	}
	return "Decode"
}

func writeMDTable(b *bufio.Writer, runs []*rundoc.Run, t Table) {
	head := []string{"C"}
	align := []string{"---:"}
	// A figure of both phases (TTFT) is compared over the decode matrix
	// (Compare), whose rows need their N.
	decode := t.Figure.Phase != rundoc.PhasePrefill
	if decode {
		head, align = append(head, "N"), append(align, "---:")
	}
	for i := range runs {
		head, align = append(head, chart.Letter(i)), append(align, "---:")
		if i > 0 {
			head, align = append(head, chart.Letter(i)+" vs A"), append(align, "---:")
		}
	}
	fmt.Fprintf(b, "| %s |\n|%s|\n", strings.Join(head, " | "), strings.Join(align, "|"))
	for _, row := range t.Rows {
		cols := []string{rundoc.ContextLabel(row.Context)}
		if decode {
			cols = append(cols, strconv.Itoa(row.Concurrency))
		}
		for i, e := range row.Entries {
			cols = append(cols, mdText(t.EntryText(e)))
			if i > 0 {
				cols = append(cols, mdText(e.ChangeText()))
			}
		}
		fmt.Fprintf(b, "| %s |\n", strings.Join(cols, " | "))
	}
}

// mdText makes a string from a run safe inside a Markdown table or list:
// one line (a newline could end the table or start a block), with every
// character that starts Markdown or HTML syntax backslash-escaped: code
// spans, emphasis, links and images, raw HTML, table cells ('|'),
// headings, entities ('&') and strikethrough ('~').
func mdText(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	var sb strings.Builder
	for _, r := range s {
		if strings.ContainsRune("\\`*_[]<>|#!&~", r) {
			sb.WriteByte('\\')
		}
		sb.WriteRune(r)
	}
	return sb.String()
}

package export

import (
	"fmt"
	"io"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// writeRunMarkdown writes one run's decode matrix and prefill table as
// Markdown: the two tables people paste into a forum post. (The history
// issue's full Markdown report replaces this when engine/report has it.)
func writeRunMarkdown(w io.Writer, r *rundoc.Run) error {
	var b strings.Builder
	title := r.Name
	if title == "" {
		title = r.Server.Model
	}
	fmt.Fprintf(&b, "# RigBench run: %s\n\n", title)
	if r.Simulated {
		b.WriteString("**Simulated**: measured on RigBench's simulated server, not a real GPU.\n\n")
	}
	if r.Hardware != nil {
		fmt.Fprintf(&b, "- Hardware: %s\n", r.Hardware.Summary())
	}
	fmt.Fprintf(&b, "- Engine: %s %s\n- Model: %s\n", r.Server.Engine, r.Server.Version, r.Server.Model)
	if r.Launch != nil && r.Launch.ServeCommand != "" {
		fmt.Fprintf(&b, "- Launch: `%s`\n", r.Launch.ServeCommand)
	}
	ctxs, ns := r.DecodeAxes()
	if len(ctxs) > 0 && len(ns) > 0 {
		b.WriteString("\n## Decode: total tok/s (TTFT)\n\n| context |")
		for _, n := range ns {
			fmt.Fprintf(&b, " N=%d |", n)
		}
		b.WriteString("\n|---|" + strings.Repeat("---|", len(ns)) + "\n")
		for _, c := range ctxs {
			fmt.Fprintf(&b, "| %s |", rundoc.ContextLabel(c))
			for _, n := range ns {
				cell := r.Find(rundoc.PhaseDecode, c, n)
				switch {
				case cell == nil:
					b.WriteString(" |")
				case cell.Status.Ran():
					fmt.Fprintf(&b, " %.1f (%.0f ms) |", cell.TotalTokS, cell.TTFTMs)
				default:
					fmt.Fprintf(&b, " %s |", cell.Status)
				}
			}
			b.WriteString("\n")
		}
	}
	if pc := r.PrefillCells(); len(pc) > 0 {
		b.WriteString("\n## Prefill\n\n| context | prompt tok/s | TTFT ms | status |\n|---|---|---|---|\n")
		for _, c := range pc {
			fmt.Fprintf(&b, "| %s | %.0f | %.0f | %s |\n", rundoc.ContextLabel(c.Context), c.PromptTokS, c.TTFTMs, c.Status)
		}
	}
	_, err := io.WriteString(w, b.String())
	return err
}

package report

import (
	"bufio"
	"cmp"
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// WriteMarkdown writes one run as Markdown ready to paste into a forum
// post: what it is, the hardware, the engine and its launch, the plan, the
// decode matrix (rows = context, columns = concurrency, each cell
// "total tok/s · TTFT ms" or its status), the prefill table and every
// measurement. Figures use the CSV's decimals; a figure the run lacks is
// "n/a" (facts) or "—" (cells), never a made-up 0. Free text from the run
// is escaped so it cannot break the tables or inject HTML.
func WriteMarkdown(w io.Writer, r *rundoc.Run) error {
	b := bufio.NewWriter(w)
	mdHeader(b, r)
	mdHardware(b, r)
	mdEngine(b, r)
	mdPlan(b, &r.Plan)
	mdMatrix(b, r)
	mdPrefill(b, r)
	mdBurst(b, r)
	mdQuality(b, r)
	mdEnergy(b, r)
	mdDiagnosis(b, r)
	mdMeasurements(b, r)
	fmt.Fprintf(b, "\n---\nMeasured with RigBench (%s). Decode cells keep N requests in flight, open their window once every stream is producing (steady state) and count only tokens received inside it; prefill cells time one uncached prompt (prompt tok/s = prompt tokens / TTFT).\n", rundoc.Schema)
	return b.Flush()
}

func mdHeader(b *bufio.Writer, r *rundoc.Run) {
	title := r.Name
	if title == "" {
		title = strings.TrimSpace(r.Server.Model + " on " + r.Hardware.GPUNames())
		title = strings.TrimSuffix(strings.TrimPrefix(title, "on "), " on")
	}
	if title == "" {
		title = "benchmark run"
	}
	fmt.Fprintf(b, "# RigBench: %s\n\n", mdText(title))
	if r.Simulated {
		b.WriteString("> **Simulated server (demo mode):** these figures come from RigBench's simulator, not a real card.\n\n")
	}
	if r.Origin == rundoc.OriginImported {
		b.WriteString("> Imported from a measurements file; facts the file did not carry are shown as n/a.\n\n")
	}
	b.WriteString("| Run | |\n|---|---|\n")
	row := func(k, v string) { fmt.Fprintf(b, "| %s | %s |\n", k, v) }
	row("ID", mdCodeSpanCell(r.UUID))
	row("Status", string(r.Status))
	if len(r.Cells) > 0 {
		row("Headline", mdText(rundoc.HeadlineOf(r).Text()))
	}
	row("Started", mdTime(r.CreatedAt))
	if !r.FinishedAt.IsZero() {
		row("Finished", mdTime(r.FinishedAt))
	}
	if len(r.Tags) > 0 {
		tags := make([]string, len(r.Tags))
		for i, t := range r.Tags {
			tags[i] = mdText(t)
		}
		row("Tags", strings.Join(tags, ", "))
	}
	if r.Notes != "" {
		row("Notes", mdText(r.Notes))
	}
	if r.Error != "" {
		row("Error", mdText(r.Error))
	}
}

func mdHardware(b *bufio.Writer, r *rundoc.Run) {
	b.WriteString("\n## Hardware\n\n")
	m := describeMachine(r)
	if !m.Recorded {
		b.WriteString("Not recorded.\n")
		return
	}
	if !m.GPUs {
		fmt.Fprintf(b, "GPU: %s\n\n", mdText(m.GPU))
	} else {
		b.WriteString("| GPU | VRAM | Power limit | PCIe | Memory bandwidth | Compute capability |\n|---|---|---|---|---|---|\n")
		for _, g := range r.Hardware.GPUs {
			pcie := "n/a"
			if g.PCIeGen > 0 && g.PCIeWidth > 0 {
				pcie = fmt.Sprintf("Gen %d x%d", g.PCIeGen, g.PCIeWidth)
			}
			fmt.Fprintf(b, "| %d: %s | %s | %s | %s | %s | %s |\n", g.Index, mdText(g.Name), vram(g.VRAMTotalBytes),
				orNA(g.PowerLimitW, "%.0f W"), pcie, orNA(g.MemoryBandwidthGBs, "%.0f GB/s"), textOrNA(g.ComputeCapability))
		}
		b.WriteString("\n")
	}
	b.WriteString("| Machine | |\n|---|---|\n")
	fmt.Fprintf(b, "| NVIDIA driver | %s |\n", mdText(cmp.Or(m.Driver, hardware.NotReported)))
	fmt.Fprintf(b, "| CUDA (driver) | %s |\n", mdText(cmp.Or(m.CUDA, hardware.NotReported)))
	fmt.Fprintf(b, "| CPU | %s |\n", mdText(m.CPU))
	fmt.Fprintf(b, "| RAM | %s |\n", mdText(m.RAM))
	fmt.Fprintf(b, "| OS | %s |\n", mdText(m.OS))
}

func mdEngine(b *bufio.Writer, r *rundoc.Run) {
	s := r.Server
	b.WriteString("\n## Engine\n\n| Server | |\n|---|---|\n")
	fmt.Fprintf(b, "| Model | %s |\n", textOrNA(s.Model))
	fmt.Fprintf(b, "| Engine | %s |\n", textOrNA(strings.TrimSpace(s.Engine+" "+s.Version)))
	fmt.Fprintf(b, "| max_model_len | %s |\n", intOrNA(s.MaxModelLen))
	kv := rundoc.TokensText(s.KVCapacityTokens)
	if s.KVCapacityTokens > 0 && s.KVCapacitySource != "" {
		kv += " (from " + mdText(s.KVCapacitySource) + ")"
	}
	fmt.Fprintf(b, "| KV capacity | %s |\n", kv)
	if s.Personality != "" {
		fmt.Fprintf(b, "| Server kind | %s |\n", mdText(s.Personality))
	}
	if len(s.NotReported) > 0 {
		fmt.Fprintf(b, "| Not reported by this server | %s |\n", mdText(strings.Join(s.NotReported, ", ")))
	}
	b.WriteString("\n## Launch\n\n")
	l := r.Launch
	if l == nil {
		b.WriteString("Not launched by RigBench (an existing endpoint or an imported run).\n")
		return
	}
	if l.Image != "" {
		fmt.Fprintf(b, "Image: %s", mdCodeSpan(l.Image))
		if l.GPUs != "" {
			fmt.Fprintf(b, ", GPUs: %s", mdText(l.GPUs))
		}
		b.WriteString("\n\n")
	}
	var blocks []string
	for _, cmd := range []string{l.ServeCommand, l.DockerCommand} {
		if cmd != "" {
			// A fence longer than any backtick run inside keeps the block closed.
			fence := strings.Repeat("`", max(3, longestRun(cmd, '`')+1))
			blocks = append(blocks, fence+"sh\n"+cmd+"\n"+fence+"\n")
		}
	}
	if l.ServeCommand == "" && len(l.Args) > 0 {
		blocks = append(blocks, "Arguments: "+mdCodeSpan(strings.Join(l.Args, " "))+"\n")
	}
	if len(blocks) == 0 {
		blocks = append(blocks, "Launched by RigBench; the command was not recorded.\n")
	}
	b.WriteString(strings.Join(blocks, "\n"))
}

func mdPlan(b *bufio.Writer, p *rundoc.Plan) {
	b.WriteString("\n## Plan\n\n")
	fmt.Fprintf(b, "- Decode contexts: %s\n", labels(p.Contexts))
	fmt.Fprintf(b, "- Concurrency: %s\n", ints(p.Concurrency))
	fmt.Fprintf(b, "- Prefill contexts: %s\n", labels(p.PrefillContexts))
	fmt.Fprintf(b, "- Window per decode cell: %s\n", cmp.Or(p.WindowLabel(), "n/a"))
	fmt.Fprintf(b, "- Windows open: %s\n", p.OpeningLabel())
	fmt.Fprintf(b, "- Prompts: %s\n", p.PromptsLabel())
	fmt.Fprintf(b, "- Max output per request: %s\n", intOrNA(p.MaxOutput))
}

func mdMatrix(b *bufio.Writer, r *rundoc.Run) {
	contexts, conc := r.DecodeAxes()
	// The window goes in the heading: the matrix is what gets pasted on
	// its own, and a 10 s run must not read as a standard one.
	window := ""
	if l := r.Plan.WindowLabel(); l != "" {
		window = " (" + l + " windows)"
	}
	fmt.Fprintf(b, "\n## Decode: %s · %s%s\n\n", rundoc.FigTotalTokS.Label, rundoc.FigTTFT.Label, window)
	if len(contexts) == 0 || len(conc) == 0 {
		b.WriteString("No decode cells.\n")
		return
	}
	b.WriteString("| context \\ N |")
	for _, n := range conc {
		fmt.Fprintf(b, " %d |", n)
	}
	b.WriteString("\n|---|" + strings.Repeat("---|", len(conc)) + "\n")
	queued := false
	index := r.Index()
	for _, ctx := range contexts {
		fmt.Fprintf(b, "| %s |", rundoc.ContextLabel(ctx))
		for _, n := range conc {
			c := index.Find(rundoc.PhaseDecode, ctx, n)
			queued = queued || (c != nil && c.Status == rundoc.StatusQueued)
			text := rundoc.MatrixText(c)
			if c != nil && !c.Status.Ran() {
				text = mdText(text) // a status, with an Unreliable cell's reason
			}
			fmt.Fprintf(b, " %s |", dashIfEmpty(text))
		}
		b.WriteString("\n")
	}
	if queued {
		b.WriteString("\n\\" + rundoc.QueuedNote + "\n")
	}
}

func mdPrefill(b *bufio.Writer, r *rundoc.Run) {
	cells := r.PrefillCells()
	b.WriteString("\n## Prefill: prompt tok/s\n\n")
	if len(cells) == 0 {
		b.WriteString("No prefill cells.\n")
		return
	}
	fmt.Fprintf(b, "| context | %s | %s | status |\n|---|---|---|---|\n", rundoc.FigPromptTokS.Label, rundoc.FigTTFT.Label)
	for i := range cells {
		c := &cells[i]
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", rundoc.ContextLabel(c.Context), dashIfEmpty(rundoc.FigPromptTokS.TextCI(c)),
			dashIfEmpty(rundoc.FigTTFT.Text(c)), mdText(rundoc.StatusText(c)))
	}
}

// mdMeasurements is the table of all cells: the registry's measurement
// figures (optional ones only when some cell has them, so an imported
// reference run stays as narrow as its CSV), then the reason of a failure.
func mdMeasurements(b *bufio.Writer, r *rundoc.Run) {
	cells := SustainedCells(r)
	b.WriteString("\n## All measurements\n\n")
	if len(cells) == 0 {
		b.WriteString("No cells.\n")
		return
	}
	figs := rundoc.Used(rundoc.MeasurementFigures, cells)
	reasons := slices.ContainsFunc(cells, func(c rundoc.Cell) bool { return c.Reason != "" })
	b.WriteString("| phase | context | N | status |")
	for _, f := range figs {
		fmt.Fprintf(b, " %s |", f.Label)
	}
	cols := 4 + len(figs)
	if reasons {
		b.WriteString(" reason |")
		cols++
	}
	b.WriteString("\n|" + strings.Repeat("---|", cols) + "\n")
	for i := range cells {
		c := &cells[i]
		fmt.Fprintf(b, "| %s | %s | %d | %s |", c.Phase, rundoc.ContextLabel(c.Context), c.Concurrency, c.Status)
		for _, f := range figs {
			fmt.Fprintf(b, " %s |", dashIfEmpty(f.TextCI(c)))
		}
		if reasons {
			fmt.Fprintf(b, " %s |", dashIfEmpty(mdText(c.Reason)))
		}
		b.WriteString("\n")
	}
}

func mdTime(t time.Time) string {
	if t.IsZero() {
		return "n/a"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// vram is a card's memory (hardware.GiB), notAvailable when it reported
// none.
func vram(n uint64) string {
	if n == 0 {
		return notAvailable
	}
	return hardware.GiB(n)
}

func orNA(v float64, format string) string {
	if v == 0 {
		return "n/a"
	}
	return fmt.Sprintf(format, v)
}

func intOrNA(n int) string {
	if n == 0 {
		return "n/a"
	}
	return strconv.Itoa(n)
}

func textOrNA(s string) string {
	if strings.TrimSpace(s) == "" {
		return "n/a"
	}
	return mdText(s)
}

func dashIfEmpty(s string) string {
	if s == "" {
		return "—"
	}
	return s
}

func labels(xs []int) string {
	if len(xs) == 0 {
		return "n/a"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = rundoc.ContextLabel(x)
	}
	return strings.Join(out, ", ")
}

func ints(xs []int) string {
	if len(xs) == 0 {
		return "n/a"
	}
	out := make([]string, len(xs))
	for i, x := range xs {
		out[i] = strconv.Itoa(x)
	}
	return strings.Join(out, ", ")
}

// mdCodeSpan is s as an inline code span that nothing in s can end: on one
// line (a blank line would end the paragraph, and the span with it, so
// what follows would be read as Markdown or raw HTML), fenced by more
// backticks than the longest run inside, and padded with a space when s
// starts or ends with a backtick (CommonMark strips one space each side).
func mdCodeSpan(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if s == "" {
		return "n/a"
	}
	fence := strings.Repeat("`", longestRun(s, '`')+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}

// mdCodeSpanCell is mdCodeSpan inside a table cell: GitHub's tables split cells at
// a '|' even inside a code span, unless it is escaped.
func mdCodeSpanCell(s string) string {
	return strings.ReplaceAll(mdCodeSpan(s), "|", `\|`)
}

func longestRun(s string, c byte) int {
	best, cur := 0, 0
	for i := 0; i < len(s); i++ {
		if s[i] == c {
			cur++
			best = max(best, cur)
		} else {
			cur = 0
		}
	}
	return best
}

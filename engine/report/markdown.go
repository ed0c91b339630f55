package report

import (
	"bufio"
	"fmt"
	"io"
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
	mdMeasurements(b, r)
	fmt.Fprintf(b, "\n---\nMeasured with RigBench (%s). Decode cells keep N requests in flight for a fixed window and count only tokens received inside it; prefill cells time one uncached prompt (prompt tok/s = prompt tokens / TTFT).\n", rundoc.Schema)
	return b.Flush()
}

func mdHeader(b *bufio.Writer, r *rundoc.Run) {
	title := r.Name
	if title == "" {
		title = strings.TrimSpace(r.Server.Model + " on " + gpuNames(r.Hardware))
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
	row("ID", "`"+r.UUID+"`")
	row("Status", string(r.Status))
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
			fmt.Fprintf(b, "| %d: %s | %s | %s | %s | %s | %s |\n", g.Index, mdText(g.Name), gib(g.VRAMTotalBytes),
				orNA(g.PowerLimitW, "%.0f W"), pcie, orNA(g.MemoryBandwidthGBs, "%.0f GB/s"), textOrNA(g.ComputeCapability))
		}
		b.WriteString("\n")
	}
	b.WriteString("| Machine | |\n|---|---|\n")
	fmt.Fprintf(b, "| NVIDIA driver | %s |\n", textOrNA(m.Driver))
	fmt.Fprintf(b, "| CUDA (driver) | %s |\n", textOrNA(m.CUDA))
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
	kv := intOrNA(s.KVCapacityTokens)
	if s.KVCapacityTokens > 0 && s.KVCapacitySource != "" {
		kv += " (from " + mdText(s.KVCapacitySource) + ")"
	}
	fmt.Fprintf(b, "| KV capacity (tokens) | %s |\n", kv)
	b.WriteString("\n## Launch\n\n")
	l := r.Launch
	if l == nil {
		b.WriteString("Not launched by RigBench (an existing endpoint or an imported run).\n")
		return
	}
	if l.Image != "" {
		fmt.Fprintf(b, "Image: `%s`", strings.ReplaceAll(l.Image, "`", "'"))
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
		blocks = append(blocks, "Arguments: `"+strings.ReplaceAll(strings.Join(l.Args, " "), "`", "'")+"`\n")
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
	fmt.Fprintf(b, "- Window per decode cell: %s\n", orNA(p.DurationS, "%g s"))
	fmt.Fprintf(b, "- Max output per request: %s\n", intOrNA(p.MaxOutput))
}

func mdMatrix(b *bufio.Writer, r *rundoc.Run) {
	contexts, conc := r.DecodeAxes()
	b.WriteString("\n## Decode: total tok/s · TTFT ms\n\n")
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
	for _, ctx := range contexts {
		fmt.Fprintf(b, "| %s |", rundoc.ContextLabel(ctx))
		for _, n := range conc {
			c := r.Find(rundoc.PhaseDecode, ctx, n)
			text := "—"
			switch {
			case c == nil:
			case c.Status.Ran() && c.TotalTokS > 0:
				text = fixed(c.TotalTokS, 1) + " · " + dashIfEmpty(fixed(c.TTFTMs, 0))
				if c.Status == rundoc.StatusQueued {
					text += " (queued)"
					queued = true
				}
			default:
				text = string(c.Status)
			}
			fmt.Fprintf(b, " %s |", text)
		}
		b.WriteString("\n")
	}
	if queued {
		b.WriteString("\n(queued) = Requests queued: the server did not hold all N requests at once.\n")
	}
}

func mdPrefill(b *bufio.Writer, r *rundoc.Run) {
	cells := r.PrefillCells()
	b.WriteString("\n## Prefill: prompt tok/s\n\n")
	if len(cells) == 0 {
		b.WriteString("No prefill cells.\n")
		return
	}
	b.WriteString("| context | prompt tok/s | TTFT ms | status |\n|---|---|---|---|\n")
	for _, c := range cells {
		fmt.Fprintf(b, "| %s | %s | %s | %s |\n", rundoc.ContextLabel(c.Context), dashIfEmpty(fixed(c.PromptTokS, 1)),
			dashIfEmpty(fixed(c.TTFTMs, 0)), c.Status)
	}
}

// mdMeasurements is the table of all cells. Optional columns (tail
// latencies, energy, the reason of a failure) appear only when some cell
// has them, so an imported reference run stays as narrow as its CSV.
func mdMeasurements(b *bufio.Writer, r *rundoc.Run) {
	cells := SortedCells(r)
	b.WriteString("\n## All measurements\n\n")
	if len(cells) == 0 {
		b.WriteString("No cells.\n")
		return
	}
	type column struct {
		head string
		val  func(c *rundoc.Cell) string
	}
	cols := []column{
		{"phase", func(c *rundoc.Cell) string { return string(c.Phase) }},
		{"context", func(c *rundoc.Cell) string { return rundoc.ContextLabel(c.Context) }},
		{"N", func(c *rundoc.Cell) string { return strconv.Itoa(c.Concurrency) }},
		{"status", func(c *rundoc.Cell) string { return string(c.Status) }},
		{"tok/s", func(c *rundoc.Cell) string { return csvRow(*c)[5] }},
		{"per-request tok/s", func(c *rundoc.Cell) string { return fixed(c.PerRequestTokS, 1) }},
		{"TTFT ms", func(c *rundoc.Cell) string { return fixed(c.TTFTMs, 0) }},
		{"TBT ms", func(c *rundoc.Cell) string { return fixed(c.TBTMs, 1) }},
	}
	optional := []column{
		{"TTFT p90 ms", func(c *rundoc.Cell) string { return fixed(c.TTFTP90Ms, 0) }},
		{"TTFT p99 ms", func(c *rundoc.Cell) string { return fixed(c.TTFTP99Ms, 0) }},
		{"TBT p90 ms", func(c *rundoc.Cell) string { return fixed(c.TBTP90Ms, 1) }},
		{"TBT p99 ms", func(c *rundoc.Cell) string { return fixed(c.TBTP99Ms, 1) }},
	}
	tail := []column{
		{"avg active", func(c *rundoc.Cell) string { return fixed(c.AvgActive, 2) }},
		{"completed", func(c *rundoc.Cell) string { return count(c.CompletedRequests) }},
		{"output tokens", func(c *rundoc.Cell) string { return csvRow(*c)[11] }},
		{"window s", func(c *rundoc.Cell) string { return fixed(c.MeasuredS, 1) }},
	}
	extra := []column{
		{"KV usage max", func(c *rundoc.Cell) string {
			if c.ServerStats == nil {
				return ""
			}
			return fixed(c.ServerStats.KVUsageMax*100, 0) + "%"
		}},
		{"power W", func(c *rundoc.Cell) string {
			if c.GPUStats == nil {
				return ""
			}
			return fixed(c.GPUStats.PowerMeanW, 0)
		}},
		{"J/token", func(c *rundoc.Cell) string { return fixed(c.EnergyJPerToken, 2) }},
		{"reason", func(c *rundoc.Cell) string { return mdText(c.Reason) }},
	}
	used := func(col column) bool {
		for i := range cells {
			if v := col.val(&cells[i]); v != "" && v != "%" {
				return true
			}
		}
		return false
	}
	for _, col := range optional {
		if used(col) {
			cols = append(cols, col)
		}
	}
	cols = append(cols, tail...)
	for _, col := range extra {
		if used(col) {
			cols = append(cols, col)
		}
	}
	b.WriteString("|")
	for _, col := range cols {
		fmt.Fprintf(b, " %s |", col.head)
	}
	b.WriteString("\n|" + strings.Repeat("---|", len(cols)) + "\n")
	for i := range cells {
		b.WriteString("|")
		for _, col := range cols {
			fmt.Fprintf(b, " %s |", dashIfEmpty(col.val(&cells[i])))
		}
		b.WriteString("\n")
	}
}

func gpuNames(hw *hardware.Snapshot) string {
	if hw == nil {
		return ""
	}
	names := make([]string, len(hw.GPUs))
	for i, g := range hw.GPUs {
		names[i] = g.Name
	}
	return strings.Join(names, " + ")
}

func mdTime(t time.Time) string {
	if t.IsZero() {
		return "n/a"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

// gib writes a byte count in GiB, as NVIDIA and the OS report memory.
func gib(n uint64) string {
	if n == 0 {
		return notAvailable
	}
	return fmt.Sprintf("%.1f GiB", float64(n)/(1<<30))
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

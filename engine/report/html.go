package report

import (
	"bytes"
	_ "embed"
	"fmt"
	"html/template"
	"io"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// HTMLOptions tune the HTML report.
type HTMLOptions struct {
	// Title overrides the page title.
	Title string
	// Generated, when set, is printed as the report's creation time. Left
	// zero the report depends only on the runs (golden tests).
	Generated time.Time
}

//go:embed html.tmpl
var htmlTemplate string

var reportTemplate = template.Must(template.New("report").Funcs(template.FuncMap{
	"text":   figureText,
	"ctx":    rundoc.ContextLabel,
	"change": FormatChange,
	"letter": chart.Letter,
	"date":   formatDate,
	"int":    intOrDash,
	"tokens": rundoc.TokensText,
	// headline is the run's first figures, as the app's card and the
	// CLI's show print them.
	"headline": func(r *rundoc.Run) string { return rundoc.HeadlineOf(r).Text() },
	"pct":      fractionPct,
	"join":     strings.Join,
	"phase":    phaseTitle,
}).Parse(htmlTemplate))

// WriteHTML writes one self-contained HTML file: a report of one run, or a
// comparison of 2–6. Charts are inline SVG and styles inline CSS; there is
// no script and nothing is fetched, so the file can be mailed or opened
// offline, and it reflows on a phone. Every string that comes from a run
// is escaped by html/template.
func WriteHTML(w io.Writer, runs []*rundoc.Run, opts HTMLOptions) error {
	if err := checkRuns(runs, 1); err != nil {
		return err
	}
	page, err := buildPage(runs, opts)
	if err != nil {
		return err
	}
	var buf bytes.Buffer
	if err := reportTemplate.Execute(&buf, page); err != nil {
		return fmt.Errorf("render the HTML report: %w", err)
	}
	_, err = buf.WriteTo(w)
	return err
}

// page is what the template reads.
type page struct {
	Title     string
	Generated string
	Compare   bool
	Runs      []pageRun
	Charts    []pageChart
	Changes   []Table
	Method    template.HTML
	Letters   []string
	// QueuedNote explains the matrix's star.
	QueuedNote string
	// Diagnosed is true when some run has a bottleneck or advice.
	Diagnosed bool
	// HasEnergy is true when some run has energy lines.
	HasEnergy bool
	// HasBurst is true when some run has burst cells; BurstHead is their
	// table's header (rundoc.BurstHeader).
	HasBurst  bool
	BurstHead []string
	// HasQuality is true when some run has a quality check; QualityPaired
	// pairs each run's probe with run A's (QualityCompare).
	HasQuality    bool
	QualityPaired []string
	// TTFT and PromptTokS head the prefill table.
	TTFT, PromptTokS rundoc.Figure
}

type pageRun struct {
	Letter, Label string
	Run           *rundoc.Run
	Model, Engine string
	Machine       machineText
	Matrix        pageMatrix
	Prefill       []rundoc.Cell
	// Burst are the run's burst cells, each a row of rundoc.BurstRow.
	Burst [][]string
	Cells []rundoc.Cell
	// Figures are the measurement columns this run's cells have.
	Figures []rundoc.Figure
	// Bottlenecks and Advice are the run's diagnosis (diagnosis.go).
	Bottlenecks, Advice []string
	// Energy is where its energy figures come from and each GPU's share
	// (rundoc.EnergyLines).
	Energy []string
	// Quality is its quality check (QualityRows).
	Quality [][2]string
}

type pageChart struct {
	Title string
	SVG   template.HTML
}

type pageMatrix struct {
	Concurrency []int
	Rows        []pageMatrixRow
}

type pageMatrixRow struct {
	Context int
	Cells   []pageMatrixCell
}

type pageMatrixCell struct {
	Value, Sub string
	Style      template.CSS
	Class      string
}

func buildPage(runs []*rundoc.Run, opts HTMLOptions) (*page, error) {
	p := &page{Title: opts.Title, Compare: len(runs) > 1, Method: methodHTML(), TTFT: rundoc.FigTTFT, PromptTokS: rundoc.FigPromptTokS,
		QueuedNote: rundoc.QueuedNote, BurstHead: rundoc.BurstHeader()}
	if p.Title == "" {
		p.Title = "RigBench report: " + chart.RunName(runs[0])
		if p.Compare {
			p.Title = fmt.Sprintf("RigBench comparison of %d runs", len(runs))
		}
	}
	if !opts.Generated.IsZero() {
		p.Generated = formatDate(opts.Generated)
	}
	labels := chart.RunLabels(runs)
	max := maxDecode(runs)
	contexts, conc := unionAxes(runs)
	for i, r := range runs {
		p.Letters = append(p.Letters, chart.Letter(i))
		p.Runs = append(p.Runs, pageRun{
			Letter: chart.Letter(i), Label: strings.TrimPrefix(labels[i], chart.Letter(i)+": "), Run: r,
			Model: chart.Model(r), Engine: chart.Engine(r), Machine: describeMachine(r),
			Matrix:  matrixOf(r, contexts, conc, max),
			Prefill: r.PrefillCells(),
			Burst:   burstRows(r),
			Cells:   SustainedCells(r),
			Figures: rundoc.Used(rundoc.MeasurementFigures, r.Cells),
		})
		pr := &p.Runs[len(p.Runs)-1]
		pr.Bottlenecks, pr.Advice = diagnosisLines(r)
		pr.Energy = rundoc.EnergyLines(r)
		p.HasEnergy = p.HasEnergy || len(pr.Energy) > 0
		p.HasBurst = p.HasBurst || len(pr.Burst) > 0
		pr.Quality = QualityRows(r)
		p.HasQuality = p.HasQuality || len(pr.Quality) > 0
		p.Diagnosed = p.Diagnosed || len(pr.Bottlenecks) > 0 || len(pr.Advice) > 0
	}
	p.QualityPaired = QualityCompare(runs)
	for _, k := range chart.KindsFor(len(runs)) {
		if k == chart.Energy && !hasEnergy(runs) {
			continue // the issue: energy only where telemetry exists
		}
		svg, err := inlineSVG(k, runs)
		if err != nil {
			return nil, err
		}
		p.Charts = append(p.Charts, pageChart{Title: chartTitles[k], SVG: svg})
	}
	if p.Compare {
		for _, f := range rundoc.CompareFigures {
			if t := Compare(runs, f); len(t.Rows) > 0 {
				p.Changes = append(p.Changes, t)
			}
		}
	}
	return p, nil
}

var chartTitles = map[chart.Kind]string{
	chart.Matrix:      "Decode matrix",
	chart.DecodeTotal: "Decode throughput",
	chart.PerRequest:  "Per-request speed",
	chart.TTFT:        "Time to first token",
	chart.Prefill:     "Prefill speed",
	chart.Energy:      "Energy per token",
	chart.Pareto:      "Trade-off: total against per-request tok/s",
}

func hasEnergy(runs []*rundoc.Run) bool {
	for _, r := range runs {
		for _, c := range r.Cells {
			if c.Status.Ran() && c.EnergyJPerToken > 0 {
				return true
			}
		}
	}
	return false
}

// inlineSVG renders a chart for the page. The SVG's text is escaped by
// vgsvg (html.EscapeString), so it is safe to insert as markup.
func inlineSVG(k chart.Kind, runs []*rundoc.Run) (template.HTML, error) {
	var buf bytes.Buffer
	if err := chart.Render(&buf, k, runs, chart.Options{Format: chart.SVG, Width: 800, Height: 480}); err != nil {
		return "", err
	}
	return template.HTML(chart.Inline(buf.Bytes(), chartTitles[k])), nil // #nosec: generated by chart, text escaped
}

func maxDecode(runs []*rundoc.Run) float64 {
	max := 0.0
	for _, r := range runs {
		for i := range r.Cells {
			if v, ok := figureOf(rundoc.FigTotalTokS, &r.Cells[i]); ok && r.Cells[i].Phase == rundoc.PhaseDecode {
				max = math.Max(max, v)
			}
		}
	}
	return max
}

func unionAxes(runs []*rundoc.Run) (contexts, conc []int) {
	for _, r := range runs {
		cs, ns := r.DecodeAxes()
		contexts, conc = append(contexts, cs...), append(conc, ns...)
	}
	return rundoc.SortedUnique(contexts), rundoc.SortedUnique(conc)
}

// matrixOf lays out a run's decode matrix for the page, coloured on the
// same viridis scale as the heatmap chart.
func matrixOf(r *rundoc.Run, contexts, conc []int, max float64) pageMatrix {
	m := pageMatrix{Concurrency: conc}
	index := r.Index()
	for _, ctx := range contexts {
		row := pageMatrixRow{Context: ctx}
		for _, n := range conc {
			c := index.Find(rundoc.PhaseDecode, ctx, n)
			var cell pageMatrixCell
			v, ok := figureOf(rundoc.FigTotalTokS, c)
			switch {
			case c == nil:
				cell = pageMatrixCell{Value: "", Class: "none"}
			case !ok:
				cell = pageMatrixCell{Value: string(c.Status), Sub: rundoc.UnreliableHead(c), Class: "status"}
			default:
				t := v / max
				bg, fg := chart.Ramp(t), chart.RampText(t)
				fr, fg2, fb, _ := fg.RGBA()
				rate, ttft := rundoc.MatrixLines(c)
				cell = pageMatrixCell{
					Value: rate, Sub: ttft,
					Style: template.CSS(fmt.Sprintf("background:#%02x%02x%02x;color:#%02x%02x%02x", bg.R, bg.G, bg.B, fr>>8, fg2>>8, fb>>8)),
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		m.Rows = append(m.Rows, row)
	}
	return m
}

// figureText is figure f of cell c for a report table, with its 95%
// half-width where it has one ("890.6 ± 4.2"), "—" when c lacks it.
func figureText(f rundoc.Figure, c rundoc.Cell) string {
	if t := f.TextCI(&c); t != "" {
		return t
	}
	return "—"
}

func intOrDash(n int) string {
	if n == 0 {
		return "—"
	}
	return strconv.Itoa(n)
}

func fractionPct(f float64) string {
	return strconv.FormatFloat(f*100, 'f', 0, 64) + "%"
}

func formatDate(t time.Time) string {
	if t.IsZero() {
		return "unknown"
	}
	return t.UTC().Format("2006-01-02 15:04 UTC")
}

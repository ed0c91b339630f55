package results

import (
	"fmt"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/ui/chartview"
	"github.com/rigbench/rigbench/ui/matrix"
)

// View is the Results view. Its methods must run on the Fyne goroutine.
type View struct {
	run      *bench.Run
	title    *widget.Label
	summary  *widget.Label
	badge    *widget.Label
	mx       *matrix.Matrix
	prefill  *widget.Table
	pcells   []bench.Cell
	all      *table
	charts   *chartview.Gallery
	tabs     *container.AppTabs
	content  fyne.CanvasObject
	Exporter func(*bench.Run)
}

// New returns an empty Results view.
func New() *View {
	v := &View{mx: matrix.New(), all: newTable()}
	v.title = widget.NewLabelWithStyle("No run selected: finish a run, or pick one in History.", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.summary = widget.NewLabel("")
	v.summary.Wrapping = fyne.TextWrapWord
	v.badge = widget.NewLabel("SIMULATED: measured on RigBench's simulated server, not a real GPU.")
	v.badge.Importance = widget.WarningImportance
	v.badge.Hide()
	v.prefill = widget.NewTable(
		func() (int, int) { return len(v.pcells), 4 },
		func() fyne.CanvasObject { return widget.NewLabel("Exceeds model length") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(prefillText(v.pcells[id.Row], id.Col))
		})
	v.prefill.ShowHeaderRow = true
	v.prefill.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText([]string{"Context", "Prompt tok/s", "TTFT ms", "Status"}[id.Col])
		}
	}
	for i, w := range []float32{90, 130, 110, 200} {
		v.prefill.SetColumnWidth(i, w)
	}
	v.charts = chartview.NewGallery(chart.Kinds()...)
	v.tabs = container.NewAppTabs(
		container.NewTabItem("Decode matrix", container.NewScroll(v.mx)),
		container.NewTabItem("Prefill", v.prefill),
		container.NewTabItem("All measurements", v.all.t),
		container.NewTabItem("Charts", container.NewVScroll(v.charts.Content())),
	)
	v.content = container.NewBorder(container.NewVBox(v.title, v.badge, v.summary), nil, nil, nil, v.tabs)
	return v
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Run is the run shown (nil when none).
func (v *View) Run() *bench.Run { return v.run }

// Matrix is the decode matrix of the run shown.
func (v *View) Matrix() *matrix.Matrix { return v.mx }

// Tabs are the view's inner tabs (matrix, prefill, all, charts).
func (v *View) Tabs() *container.AppTabs { return v.tabs }

// Rows returns the measurements table as text, in its current order.
func (v *View) Rows() [][]string {
	out := make([][]string, len(v.all.cells))
	for i, c := range v.all.cells {
		for _, col := range columns {
			out[i] = append(out[i], col.text(c))
		}
	}
	return out
}

// SortBy sorts the measurements table as a tap on header i would.
func (v *View) SortBy(i int) { v.all.SortBy(i) }

// SetRun shows r; chartsDone (may be nil) runs when the charts are drawn.
func (v *View) SetRun(r *bench.Run, chartsDone func()) {
	v.run = r
	if r == nil {
		v.title.SetText("No run selected.")
		v.summary.SetText("")
		v.badge.Hide()
		v.mx.SetRun(nil)
		v.pcells = nil
		v.prefill.Refresh()
		v.all.set(nil)
		v.charts.Set(nil, chartsDone)
		return
	}
	v.title.SetText(Title(r))
	v.summary.SetText(Summary(r))
	if r.Simulated {
		v.badge.Show()
	} else {
		v.badge.Hide()
	}
	v.mx.SetPendingText("")
	v.mx.SetRun(r)
	v.pcells = r.PrefillCells()
	v.prefill.Refresh()
	v.all.set(r.Cells)
	v.charts.Set([]*bench.Run{r}, chartsDone)
}

// ChartsRendered is how many charts hold a drawing.
func (v *View) ChartsRendered() int { return v.charts.Rendered() }

func prefillText(c bench.Cell, col int) string {
	switch col {
	case 0:
		return bench.ContextLabel(c.Context)
	case 1:
		return num(c.PromptTokS, 0)
	case 2:
		return num(c.TTFTMs, 0)
	default:
		return string(c.Status)
	}
}

// Title names a run in one line, with "(simulated)" for demo runs.
func Title(r *bench.Run) string {
	name := r.Name
	if name == "" {
		name = r.Server.Model
	}
	if name == "" {
		name = "Run " + short(r.UUID)
	}
	if r.Simulated {
		name += " (simulated)"
	}
	return name
}

// Summary is the run's GPU, engine, date and status in one line.
func Summary(r *bench.Run) string {
	var parts []string
	if r.Hardware != nil {
		parts = append(parts, r.Hardware.Summary())
	}
	eng := strings.TrimSpace(r.Server.Engine + " " + r.Server.Version)
	if eng != "" {
		parts = append(parts, eng)
	}
	if r.Server.Model != "" {
		parts = append(parts, r.Server.Model)
	}
	if r.Server.KVCapacityTokens > 0 {
		parts = append(parts, fmt.Sprintf("KV %d tokens", r.Server.KVCapacityTokens))
	}
	if !r.CreatedAt.IsZero() {
		parts = append(parts, r.CreatedAt.Local().Format("2006-01-02 15:04"))
	}
	parts = append(parts, string(r.Status))
	if r.Origin == bench.OriginImported {
		parts = append(parts, "imported")
	}
	return strings.Join(parts, " · ")
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

package results

import (
	"fmt"
	"slices"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/bench"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/report/chart"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/ui/chartview"
	"github.com/rigbench/rigbench/ui/hwview"
	"github.com/rigbench/rigbench/ui/matrix"
	"github.com/rigbench/rigbench/ui/predicted"
)

// View is the Results view. Its methods must run on the Fyne goroutine.
type View struct {
	run *rundoc.Run
	// pred is where the cell details' predictions learn and look models
	// up (nil: no predicted figure); predLive makes them.
	pred     *predicted.Source
	predLive predicted.Live
	title    *widget.Label
	summary  *widget.Label
	// headline is the card of the run's few first figures
	// (rundoc.HeadlineOf), above the matrix.
	headline     *widget.Label
	headlineCard *widget.Card
	badge        *widget.Label
	failure      *widget.Label
	server       *widget.Label
	empty        *widget.Label
	mx           *matrix.Matrix
	prefill      *widget.Table
	pcells       []rundoc.Cell
	burst        *widget.Table
	bcells       []rundoc.Cell
	quality      *qualityTab
	all          *table
	charts       *chartview.Gallery
	tabs         *container.AppTabs
	content      fyne.CanvasObject
	Exporter     func(*rundoc.Run)
	// OnResume, when set, continues the run shown: its Failed, Cancelled
	// and missing cells are measured into it (bench.Remaining), the rest
	// stay as they were. The Resume button shows only with it.
	OnResume  func(*rundoc.Run)
	resumeBtn *widget.Button
	// OnTune, when set, opens the Tune view with a sweep of the advice's
	// flags (tune.FromAdvice); the Diagnosis tab's "Tune this" shows only
	// with it.
	OnTune    func(tune.Spec)
	diagnosis *diagnosisPane
	// gone says the run shown was deleted from History (MarkDeleted).
	gone *widget.Label
}

// deletedText is what Results says over a run deleted in History: it stays
// on screen (it can still be exported) but is no longer kept.
const deletedText = "This run was deleted from History: it is shown until you open another, and is no longer kept. Export it to keep a copy."

// New returns an empty Results view.
func New() *View {
	v := &View{mx: matrix.New(), all: newTable()}
	v.mx.OnTapped = v.showCell
	v.diagnosis = newDiagnosisPane(func() func(tune.Spec) { return v.OnTune })
	v.title = widget.NewLabelWithStyle("No run selected: finish a run, or pick one in History.", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	// Wrapped: a run's name may be 200 bytes, and a label as wide as its
	// text made the window grow past the screen to show it (issue 24).
	v.title.Wrapping = fyne.TextWrapWord
	v.summary = widget.NewLabel("")
	v.summary.Wrapping = fyne.TextWrapWord
	v.headline = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.headline.Wrapping = fyne.TextWrapWord
	v.headlineCard = widget.NewCard("", "", v.headline)
	v.headlineCard.Hide()
	v.badge = widget.NewLabel("SIMULATED: measured on RigBench's simulated server, not a real GPU.")
	v.badge.Importance = widget.WarningImportance
	v.badge.Hide()
	v.failure = widget.NewLabel("")
	v.failure.Importance = widget.DangerImportance
	v.failure.Wrapping = fyne.TextWrapWord
	v.failure.Hide()
	v.gone = widget.NewLabel(deletedText)
	v.gone.Importance = widget.WarningImportance
	v.gone.Wrapping = fyne.TextWrapWord
	v.gone.Hide()
	v.server = widget.NewLabel("")
	v.server.Wrapping = fyne.TextWrapWord
	v.server.Hide()
	v.resumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaReplayIcon(), func() {
		if v.OnResume != nil && v.run != nil {
			v.OnResume(v.run)
		}
	})
	v.resumeBtn.Hide()
	v.empty = widget.NewLabel("Nothing was measured, so there is no matrix, table or chart for this run.")
	v.empty.Wrapping = fyne.TextWrapWord
	v.empty.Hide()
	v.prefill = widget.NewTable(
		func() (int, int) { return len(v.pcells), 4 },
		func() fyne.CanvasObject { return widget.NewLabel("Exceeds model length") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(prefillText(v.pcells[id.Row], id.Col))
		})
	v.prefill.ShowHeaderRow = true
	v.prefill.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText([]string{"Context", rundoc.FigPromptTokS.Title, rundoc.FigTTFT.Title, "Status"}[id.Col])
		}
	}
	for i, w := range []float32{90, 130, 110, 200} {
		v.prefill.SetColumnWidth(i, w)
	}
	v.burst = newBurstTable(&v.bcells)
	v.quality = newQualityTab()
	v.charts = chartview.NewGallery(chart.Kinds()...)
	v.tabs = container.NewAppTabs(
		container.NewTabItem("Decode matrix", container.NewScroll(v.mx)),
		container.NewTabItem("Prefill", v.prefill),
		container.NewTabItem("All measurements", container.NewBorder(nil, allNote(), nil, nil, v.all.t)),
		container.NewTabItem("Charts", v.charts.Content()),
		container.NewTabItem("Diagnosis", v.diagnosis.content),
		container.NewTabItem("Burst", v.burst),
		container.NewTabItem("Quality", v.quality.content),
	)
	v.content = container.NewBorder(container.NewVBox(v.title, v.gone, v.badge, v.summary, v.headlineCard, v.failure, v.server, container.NewHBox(v.resumeBtn)), nil, nil, nil,
		container.NewStack(v.tabs, container.NewVBox(v.empty)))
	return v
}

// Content is the view's root object.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Run is the run shown (nil when none).
func (v *View) Run() *rundoc.Run { return v.run }

// MarkDeleted tells the view that runs were deleted from History: when the
// run shown is one of them, it says so above the run (until another run is
// shown), instead of showing it as if it were still kept.
func (v *View) MarkDeleted(uuids []string) {
	if v.run != nil && slices.Contains(uuids, v.run.UUID) {
		v.gone.Show()
	}
}

// DeletedNote is the line saying the run shown was deleted from History
// ("" when it is not shown).
func (v *View) DeletedNote() string {
	if !v.gone.Visible() {
		return ""
	}
	return v.gone.Text
}

// Matrix is the decode matrix of the run shown.
func (v *View) Matrix() *matrix.Matrix { return v.mx }

// Diagnosis is the Diagnosis tab's text ("" when no run is shown).
func (v *View) Diagnosis() string { return v.diagnosis.text.Text }

// TuneButton is the Diagnosis tab's "Tune this" (hidden when the run's
// advice names no flag to sweep, or OnTune is not set).
func (v *View) TuneButton() *widget.Button { return v.diagnosis.tuneBtn }

// Tabs are the view's inner tabs (matrix, prefill, all, charts, diagnosis,
// burst).
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

// allNote is the line under the measurements table saying what its blanks
// and missing ± mean.
func allNote() fyne.CanvasObject {
	l := widget.NewLabel(TableNote)
	l.Wrapping = fyne.TextWrapWord
	l.Importance = widget.LowImportance
	return l
}

// ColumnWidth is the measurements table's column i width.
func (v *View) ColumnWidth(i int) float32 { return v.all.widths[i] }

// Headers are the measurements table's column titles.
func (v *View) Headers() []string {
	out := make([]string, len(columns))
	for i, c := range columns {
		out[i] = c.title
	}
	return out
}

// SortBy sorts the measurements table as a tap on header i would.
func (v *View) SortBy(i int) { v.all.SortBy(i) }

// SetRun shows r; chartsDone (may be nil) runs when the charts are drawn.
func (v *View) SetRun(r *rundoc.Run, chartsDone func()) {
	if r == nil || v.run == nil || r.UUID != v.run.UUID {
		v.gone.Hide()
	}
	v.run = r
	v.showResume()
	v.failure.Hide()
	v.server.Hide()
	v.empty.Hide()
	v.tabs.Show()
	if r == nil {
		v.title.SetText("No run selected.")
		v.summary.SetText("")
		v.badge.Hide()
		v.headlineCard.Hide()
		v.mx.SetRun(nil)
		v.pcells, v.bcells = nil, nil
		v.prefill.Refresh()
		v.burst.Refresh()
		v.all.set(nil)
		v.diagnosis.set(nil, false)
		v.quality.set(nil)
		v.charts.Set(nil, chartsDone)
		return
	}
	v.title.SetText(Title(r))
	v.summary.SetText(Summary(r))
	v.setHeadline(r)
	if r.Simulated {
		v.badge.Show()
	} else {
		v.badge.Hide()
	}
	if r.Error != "" {
		v.failure.SetText(Failure(r))
		v.failure.Show()
		v.server.SetText(ServerText(r))
		v.server.Show()
	}
	if len(r.Cells) == 0 && r.Status != rundoc.RunRunning {
		v.tabs.Hide()
		v.empty.Show()
	}
	v.mx.SetPendingText("")
	v.mx.SetRun(r)
	v.pcells, v.bcells = r.PrefillCells(), r.BurstCells()
	v.prefill.Refresh()
	v.burst.Refresh()
	// The order CSV and Markdown list cells in, whatever order they ran in
	// (adaptive runs put each prefill cell before its context's decode row);
	// burst cells are in their own tab.
	v.all.set(report.SustainedCells(r))
	v.diagnosis.set(r, v.OnTune != nil && r.Status != rundoc.RunRunning)
	v.quality.set(r)
	v.charts.Set([]*rundoc.Run{r}, chartsDone)
}

// setHeadline fills the headline card from r's Valid cells, and hides it
// while r has no cell (a run starting, or one that measured nothing, which
// the view says in its own words).
func (v *View) setHeadline(r *rundoc.Run) {
	if len(r.Cells) == 0 {
		v.headlineCard.Hide()
		return
	}
	v.headline.SetText(rundoc.HeadlineOf(r).Text())
	v.headlineCard.Show()
}

// Headline is the headline card's text ("" when the card is hidden).
func (v *View) Headline() string {
	if v.headlineCard.Visible() {
		return v.headline.Text
	}
	return ""
}

// showResume shows the Resume button for a run measured here that has
// cells left to measure, naming how many, and hides it otherwise.
func (v *View) showResume() {
	r := v.run
	n := 0
	if r != nil && v.OnResume != nil && r.Origin == rundoc.OriginMeasured && r.Status != rundoc.RunRunning {
		n = bench.Remaining(r)
	}
	if n == 0 {
		v.resumeBtn.Hide()
		return
	}
	v.resumeBtn.SetText(fmt.Sprintf("Resume: measure the %d cell(s) without a result", n))
	v.resumeBtn.Show()
}

// ResumeButton is the button that resumes the run shown (hidden when there
// is nothing to resume).
func (v *View) ResumeButton() *widget.Button { return v.resumeBtn }

// Failed is the stored error as shown ("" when the run has none).
func (v *View) Failed() string {
	if v.failure.Visible() {
		return v.failure.Text
	}
	return ""
}

// Server is the server line shown under a failed run ("" when hidden).
func (v *View) Server() string {
	if v.server.Visible() {
		return v.server.Text
	}
	return ""
}

// Empty reports whether the view says nothing was measured instead of
// showing empty tabs.
func (v *View) Empty() bool { return v.empty.Visible() }

// ChartSize is the size each chart is shown at.
func (v *View) ChartSize() fyne.Size { return v.charts.ChartSize() }

func prefillText(c rundoc.Cell, col int) string {
	switch col {
	case 0:
		return rundoc.ContextLabel(c.Context)
	case 1:
		return rundoc.FigPromptTokS.TextCI(&c)
	case 2:
		return rundoc.FigTTFT.Text(&c)
	default:
		return rundoc.StatusText(&c) // an Unreliable cell with its reason's head
	}
}

// Title names a run in one line, with "(simulated)" for demo runs.
func Title(r *rundoc.Run) string {
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
func Summary(r *rundoc.Run) string {
	var parts []string
	if hw := HardwareText(r); hw != "" {
		parts = append(parts, hw)
	}
	eng := strings.TrimSpace(r.Server.Engine + " " + r.Server.Version)
	if eng != "" {
		parts = append(parts, eng)
	}
	if r.Server.Model != "" {
		parts = append(parts, r.Server.Model)
	}
	if r.Server.KVCapacityTokens > 0 {
		parts = append(parts, "KV "+rundoc.TokensText(r.Server.KVCapacityTokens))
	}
	if m := r.Plan.MethodLabel(); m != "" {
		parts = append(parts, m)
	}
	if !r.CreatedAt.IsZero() {
		parts = append(parts, r.CreatedAt.Local().Format("2006-01-02 15:04"))
	}
	parts = append(parts, string(r.Status))
	if r.Origin == rundoc.OriginImported {
		parts = append(parts, "imported")
	}
	return strings.Join(parts, " · ")
}

// HardwareText is the run's GPU as the header shows it. The snapshot is of
// the computer RigBench ran on: for a run against an existing endpoint
// that is not the server's card, so it is not passed off as one, and a
// computer without a GPU reads "none detected", not the driver's error.
func HardwareText(r *rundoc.Run) string {
	hw := r.Hardware
	if hw == nil {
		return ""
	}
	imported := r.Origin == rundoc.OriginImported
	endpoint := r.Launch == nil && !r.Simulated && !imported
	switch {
	case len(hw.GPUs) > 0 && endpoint:
		return "endpoint's GPU not recorded (this computer: " + hw.Summary() + ")"
	case len(hw.GPUs) > 0:
		return hw.Summary()
	case r.Simulated:
		return "no GPU used"
	case endpoint:
		return "endpoint's GPU not recorded"
	case imported:
		return "GPU: none recorded"
	}
	return hwview.NoGPU
}

// Failure is the stored error of a run as one sentence.
func Failure(r *rundoc.Run) string {
	e := strings.TrimSpace(r.Error)
	if e == "" {
		return ""
	}
	if !strings.HasSuffix(e, ".") {
		e += "."
	}
	return "The run stopped with an error: " + e
}

// ServerText says which server the run talked to. The run document keeps
// no endpoint address (see the error for it), only how it was started.
func ServerText(r *rundoc.Run) string {
	model := r.Server.Model
	if model == "" && r.Launch != nil {
		model = r.Launch.Model
	}
	var s string
	switch {
	case r.Simulated && r.Server.Personality != "" && r.Server.Personality != "vllm":
		s = "Server: RigBench's simulated server, as " + r.Server.Personality
	case r.Simulated:
		s = "Server: RigBench's simulated server"
	case r.Launch != nil:
		s = "Server: vLLM launched in Docker from " + r.Launch.Image
	default:
		s = "Server: an existing endpoint"
	}
	if eng := strings.TrimSpace(r.Server.Engine + " " + r.Server.Version); eng != "" && !r.Simulated {
		s += " (" + eng + ")"
	}
	if model != "" {
		s += ", model " + model
	}
	s += "."
	// Figures this kind of server does not give are "not reported", not 0.
	if len(r.Server.NotReported) > 0 {
		s += " Not reported by this server: " + strings.ReplaceAll(strings.Join(r.Server.NotReported, ", "), "_", " ") + "."
	}
	return s
}

func short(id string) string {
	if len(id) > 8 {
		return id[:8]
	}
	return id
}

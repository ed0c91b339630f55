package matrix

import (
	"image/color"
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/layout"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// cellSize is the smallest size of one matrix cell: room for "1234.5 tok/s"
// and "TTFT 12345 ms" at the default text size, and no more, so that the
// default plan's nine columns fit a 1280-unit window.
var cellSize = fyne.NewSize(98, 42)

// Matrix is the decode-matrix widget. Its methods must be called on the
// Fyne goroutine (inside fyne.Do when the data comes from a runner).
type Matrix struct {
	widget.BaseWidget

	grid    *fyne.Container
	run     *rundoc.Run
	ctxs    []int
	ns      []int
	views   map[[2]int]*cellView
	running [2]int
	active  bool
	// pending is what a planned cell without figures says (the plan
	// preview sets "will run"); pendingDetail its second line, by cell
	// (the plan preview's predicted figure).
	pending       string
	pendingDetail map[[2]int]string
	// taps are the cells' tap areas, by (context, concurrency).
	taps map[[2]int]*tapArea
	// OnTapped, when set, is called with a cell's context and concurrency
	// when the user taps it (Results opens the cell's details).
	OnTapped func(context, concurrency int)
}

type cellView struct {
	bg         *canvas.Rectangle
	l1, l2, l3 *canvas.Text
}

// New returns an empty matrix ("no run yet").
func New() *Matrix {
	m := &Matrix{grid: container.NewVBox(widget.NewLabel("No run yet.")), views: map[[2]int]*cellView{}, taps: map[[2]int]*tapArea{}}
	m.ExtendBaseWidget(m)
	return m
}

// CreateRenderer is Fyne's widget hook.
func (m *Matrix) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(m.grid)
}

// SetRun shows r (nil clears). The grid is rebuilt only when the axes
// change; otherwise cells are repainted in place, which keeps live updates
// cheap.
func (m *Matrix) SetRun(r *rundoc.Run) {
	m.run = r
	if r == nil {
		m.ctxs, m.ns = nil, nil
		m.views = map[[2]int]*cellView{}
		m.taps = map[[2]int]*tapArea{}
		m.grid.Objects = []fyne.CanvasObject{widget.NewLabel("No run yet.")}
		m.grid.Refresh()
		return
	}
	ctxs, ns := r.DecodeAxes()
	if !slices.Equal(ctxs, m.ctxs) || !slices.Equal(ns, m.ns) {
		m.ctxs, m.ns = ctxs, ns
		m.rebuild()
	}
	m.paint()
}

// SetRunning marks the cell being measured (active=false clears the mark).
func (m *Matrix) SetRunning(context, concurrency int, active bool) {
	m.running, m.active = [2]int{context, concurrency}, active
	m.paint()
}

// SetPendingText sets what planned cells that have no figures yet say.
func (m *Matrix) SetPendingText(s string) {
	m.pending = s
	m.paint()
}

// SetPendingDetail sets the second line of planned cells that have no
// figures yet, by (context, concurrency): the plan preview's predicted
// figure. nil clears them.
func (m *Matrix) SetPendingDetail(detail map[[2]int]string) {
	m.pendingDetail = detail
	m.paint()
}

// Lines returns the two text lines the cell (context, concurrency) shows,
// and whether the matrix has such a cell.
func (m *Matrix) Lines(context, concurrency int) (string, string, bool) {
	v, ok := m.views[[2]int{context, concurrency}]
	if !ok {
		return "", "", false
	}
	return v.l1.Text, v.l2.Text, true
}

// Roofline returns the small third line of the cell (context,
// concurrency): its share of the bandwidth roofline, "" when hidden.
func (m *Matrix) Roofline(context, concurrency int) string {
	if v, ok := m.views[[2]int{context, concurrency}]; ok && v.l3.Visible() {
		return v.l3.Text
	}
	return ""
}

// Cell is the tap area of the cell (context, concurrency), nil when the
// matrix has no such cell: what a tap lands on (tests tap it).
func (m *Matrix) Cell(context, concurrency int) fyne.Tappable {
	if t, ok := m.taps[[2]int{context, concurrency}]; ok {
		return t
	}
	return nil
}

// TextColor returns the colour a cell's text reads in (nil when there is
// no such cell): tests check it against the cell's fill in both themes.
func (m *Matrix) TextColor(context, concurrency int) color.Color {
	if v, ok := m.views[[2]int{context, concurrency}]; ok {
		return v.l1.Color
	}
	return nil
}

// Refresh repaints every cell before Fyne redraws: the text of a cell
// without figures takes the theme's foreground, so it must be read again
// when View ▸ Theme changes the theme at run time (painted once, it stayed
// white on the light theme's grey).
func (m *Matrix) Refresh() {
	m.paint()
	m.BaseWidget.Refresh()
}

// Fill returns the background colour of a cell (for tests and tooltips).
func (m *Matrix) Fill(context, concurrency int) color.Color {
	if v, ok := m.views[[2]int{context, concurrency}]; ok {
		return v.bg.FillColor
	}
	return nil
}

func (m *Matrix) rebuild() {
	m.views = map[[2]int]*cellView{}
	m.taps = map[[2]int]*tapArea{}
	if len(m.ctxs) == 0 || len(m.ns) == 0 {
		m.grid.Objects = []fyne.CanvasObject{widget.NewLabel("This run has no decode cells.")}
		m.grid.Refresh()
		return
	}
	objs := []fyne.CanvasObject{header("context \\ N")}
	for _, n := range m.ns {
		objs = append(objs, header("N="+itoa(n)))
	}
	for _, c := range m.ctxs {
		objs = append(objs, header(rundoc.ContextLabel(c)))
		for _, n := range m.ns {
			v := &cellView{bg: canvas.NewRectangle(pendingFill), l1: canvas.NewText("", nil), l2: canvas.NewText("", nil), l3: canvas.NewText("", nil)}
			v.bg.SetMinSize(cellSize)
			v.bg.CornerRadius = 3
			v.l1.Alignment, v.l2.Alignment, v.l3.Alignment = fyne.TextAlignCenter, fyne.TextAlignCenter, fyne.TextAlignCenter
			v.l1.TextStyle.Bold = true
			v.l2.TextSize = theme.TextSize() * 0.85
			// The roofline share is the smallest line, shown only where a
			// cell has one, so runs without it keep the two-line grid.
			v.l3.TextSize = theme.TextSize() * 0.75
			v.l3.Hide()
			m.views[[2]int{c, n}] = v
			t := newTapArea(container.NewStack(v.bg, container.NewCenter(container.NewVBox(v.l1, v.l2, v.l3))), m, c, n)
			m.taps[[2]int{c, n}] = t
			objs = append(objs, t)
		}
	}
	grid := container.New(layout.NewGridLayout(len(m.ns)+1), objs...)
	m.grid.Objects = []fyne.CanvasObject{grid}
	m.grid.Refresh()
}

func (m *Matrix) paint() {
	if m.run == nil {
		return
	}
	hi := decodeMax(m.run)
	fg := theme.Color(theme.ColorNameForeground)
	for k, v := range m.views {
		c := m.run.Find(rundoc.PhaseDecode, k[0], k[1])
		running := m.active && m.running == k && (c == nil || c.Status == "")
		v.l1.Text, v.l2.Text = CellLines(c, running)
		if c == nil && !running {
			v.l1.Text, v.l2.Text = m.pending, m.pendingDetail[k]
		}
		if v.l3.Text = rundoc.MatrixRoofline(c); v.l3.Text != "" && !running {
			v.l3.Show()
		} else {
			v.l3.Hide()
		}
		text := fg
		v.bg.StrokeWidth = 0
		switch {
		case running:
			v.bg.FillColor = runningFill
		case c == nil:
			v.bg.FillColor = pendingFill
			v.bg.StrokeColor, v.bg.StrokeWidth = pendingStroke, 1.5
		case c.Status.Ran():
			v.bg.FillColor, text = Shade(c.TotalTokS, hi)
		default:
			v.bg.FillColor = statusFill
		}
		v.l1.Color, v.l2.Color, v.l3.Color = text, text, text
		v.bg.Refresh()
		v.l1.Refresh()
		v.l2.Refresh()
		v.l3.Refresh()
	}
}

func header(s string) fyne.CanvasObject {
	l := widget.NewLabelWithStyle(s, fyne.TextAlignCenter, fyne.TextStyle{Bold: true})
	return l
}

package results

import (
	"slices"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// table is the sortable table of all measurements. Tapping a header sorts
// by that column; tapping it again reverses the order.
type table struct {
	cells   []rundoc.Cell
	sortCol int
	desc    bool
	t       *widget.Table
	widths  []float32
}

func newTable() *table {
	tb := &table{sortCol: -1, widths: make([]float32, len(columns))}
	tb.t = widget.NewTable(
		func() (int, int) { return len(tb.cells), len(columns) },
		func() fyne.CanvasObject {
			l := widget.NewLabel("Per-request tok/s")
			l.Truncation = fyne.TextTruncateEllipsis
			return l
		},
		func(id widget.TableCellID, o fyne.CanvasObject) {
			o.(*widget.Label).SetText(columns[id.Col].text(tb.cells[id.Row]))
		})
	tb.t.ShowHeaderRow = true
	tb.t.CreateHeader = func() fyne.CanvasObject { return widget.NewButton("", nil) }
	tb.t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		b := o.(*widget.Button)
		if id.Col < 0 {
			b.SetText("")
			return
		}
		b.SetText(headerText(id.Col, tb.sortCol, tb.desc))
		col := id.Col
		b.OnTapped = func() { tb.SortBy(col) }
	}
	for i, c := range columns {
		w := float32(90)
		switch c.title {
		case "Status":
			w = 150
		case "Per-request tok/s", "Output tokens":
			w = 130
		case "Reason":
			w = 260
		}
		tb.widths[i] = w
		tb.t.SetColumnWidth(i, w)
	}
	return tb
}

func (tb *table) set(cells []rundoc.Cell) {
	tb.cells = slices.Clone(cells)
	tb.sort()
	tb.fit()
	tb.t.Refresh()
}

// maxColumnWidth caps a column: the Reason column's long sentences are
// cut there rather than widen the table past any window.
const maxColumnWidth = 420

// fit makes each column as wide as its widest text (header with the sort
// mark, or cell), up to maxColumnWidth: fixed widths cut "2199.6 ± 12.3"
// to "2199.6 ± …".
func (tb *table) fit() {
	pad := 2*theme.InnerPadding() + theme.Padding()
	measure := func(s string, bold bool) float32 {
		return fyne.MeasureText(s, theme.TextSize(), fyne.TextStyle{Bold: bold}).Width + pad
	}
	for i, c := range columns {
		// The header is a button: its text with room for " ▼".
		w := measure(c.title+" ▼", true) + theme.Padding()
		for _, cell := range tb.cells {
			w = max(w, measure(c.text(cell), false))
		}
		tb.widths[i] = min(w, maxColumnWidth)
		tb.t.SetColumnWidth(i, tb.widths[i])
	}
}

// SortBy sorts by column i; a second call on the same column reverses.
func (tb *table) SortBy(i int) {
	if tb.sortCol == i {
		tb.desc = !tb.desc
	} else {
		tb.sortCol, tb.desc = i, false
	}
	tb.sort()
	tb.t.Refresh()
}

func (tb *table) sort() {
	if tb.sortCol < 0 {
		return
	}
	less := columns[tb.sortCol].less
	slices.SortStableFunc(tb.cells, func(a, b rundoc.Cell) int {
		if tb.desc {
			return less(b, a)
		}
		return less(a, b)
	})
}

package history

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"
)

// cell is one cell of the history table: a click anywhere on a row ticks
// or unticks it (not only its small check box), a double-click opens the
// run in Results, as a file list does.
type cell struct {
	widget.Label
	row            int
	tapped, double func(row int)
}

func newCell(tapped, double func(row int)) *cell {
	c := &cell{tapped: tapped, double: double}
	c.Truncation = fyne.TextTruncateEllipsis
	c.ExtendBaseWidget(c)
	return c
}

// Tapped ticks or unticks the cell's row.
func (c *cell) Tapped(*fyne.PointEvent) { c.tapped(c.row) }

// DoubleTapped opens the cell's run.
func (c *cell) DoubleTapped(*fyne.PointEvent) { c.double(c.row) }

var (
	_ fyne.Tappable       = (*cell)(nil)
	_ fyne.DoubleTappable = (*cell)(nil)
)

package qualityview

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/theme"
)

// columns lays its objects out as a table of n columns, row after row,
// each column as wide as its widest cell: the per-category rows line up
// like the CLI's table without every column taking the width of the
// widest one (a grid of equal columns widened the Run tab past a
// 900-unit window).
type columns struct{ n int }

// sizes are each column's width and each row's height.
func (c columns) sizes(objs []fyne.CanvasObject) (widths, heights []float32) {
	widths = make([]float32, c.n)
	for i, o := range objs {
		m := o.MinSize()
		col, row := i%c.n, i/c.n
		widths[col] = max(widths[col], m.Width)
		if row == len(heights) {
			heights = append(heights, 0)
		}
		heights[row] = max(heights[row], m.Height)
	}
	return widths, heights
}

// MinSize is the columns' widths and the rows' heights with the theme's
// padding between them.
func (c columns) MinSize(objs []fyne.CanvasObject) fyne.Size {
	widths, heights := c.sizes(objs)
	var s fyne.Size
	for _, w := range widths {
		s.Width += w
	}
	for _, h := range heights {
		s.Height += h
	}
	pad := theme.Padding()
	if len(widths) > 1 {
		s.Width += pad * float32(len(widths)-1)
	}
	if len(heights) > 1 {
		s.Height += pad * float32(len(heights)-1)
	}
	return s
}

// Layout places each cell at its column's left edge, as wide as the
// column, and as tall as its row.
func (c columns) Layout(objs []fyne.CanvasObject, _ fyne.Size) {
	widths, heights := c.sizes(objs)
	pad := theme.Padding()
	var y float32
	for row := range heights {
		var x float32
		for col := range widths {
			i := row*c.n + col
			if i >= len(objs) {
				break
			}
			objs[i].Move(fyne.NewPos(x, y))
			objs[i].Resize(fyne.NewSize(widths[col], heights[row]))
			x += widths[col] + pad
		}
		y += heights[row] + pad
	}
}

package results

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Burst cells (METHOD.md: Burst cells) have a tab of their own, one row
// per cell as every burst table prints it (rundoc.BurstRow), apart from
// the decode matrix and the table of all measurements.

// burstWidths are the Burst tab's column widths: the cell, the figures of
// rundoc.BurstFigures, the status.
var burstWidths = []float32{70, 110, 110, 110, 90, 110, 110, 90, 60, 200}

// newBurstTable is the Burst tab's table over *cells.
func newBurstTable(cells *[]rundoc.Cell) *widget.Table {
	head := rundoc.BurstHeader()
	t := widget.NewTable(
		func() (int, int) { return len(*cells), len(head) },
		func() fyne.CanvasObject { return widget.NewLabel("Exceeds model length") },
		func(id widget.TableCellID, o fyne.CanvasObject) {
			text := rundoc.BurstRow(&(*cells)[id.Row])[id.Col]
			if text == "" {
				text = "—"
			}
			o.(*widget.Label).SetText(text)
		})
	t.ShowHeaderRow = true
	t.UpdateHeader = func(id widget.TableCellID, o fyne.CanvasObject) {
		if id.Col >= 0 {
			o.(*widget.Label).SetText(head[id.Col])
		}
	}
	for i, w := range burstWidths[:len(head)] {
		t.SetColumnWidth(i, w)
	}
	return t
}

// BurstRows are the Burst tab's rows as text (rundoc.BurstRow of each
// burst cell of the run shown).
func (v *View) BurstRows() [][]string {
	var out [][]string
	for i := range v.bcells {
		out = append(out, rundoc.BurstRow(&v.bcells[i]))
	}
	return out
}

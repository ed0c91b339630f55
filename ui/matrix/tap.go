package matrix

import (
	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/driver/desktop"
	"fyne.io/fyne/v2/widget"
)

// tapArea is a matrix cell that answers a tap (Results opens the cell's
// details) and shows the pointing hand over it, so a reader sees it can
// be clicked.
type tapArea struct {
	widget.BaseWidget
	content fyne.CanvasObject
	m       *Matrix
	key     [2]int
}

var (
	_ fyne.Tappable      = (*tapArea)(nil)
	_ desktop.Cursorable = (*tapArea)(nil)
)

func newTapArea(content fyne.CanvasObject, m *Matrix, context, concurrency int) *tapArea {
	t := &tapArea{content: content, m: m, key: [2]int{context, concurrency}}
	t.ExtendBaseWidget(t)
	return t
}

// CreateRenderer is Fyne's widget hook.
func (t *tapArea) CreateRenderer() fyne.WidgetRenderer {
	return widget.NewSimpleRenderer(t.content)
}

// Tapped is Fyne's tap hook: it calls the matrix's OnTapped as set at
// the time of the tap.
func (t *tapArea) Tapped(*fyne.PointEvent) {
	if t.m.OnTapped != nil {
		t.m.OnTapped(t.key[0], t.key[1])
	}
}

// Cursor is the pointing hand where a tap opens something (OnTapped set:
// Results), the arrow elsewhere (the Run tab's live matrix).
func (t *tapArea) Cursor() desktop.Cursor {
	if t.m.OnTapped != nil {
		return desktop.PointerCursor
	}
	return desktop.DefaultCursor
}

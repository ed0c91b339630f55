package launchview

import (
	"strings"
	"sync"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"
)

// maxLogLines bounds the log pane; a first start that downloads weights
// prints progress lines by the thousand.
const maxLogLines = 5000

// logPane shows container logs with follow and search. Lines arrive on any
// goroutine through add; they are flushed to the list five times a second.
type logPane struct {
	mu      sync.Mutex
	pending []string

	lines  []string
	shown  []string
	list   *widget.List
	search *widget.Entry
	follow *widget.Check
	box    fyne.CanvasObject
	stop   chan struct{}
}

func newLogPane() *logPane {
	p := &logPane{stop: make(chan struct{})}
	p.list = widget.NewList(func() int { return len(p.shown) },
		func() fyne.CanvasObject {
			return widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
		},
		func(i widget.ListItemID, o fyne.CanvasObject) { o.(*widget.Label).SetText(p.shown[i]) })
	p.search = widget.NewEntry()
	p.search.SetPlaceHolder("Search the log")
	p.search.OnChanged = func(string) { p.filter() }
	p.follow = widget.NewCheck("Follow", nil)
	p.follow.SetChecked(true)
	p.box = container.NewBorder(container.NewBorder(nil, nil, nil, p.follow, p.search), nil, nil, nil, p.list)
	go p.loop()
	return p
}

// add queues a log line (safe from any goroutine).
func (p *logPane) add(line string) {
	p.mu.Lock()
	p.pending = append(p.pending, strings.TrimRight(line, "\r\n"))
	p.mu.Unlock()
}

func (p *logPane) loop() {
	t := time.NewTicker(200 * time.Millisecond)
	defer t.Stop()
	for {
		select {
		case <-p.stop:
			return
		case <-t.C:
			p.mu.Lock()
			batch := p.pending
			p.pending = nil
			p.mu.Unlock()
			if len(batch) > 0 {
				fyne.Do(func() { p.append(batch) })
			}
		}
	}
}

func (p *logPane) append(batch []string) {
	p.lines = append(p.lines, batch...)
	if len(p.lines) > maxLogLines {
		p.lines = p.lines[len(p.lines)-maxLogLines:]
	}
	p.filter()
}

func (p *logPane) clear() {
	p.lines = nil
	p.filter()
}

func (p *logPane) filter() {
	q := strings.ToLower(strings.TrimSpace(p.search.Text))
	if q == "" {
		p.shown = p.lines
	} else {
		p.shown = nil
		for _, l := range p.lines {
			if strings.Contains(strings.ToLower(l), q) {
				p.shown = append(p.shown, l)
			}
		}
	}
	p.list.Refresh()
	if p.follow.Checked && len(p.shown) > 0 {
		p.list.ScrollToBottom()
	}
}

package docker

import (
	"bytes"
	"sync"
	"time"
)

// LogLine is one line of the container's output. Secrets (API key, Hugging
// Face token) are already replaced by a placeholder.
type LogLine struct {
	Stream string    `json:"stream"` // "stdout" or "stderr"
	Text   string    `json:"text"`
	Time   time.Time `json:"time"`
}

// lineWriter cuts a byte stream into lines. Carriage returns end lines too:
// download progress bars redraw with \r.
type lineWriter struct {
	stream string
	emit   func(LogLine)
	buf    []byte
}

func (w *lineWriter) Write(p []byte) (int, error) {
	w.buf = append(w.buf, p...)
	for {
		i := bytes.IndexAny(w.buf, "\r\n")
		if i < 0 {
			break
		}
		if i > 0 {
			w.emit(LogLine{Stream: w.stream, Text: string(w.buf[:i]), Time: time.Now()})
		}
		w.buf = w.buf[i+1:]
	}
	return len(p), nil
}

// flush emits an unterminated last line.
func (w *lineWriter) flush() {
	if len(w.buf) > 0 {
		w.emit(LogLine{Stream: w.stream, Text: string(w.buf), Time: time.Now()})
		w.buf = nil
	}
}

// tail keeps the last lines of a log for error reports.
type tail struct {
	mu    sync.Mutex
	lines []LogLine
	max   int
}

func (t *tail) add(l LogLine) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.lines = append(t.lines, l)
	if len(t.lines) > t.max {
		t.lines = append(t.lines[:0:0], t.lines[len(t.lines)-t.max:]...)
	}
}

func (t *tail) get() []LogLine {
	t.mu.Lock()
	defer t.mu.Unlock()
	return append([]LogLine(nil), t.lines...)
}

package client

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"sync/atomic"
)

// MaxSSELineBytes bounds one line of a Server-Sent Events stream. A real
// completion chunk is a few hundred bytes (a whole 1,000-token text in one
// chunk is a few KB), so a longer line is a broken or hostile server: the
// request fails with a *StreamError that names the limit, instead of the
// client holding an ever-growing line in memory.
const MaxSSELineBytes = 1 << 20

// LongLineBudget bounds the memory all streams of the process together
// hold in lines longer than a stream's 64 KiB read buffer: without it, 128
// streams of nearly MaxSSELineBytes each would hold over 128 MiB, most of
// the client's 150 MB. A line that would take the total past the budget
// fails its request with ErrLineTooLong, as a line over the limit does.
const LongLineBudget = 48 << 20

// ErrLineTooLong is the reason of a stream whose server sent a line longer
// than MaxSSELineBytes, or long lines on many streams at once beyond
// LongLineBudget.
var ErrLineTooLong = errors.New("the server sent a line longer than 1 MiB without ending it (RigBench's limit for one event), so the response was abandoned")

// errLinesOverBudget is ErrLineTooLong for lines under the limit that
// together, across streams, pass LongLineBudget.
var errLinesOverBudget = fmt.Errorf("%w; here the server's long lines on all streams at once passed RigBench's %d MiB budget", ErrLineTooLong, LongLineBudget>>20)

// longLineBytes is the capacity of every stream's long-line buffer now
// held, against LongLineBudget.
var longLineBytes atomic.Int64

// sseReader reads the data lines of a Server-Sent Events stream. Unlike
// bufio.Scanner its line limit is far above any real chunk: a chunk of
// nearly MaxSSELineBytes is read whole, a longer line is ErrLineTooLong.
// The returned slice is valid until the next call; call release when done.
type sseReader struct {
	r    *bufio.Reader
	long []byte // reassembly buffer for lines longer than r's buffer
	// reserved is long's capacity, counted in longLineBytes.
	reserved int64
}

func newSSEReader(r io.Reader) *sseReader {
	return &sseReader{r: bufio.NewReaderSize(r, 64<<10)}
}

var dataPrefix = []byte("data:")

// next returns the payload of the next `data:` line, skipping comments,
// blank lines and other fields (event:, id:, retry:). It returns io.EOF at
// the end of the stream. Multi-line data events are not used by any
// OpenAI-compatible server, so each data line is one event.
func (s *sseReader) next() ([]byte, error) {
	for {
		line, err := s.line()
		if len(line) == 0 && err != nil {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if !bytes.HasPrefix(line, dataPrefix) {
			if err != nil {
				return nil, err
			}
			continue
		}
		payload := line[len(dataPrefix):]
		if len(payload) > 0 && payload[0] == ' ' {
			payload = payload[1:]
		}
		return payload, nil
	}
}

// line returns the next line including its newline; the last line of a
// stream may lack one. A line longer than MaxSSELineBytes (its ending not
// counted) is ErrLineTooLong: reading stops there, and the buffer that
// held it is let go.
func (s *sseReader) line() ([]byte, error) {
	// A long line is abnormal: its buffer is let go once it has been used,
	// so the budget holds only lines being read now.
	s.release()
	l, err := s.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return l, err
	}
	if err := s.append(l); err != nil {
		return nil, err
	}
	for errors.Is(err, bufio.ErrBufferFull) {
		l, err = s.r.ReadSlice('\n')
		if err := s.append(l); err != nil {
			return nil, err
		}
		if len(bytes.TrimRight(s.long, "\r\n")) > MaxSSELineBytes {
			s.release()
			return nil, ErrLineTooLong
		}
	}
	return s.long, err
}

// append adds l to the long line. A buffer that must grow (doubling) is
// first reserved against LongLineBudget, so the total never passes it.
func (s *sseReader) append(l []byte) error {
	if need := len(s.long) + len(l); need > cap(s.long) {
		newCap := max(2*cap(s.long), need)
		if !reserve(int64(newCap - cap(s.long))) {
			s.release()
			return errLinesOverBudget
		}
		s.reserved += int64(newCap - cap(s.long))
		grown := make([]byte, len(s.long), newCap)
		copy(grown, s.long)
		s.long = grown
	}
	s.long = append(s.long, l...)
	return nil
}

// reserve adds n bytes to longLineBytes unless that would pass
// LongLineBudget.
func reserve(n int64) bool {
	for {
		cur := longLineBytes.Load()
		if cur+n > LongLineBudget {
			return false
		}
		if longLineBytes.CompareAndSwap(cur, cur+n) {
			return true
		}
	}
}

// release lets go of the long-line buffer and its share of the budget.
func (s *sseReader) release() {
	if s.reserved > 0 {
		longLineBytes.Add(-s.reserved)
	}
	s.long, s.reserved = nil, 0
}

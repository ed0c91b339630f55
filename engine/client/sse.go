package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// MaxSSELineBytes bounds one line of a Server-Sent Events stream. A real
// completion chunk is a few hundred bytes (a whole 1,000-token text in one
// chunk is a few KB), so a longer line is a broken or hostile server: the
// request fails with a *StreamError that names the limit, instead of the
// client holding an ever-growing line in memory. With 128 streams in
// flight the reassembly buffers stay under 128 MiB in the worst case.
const MaxSSELineBytes = 1 << 20

// ErrLineTooLong is the reason of a stream whose server sent a line longer
// than MaxSSELineBytes.
var ErrLineTooLong = errors.New("the server sent a line longer than 1 MiB without ending it (RigBench's limit for one event), so the response was abandoned")

// sseReader reads the data lines of a Server-Sent Events stream. Unlike
// bufio.Scanner its line limit is far above any real chunk: a chunk of
// nearly MaxSSELineBytes is read whole, a longer line is ErrLineTooLong.
// The returned slice is valid until the next call.
type sseReader struct {
	r    *bufio.Reader
	long []byte // reassembly buffer for lines longer than r's buffer
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
	l, err := s.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return l, err
	}
	s.long = append(s.long[:0], l...)
	for errors.Is(err, bufio.ErrBufferFull) {
		l, err = s.r.ReadSlice('\n')
		s.long = append(s.long, l...)
		if len(bytes.TrimRight(s.long, "\r\n")) > MaxSSELineBytes {
			s.long = nil
			return nil, ErrLineTooLong
		}
	}
	return s.long, err
}

package client

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// sseReader reads the data lines of a Server-Sent Events stream. Unlike
// bufio.Scanner it has no line-length limit: a 1 MB chunk is read whole.
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
// stream may lack one.
func (s *sseReader) line() ([]byte, error) {
	l, err := s.r.ReadSlice('\n')
	if !errors.Is(err, bufio.ErrBufferFull) {
		return l, err
	}
	s.long = append(s.long[:0], l...)
	for errors.Is(err, bufio.ErrBufferFull) {
		l, err = s.r.ReadSlice('\n')
		s.long = append(s.long, l...)
	}
	return s.long, err
}

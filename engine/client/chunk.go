package client

import (
	"bytes"
	"errors"
	"fmt"
)

// chunk is what the runner needs from one streamed completion chunk. The
// parser fills it without allocating: at thousands of chunks per second
// across 128 streams, encoding/json's reflection and allocations would make
// the client, not the server, the bottleneck (see BenchmarkParseChunk).
type chunk struct {
	// hasChoices is true when a "choices" array was present; emptyChoices
	// when it was [] (the final usage chunk of include_usage).
	hasChoices, emptyChoices bool
	// textLen is the length in bytes of choices[0].text as sent (escaped).
	textLen int
	// finished is true when choices[0].finish_reason is not null.
	finished bool
	// hasUsage is true when "usage" was an object with token counts.
	hasUsage                       bool
	promptTokens, completionTokens int
	// errMsg is set (a slice of the input) when the chunk is an error
	// object: {"error":{"message":…}} or {"object":"error","message":…}.
	errMsg  []byte
	isError bool
}

var errBadJSON = errors.New("malformed JSON")

// parseChunk reads one data payload into c. It understands just enough JSON
// to find the fields above and skips everything else; malformed input is an
// error, never a panic.
func parseChunk(b []byte, c *chunk) error {
	*c = chunk{}
	p := parser{b: b}
	if !p.consume('{') {
		return fmt.Errorf("chunk is not a JSON object: %w", errBadJSON)
	}
	var objectIsError bool
	var message []byte
	err := p.object(func(key []byte) error {
		switch string(key) {
		case "choices":
			return p.choices(c)
		case "usage":
			return p.usage(c)
		case "error":
			c.isError = true
			if p.peek() != '{' {
				s, err := p.stringOrSkip()
				c.errMsg = s
				return err
			}
			p.pos++
			return p.object(func(k []byte) error {
				if string(k) == "message" {
					s, err := p.stringOrSkip()
					c.errMsg = s
					return err
				}
				return p.skip()
			})
		case "object":
			s, err := p.stringOrSkip()
			objectIsError = string(s) == "error"
			return err
		case "message":
			s, err := p.stringOrSkip()
			message = s
			return err
		default:
			return p.skip()
		}
	})
	if err != nil {
		return err
	}
	if objectIsError {
		c.isError = true
		c.errMsg = message
	}
	return nil
}

func (p *parser) choices(c *chunk) error {
	if p.peekNull() {
		return nil
	}
	if !p.consume('[') {
		return errBadJSON
	}
	c.hasChoices = true
	first := true
	if p.consume(']') {
		c.emptyChoices = true
		return nil
	}
	for {
		if first && p.peek() == '{' {
			p.pos++
			if err := p.object(func(k []byte) error {
				switch string(k) {
				case "text":
					s, err := p.stringOrSkip()
					c.textLen = len(s)
					return err
				case "finish_reason":
					if p.peekNull() {
						return nil
					}
					c.finished = true
					return p.skip()
				default:
					return p.skip()
				}
			}); err != nil {
				return err
			}
		} else if err := p.skip(); err != nil {
			return err
		}
		first = false
		if p.consume(',') {
			continue
		}
		if p.consume(']') {
			return nil
		}
		return errBadJSON
	}
}

func (p *parser) usage(c *chunk) error {
	if p.peekNull() {
		return nil
	}
	if !p.consume('{') {
		return errBadJSON
	}
	return p.object(func(k []byte) error {
		switch string(k) {
		case "prompt_tokens":
			n, err := p.integer()
			c.promptTokens, c.hasUsage = n, true
			return err
		case "completion_tokens":
			n, err := p.integer()
			c.completionTokens, c.hasUsage = n, true
			return err
		default:
			return p.skip()
		}
	})
}

// parser is a cursor over one JSON document.
type parser struct {
	b   []byte
	pos int
}

func (p *parser) ws() {
	for p.pos < len(p.b) && p.b[p.pos] <= ' ' {
		switch p.b[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *parser) peek() byte {
	p.ws()
	if p.pos < len(p.b) {
		return p.b[p.pos]
	}
	return 0
}

func (p *parser) consume(ch byte) bool {
	if p.peek() == ch {
		p.pos++
		return true
	}
	return false
}

// peekNull consumes a literal null when one is next.
func (p *parser) peekNull() bool {
	if p.peek() == 'n' && p.pos+4 <= len(p.b) && string(p.b[p.pos:p.pos+4]) == "null" {
		p.pos += 4
		return true
	}
	return false
}

// object iterates over the members of an object whose '{' was consumed,
// calling member with each key; member must consume the value.
func (p *parser) object(member func(key []byte) error) error {
	if p.consume('}') {
		return nil
	}
	for {
		key, err := p.str()
		if err != nil {
			return err
		}
		if !p.consume(':') {
			return errBadJSON
		}
		if err := member(key); err != nil {
			return err
		}
		if p.consume(',') {
			continue
		}
		if p.consume('}') {
			return nil
		}
		return errBadJSON
	}
}

// str reads a string and returns its raw (still escaped) contents. It jumps
// from quote to quote with bytes.IndexByte (SIMD) rather than byte by byte;
// a quote preceded by an odd number of backslashes is escaped.
func (p *parser) str() ([]byte, error) {
	if !p.consume('"') {
		return nil, errBadJSON
	}
	start := p.pos
	for {
		i := bytes.IndexByte(p.b[p.pos:], '"')
		if i < 0 {
			return nil, errBadJSON
		}
		end := p.pos + i
		n := 0
		for k := end - 1; k >= start && p.b[k] == '\\'; k-- {
			n++
		}
		p.pos = end + 1
		if n%2 == 0 {
			return p.b[start:end], nil
		}
	}
}

// stringOrSkip reads a string value, or skips a value of another type
// (returning nil), so unexpected types in known fields are tolerated.
func (p *parser) stringOrSkip() ([]byte, error) {
	if p.peek() == '"' {
		return p.str()
	}
	return nil, p.skip()
}

func (p *parser) integer() (int, error) {
	if p.peekNull() {
		return 0, nil
	}
	p.ws()
	n, digits := 0, 0
	for p.pos < len(p.b) && p.b[p.pos] >= '0' && p.b[p.pos] <= '9' {
		if n > 1<<40 {
			return 0, errBadJSON
		}
		n = n*10 + int(p.b[p.pos]-'0')
		p.pos++
		digits++
	}
	if digits == 0 {
		return 0, p.skip()
	}
	// Tolerate a fractional or exponent part ("12.0") by skipping it.
	for p.pos < len(p.b) && (p.b[p.pos] == '.' || p.b[p.pos] == 'e' || p.b[p.pos] == 'E' ||
		p.b[p.pos] == '+' || p.b[p.pos] == '-' || (p.b[p.pos] >= '0' && p.b[p.pos] <= '9')) {
		p.pos++
	}
	return n, nil
}

// skip consumes one value of any type. Depth is bounded so hostile input
// cannot exhaust the stack.
func (p *parser) skip() error { return p.skipDepth(0) }

func (p *parser) skipDepth(depth int) error {
	if depth > 64 {
		return errBadJSON
	}
	switch p.peek() {
	case '"':
		_, err := p.str()
		return err
	case '{':
		p.pos++
		return p.object(func([]byte) error { return p.skipDepth(depth + 1) })
	case '[':
		p.pos++
		if p.consume(']') {
			return nil
		}
		for {
			if err := p.skipDepth(depth + 1); err != nil {
				return err
			}
			if p.consume(',') {
				continue
			}
			if p.consume(']') {
				return nil
			}
			return errBadJSON
		}
	case 0:
		return errBadJSON
	default:
		start := p.pos
		for p.pos < len(p.b) {
			ch := p.b[p.pos]
			if ch == ',' || ch == '}' || ch == ']' || ch == ' ' || ch == '\n' || ch == '\r' || ch == '\t' {
				break
			}
			p.pos++
		}
		if p.pos == start {
			return errBadJSON
		}
		return nil
	}
}

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

// maxDepth bounds nesting; deeper input is rejected as malformed.
const maxDepth = 64

// Where the scanner is, for the few places whose keys matter.
const (
	inOther   = iota
	inChoices // the choices array (depth 2)
	inChoice0 // the first element of choices (depth 3)
	inUsage   // the usage object (depth 2)
	inError   // the error object (depth 2)
)

// parseChunk reads one data payload into c. It is a single forward scan
// with a fixed-size stack (no recursion, no allocation): strings are
// skipped with IndexByte, and only the keys of the top-level object, of
// choices[0], of usage and of error are looked at. Structure is checked as
// it goes (balanced brackets of the right kind, a colon after each key, no
// dangling commas), so malformed input is an error, never a panic.
func parseChunk(b []byte, c *chunk) error {
	*c = chunk{}
	var (
		stack         [maxDepth]byte // '{' or '[' per open container
		where         [maxDepth]int8 // inOther… per open container
		depth         int
		expectKey     bool // inside an object, after '{' or ','
		afterComma    bool
		elem          int // index of the current element in choices
		objectIsError bool
		message       []byte
	)
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fmt.Errorf("chunk is not a JSON object: %w", errBadJSON)
	}
	for i < len(b) {
		ch := b[i]
		switch ch {
		case ' ', '\t', '\n', '\r':
			i++
			continue
		case '{', '[':
			if expectKey || depth == maxDepth {
				return errBadJSON
			}
			w := int8(inOther)
			if depth == 2 && where[1] == inChoices && ch == '{' && elem == 0 {
				w = inChoice0
			}
			stack[depth], where[depth] = ch, w
			depth++
			expectKey, afterComma = ch == '{', false
			i++
			continue
		case '}', ']':
			if depth == 0 || (ch == '}' && stack[depth-1] != '{') || (ch == ']' && stack[depth-1] != '[') ||
				afterComma {
				return errBadJSON
			}
			if ch == ']' && where[depth-1] == inChoices && elem == 0 && !c.emptyChoices && i > 0 {
				// "choices": [] — nothing between the brackets.
				if j := skipSpaceBack(b, i-1); b[j] == '[' {
					c.emptyChoices = true
				}
			}
			depth--
			expectKey = false
			i++
			if depth == 0 {
				if skipSpace(b, i) != len(b) {
					return errBadJSON
				}
				if objectIsError {
					c.isError, c.errMsg = true, message
				}
				return nil
			}
			continue
		case ',':
			if afterComma || depth == 0 {
				return errBadJSON
			}
			if where[depth-1] == inChoices {
				elem++
			}
			expectKey, afterComma = stack[depth-1] == '{', true
			i++
			continue
		case ':':
			return errBadJSON // colons are consumed with their key
		}
		afterComma = false
		if ch != '"' {
			if expectKey {
				return errBadJSON
			}
			// A number or literal: skip to the next delimiter.
			j := i
			for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] > ' ' {
				j++
			}
			if j == i {
				return errBadJSON
			}
			i = j
			continue
		}
		str, next, err := scanString(b, i)
		if err != nil {
			return err
		}
		i = next
		if !expectKey {
			continue // a string value nobody asked for
		}
		expectKey = false
		i = skipSpace(b, i)
		if i >= len(b) || b[i] != ':' {
			return errBadJSON
		}
		i = skipSpace(b, i+1)
		if i >= len(b) {
			return errBadJSON
		}
		// A key: read the value here when it is one we want.
		ctx := where[depth-1]
		switch {
		case depth == 1:
			switch string(str) {
			case "choices":
				if b[i] == '[' {
					c.hasChoices, elem = true, 0
					stack[depth], where[depth] = '[', inChoices
					depth++
					i++
				}
			case "usage":
				if b[i] == '{' {
					stack[depth], where[depth] = '{', inUsage
					depth++
					expectKey = true
					i++
				}
			case "error":
				c.isError = true
				switch b[i] {
				case '{':
					stack[depth], where[depth] = '{', inError
					depth++
					expectKey = true
					i++
				case '"':
					c.errMsg, i, err = scanString(b, i)
				}
			case "object":
				if b[i] == '"' {
					var v []byte
					v, i, err = scanString(b, i)
					objectIsError = string(v) == "error"
				}
			case "message":
				if b[i] == '"' {
					message, i, err = scanString(b, i)
				}
			}
		case ctx == inChoice0:
			switch string(str) {
			case "text":
				if b[i] == '"' {
					var v []byte
					v, i, err = scanString(b, i)
					c.textLen = len(v)
				}
			case "finish_reason":
				c.finished = b[i] != 'n' // anything but null
			}
		case ctx == inUsage:
			switch string(str) {
			case "prompt_tokens":
				c.promptTokens, i, err = scanInt(b, i)
				c.hasUsage = true
			case "completion_tokens":
				c.completionTokens, i, err = scanInt(b, i)
				c.hasUsage = true
			}
		case ctx == inError:
			if string(str) == "message" && b[i] == '"' {
				c.errMsg, i, err = scanString(b, i)
			}
		}
		if err != nil {
			return err
		}
	}
	return errBadJSON // ran out of input with containers open
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

func skipSpaceBack(b []byte, i int) int {
	for i > 0 && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i--
	}
	return i
}

// scanString reads the string starting at the quote b[i] and returns its raw
// (still escaped) contents and the index after the closing quote. A quote
// preceded by an odd number of backslashes is escaped.
func scanString(b []byte, i int) ([]byte, int, error) {
	start := i + 1
	pos := start
	for {
		// Keys and most token texts are a few bytes long: a plain loop beats
		// the call overhead of IndexByte there; long texts get IndexByte.
		end := -1
		lim := min(len(b), pos+24)
		for j := pos; j < lim; j++ {
			if b[j] == '"' {
				end = j
				break
			}
		}
		if end < 0 {
			if lim == len(b) {
				return nil, 0, errBadJSON
			}
			k := bytes.IndexByte(b[lim:], '"')
			if k < 0 {
				return nil, 0, errBadJSON
			}
			end = lim + k
		}
		n := 0
		for k := end - 1; k >= start && b[k] == '\\'; k-- {
			n++
		}
		pos = end + 1
		if n%2 == 0 {
			return b[start:end], pos, nil
		}
	}
}

// scanInt reads a non-negative integer (null reads as 0); a fraction or
// exponent part is skipped. Other values are malformed here.
func scanInt(b []byte, i int) (int, int, error) {
	if i+4 <= len(b) && string(b[i:i+4]) == "null" {
		return 0, i + 4, nil
	}
	n, start := 0, i
	for i < len(b) && b[i] >= '0' && b[i] <= '9' {
		if n > 1<<40 {
			return 0, i, errBadJSON
		}
		n = n*10 + int(b[i]-'0')
		i++
	}
	if i == start {
		return 0, i, errBadJSON
	}
	for i < len(b) && (b[i] == '.' || b[i] == 'e' || b[i] == 'E' || b[i] == '+' || b[i] == '-' || (b[i] >= '0' && b[i] <= '9')) {
		i++
	}
	return n, i, nil
}

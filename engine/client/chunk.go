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
	// finished is true when choices[0].finish_reason is not null;
	// finishLength when it is "length".
	finished, finishLength bool
	// hasUsage is true when "usage" was an object with token counts.
	hasUsage                       bool
	promptTokens, completionTokens int
	// errMsg is set (a slice of the input) when the chunk is an error
	// object: {"error":{"message":…}} or {"object":"error","message":…}.
	errMsg  []byte
	isError bool
	// simTimeUS is the simulated time, in microseconds, of the chunk's last
	// token (ChunkTimeField, RigBench's simulator only); hasSimTime is set
	// when the chunk carried one.
	simTimeUS  int
	hasSimTime bool
}

var errBadJSON = errors.New("malformed JSON")

// maxDepth bounds nesting; deeper input is rejected as malformed.
const maxDepth = 64

// The objects whose keys a chunk reads.
const (
	inTop     = iota // the chunk itself
	inChoice0        // the first element of choices
	inUsage          // the usage object
	inError          // the error object
)

// parseChunk reads one data payload into c. It reads the few containers
// whose keys matter with one loop over an object's members (readObject),
// the choices array with readChoices, and skips every other value with
// skipValue: a forward scan with a fixed-size stack (no recursion, no
// allocation), strings skipped with IndexByte. Structure is checked as it
// goes (balanced brackets of the right kind, a colon after each key, no
// dangling commas), so malformed input is an error, never a panic.
func parseChunk(b []byte, c *chunk) error {
	*c = chunk{}
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return fmt.Errorf("chunk is not a JSON object: %w", errBadJSON)
	}
	var flat flatError
	i, err := readObject(b, i, inTop, 1, c, &flat)
	if err != nil {
		return err
	}
	if skipSpace(b, i) != len(b) {
		return errBadJSON
	}
	if flat.objectIsError {
		c.isError, c.errMsg = true, flat.message
	}
	return nil
}

// flatError holds what makes a flat error object ({"object":"error",
// "message":…}), known only once the chunk has been read.
type flatError struct {
	objectIsError bool
	message       []byte
}

// readObject reads the object that opens at b[i], at nesting depth, whose
// keys mean what they mean in the part in, and returns the index after it.
// Each member is a key, a colon and a value; the value of a key the chunk
// wants is read here, every other one skipped.
func readObject(b []byte, i int, in, depth int, c *chunk, flat *flatError) (int, error) {
	if i = skipSpace(b, i+1); i < len(b) && b[i] == '}' {
		return i + 1, nil
	}
	for {
		if i >= len(b) || b[i] != '"' {
			return i, errBadJSON
		}
		key, j, err := scanString(b, i)
		if err != nil {
			return j, err
		}
		if i = skipSpace(b, j); i >= len(b) || b[i] != ':' {
			return i, errBadJSON
		}
		if i = skipSpace(b, i+1); i >= len(b) {
			return i, errBadJSON
		}
		if i, err = readMember(b, i, in, depth, key, c, flat); err != nil {
			return i, err
		}
		switch i = skipSpace(b, i); {
		case i >= len(b):
			return i, errBadJSON
		case b[i] == '}':
			return i + 1, nil
		case b[i] != ',':
			return i, errBadJSON
		}
		i = skipSpace(b, i+1)
	}
}

// readMember reads the value at i of key, a key of an object playing the
// part in, and returns the index after the value. This one switch holds
// what every key the chunk reads means.
func readMember(b []byte, i int, in, depth int, key []byte, c *chunk, flat *flatError) (int, error) {
	var err error
	switch in {
	case inTop:
		switch string(key) {
		case "choices":
			if b[i] == '[' {
				return readChoices(b, i, depth+1, c, flat)
			}
		case "usage":
			if b[i] == '{' {
				return readObject(b, i, inUsage, depth+1, c, flat)
			}
		case "error":
			c.isError = true
			if b[i] == '{' {
				return readObject(b, i, inError, depth+1, c, flat)
			}
			if b[i] == '"' {
				c.errMsg, i, err = scanString(b, i)
				return i, err
			}
		case "object":
			flat.objectIsError = string(b[i:min(i+7, len(b))]) == `"error"`
		case "message":
			if b[i] == '"' {
				flat.message, i, err = scanString(b, i)
				return i, err
			}
		case ChunkTimeField:
			// A stamp that does not read as a whole number (too large,
			// negative) is left out, never a malformed chunk: it only
			// refines the arrival time.
			if v, j, err := scanInt(b, i); err == nil {
				c.simTimeUS, c.hasSimTime = v, true
				return j, nil
			}
		}
	case inChoice0:
		switch string(key) {
		case "text":
			if b[i] == '"' {
				var v []byte
				v, i, err = scanString(b, i)
				c.textLen = len(v)
				return i, err
			}
		case "finish_reason":
			c.finished = b[i] != 'n' // anything but null
			c.finishLength = bytes.HasPrefix(b[i:], []byte(`"length"`))
		}
	case inUsage:
		switch string(key) {
		case "prompt_tokens":
			c.hasUsage = true
			c.promptTokens, i, err = scanInt(b, i)
			return i, err
		case "completion_tokens":
			c.hasUsage = true
			c.completionTokens, i, err = scanInt(b, i)
			return i, err
		}
	case inError:
		if string(key) == "message" && b[i] == '"' {
			c.errMsg, i, err = scanString(b, i)
			return i, err
		}
	}
	// A value nobody reads. Strings and literals, nearly all of them, are
	// skipped here rather than through skipValue, saving a call.
	switch b[i] {
	case '"':
		_, i, err = scanString(b, i)
		return i, err
	case '{', '[':
		return skipValue(b, i, depth)
	}
	return skipLiteral(b, i)
}

// readChoices reads the choices array that opens at b[i]: its first
// element, when an object, is read for the text and the finish reason;
// the others are skipped. "choices": [] marks the final usage chunk of
// include_usage.
func readChoices(b []byte, i int, depth int, c *chunk, flat *flatError) (int, error) {
	c.hasChoices = true
	if i = skipSpace(b, i+1); i < len(b) && b[i] == ']' {
		c.emptyChoices = true
		return i + 1, nil
	}
	for elem := 0; ; elem++ {
		var err error
		if elem == 0 && i < len(b) && b[i] == '{' {
			i, err = readObject(b, i, inChoice0, depth+1, c, flat)
		} else {
			i, err = skipValue(b, i, depth)
		}
		if err != nil {
			return i, err
		}
		switch i = skipSpace(b, i); {
		case i >= len(b):
			return i, errBadJSON
		case b[i] == ']':
			return i + 1, nil
		case b[i] != ',':
			return i, errBadJSON
		}
		i = skipSpace(b, i+1)
	}
}

// skipValue skips the value at i, inside depth open containers: a string,
// a literal (number, true, false, null, read up to the next delimiter), or
// a whole array or object, whose structure it checks with a stack of the
// brackets still open.
func skipValue(b []byte, i int, depth int) (int, error) {
	switch {
	case i >= len(b):
		return i, errBadJSON
	case b[i] == '"':
		_, i, err := scanString(b, i)
		return i, err
	case b[i] != '{' && b[i] != '[':
		return skipLiteral(b, i)
	}
	var open [maxDepth]byte
	n := 0
	expectKey, afterComma := false, false // a key must come next; a bracket may not close here
	for i < len(b) {
		switch ch := b[i]; ch {
		case ' ', '\t', '\n', '\r':
			i++
		case '{', '[':
			if expectKey || depth+n >= maxDepth {
				return i, errBadJSON
			}
			open[n], n = ch, n+1
			expectKey, afterComma = ch == '{', false
			i++
		case '}', ']':
			if n == 0 || ch != open[n-1]+2 || afterComma { // '{'+2 == '}', '['+2 == ']'
				return i, errBadJSON
			}
			n, expectKey, i = n-1, false, i+1
			if n == 0 {
				return i, nil
			}
		case ',':
			if afterComma {
				return i, errBadJSON
			}
			expectKey, afterComma = open[n-1] == '{', true
			i++
		case ':':
			return i, errBadJSON // colons are consumed with their key
		case '"':
			var err error
			if _, i, err = scanString(b, i); err != nil {
				return i, err
			}
			if expectKey {
				if i = skipSpace(b, i); i >= len(b) || b[i] != ':' {
					return i, errBadJSON
				}
				i++
			}
			expectKey, afterComma = false, false
		default:
			var err error
			if i, err = skipLiteral(b, i); err != nil || expectKey {
				return i, errBadJSON
			}
			afterComma = false
		}
	}
	return i, errBadJSON // ran out of input with containers open
}

// skipLiteral skips a number, true, false or null at i, up to the next
// delimiter. The literal itself is not checked: the chunk never needs it.
func skipLiteral(b []byte, i int) (int, error) {
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ':' && b[j] > ' ' {
		j++
	}
	if j == i {
		return i, errBadJSON
	}
	return j, nil
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
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

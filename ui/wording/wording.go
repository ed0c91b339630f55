// Package wording shapes error and status text into the sentences the app
// shows: one plain sentence, capitalised and ending in a full stop, whatever
// lower-case fragment the engine, the store or Docker wrote.
package wording

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Sentence capitalises s and ends it with a full stop (unless it already
// ends with one, a question or an exclamation mark). Blank stays blank.
func Sentence(s string) string {
	s = strings.TrimSpace(s)
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	s = string(unicode.ToUpper(r)) + s[n:]
	if !strings.HasSuffix(s, ".") && !strings.HasSuffix(s, "?") && !strings.HasSuffix(s, "!") {
		s += "."
	}
	return s
}

// LowerFirst lowers the first letter of s, to continue a sentence with it.
func LowerFirst(s string) string {
	if s == "" {
		return s
	}
	r, n := utf8.DecodeRuneInString(s)
	return string(unicode.ToLower(r)) + s[n:]
}

// Count is "1 run" or "n runs": a count with its noun in the number the
// count asks for (a regular plural, noun + "s"), so no status reads
// "1 variants".
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}

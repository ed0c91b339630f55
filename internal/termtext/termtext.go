// Package termtext makes outside text safe to print on a terminal. Run
// names, notes and tags come from imported files, model names, versions and
// error messages from servers, log lines from containers: any of them may
// hold ESC (which starts a terminal control sequence: move the cursor, set
// the window title, on some terminals write files), BEL, NUL or a
// bidirectional override or mark, or a zero-width character, that reorders or hides what the user reads. Every terminal
// output of the CLI passes such text through Safe or SafeLines, which show
// those characters escaped, Go style (\x1b, \a, \x00, \u202e), instead of
// letting the terminal act on them.
package termtext

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// Safe returns s for one line of terminal output: every control character
// (C0 including newline and tab, DEL, C1), every bidirectional control and
// every byte that is not UTF-8 is escaped. Printable text, including
// non-ASCII letters, is unchanged.
func Safe(s string) string { return escape(s, false) }

// SafeLines is Safe for text that may span lines (notes, multi-line error
// messages): newline and tab are kept, everything else Safe escapes is
// escaped.
func SafeLines(s string) string { return escape(s, true) }

func escape(s string, lines bool) string {
	if clean(s, lines) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s) + 16)
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		switch {
		case r == utf8.RuneError && n <= 1:
			fmt.Fprintf(&b, `\x%02x`, s[i])
		case lines && (r == '\n' || r == '\t'):
			b.WriteRune(r)
		case needsEscape(r):
			b.WriteString(quoteRune(r))
		default:
			b.WriteString(s[i : i+n])
		}
		i += n
	}
	return b.String()
}

// clean reports whether s needs no change (the common case, no allocation).
func clean(s string, lines bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c < 0x20 && !(lines && (c == '\n' || c == '\t')) || c == 0x7f {
			return false
		}
		if c >= 0x80 {
			return !strings.ContainsFunc(s[i:], func(r rune) bool { return r == utf8.RuneError || needsEscape(r) }) && utf8.ValidString(s[i:])
		}
	}
	return true
}

// needsEscape reports the runes a terminal acts on rather than shows: C0
// and C1 controls, DEL, the bidirectional embeddings, overrides and
// isolates (U+202A–U+202E, U+2066–U+2069) and marks (LRM U+200E, RLM
// U+200F, ALM U+061C) that reorder the text around them, and the invisible
// zero-width characters (U+200B–U+200D, word joiner U+2060, BOM U+FEFF)
// that hide a difference between two names that look the same.
func needsEscape(r rune) bool {
	return r < 0x20 || r >= 0x7f && r <= 0x9f || r >= 0x202a && r <= 0x202e || r >= 0x2066 && r <= 0x2069 ||
		r >= 0x200b && r <= 0x200f || r == 0x061c || r == 0x2060 || r == 0xfeff
}

// quoteRune writes r as Go would in a string literal: \a \b \f \n \r \t \v,
// else \xNN below U+0100 and \uNNNN above.
func quoteRune(r rune) string {
	switch r {
	case '\a':
		return `\a`
	case '\b':
		return `\b`
	case '\f':
		return `\f`
	case '\n':
		return `\n`
	case '\r':
		return `\r`
	case '\t':
		return `\t`
	case '\v':
		return `\v`
	}
	if r < 0x100 {
		return fmt.Sprintf(`\x%02x`, r)
	}
	return fmt.Sprintf(`\u%04x`, r)
}

// Package redact is RigBench's one rule for hiding secrets (an API key, a
// Hugging Face token) in text a person reads or RigBench keeps: the
// server's answers and errors (engine/client), a container's log
// (engine/docker), command lines (engine/vllm's RedactArgs uses Mask).
// Every front end shows what these packages return, so no front end
// redacts on its own.
package redact

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mask is what stands where a secret was, everywhere RigBench hides one.
const Mask = "<redacted>"

// Anywhere is the length, in bytes, from which a secret is masked wherever
// it appears, inside a longer word too. A string that long in a log or a
// server's answer is the secret (real keys and tokens are dozens of
// characters), and a substring is still a leak.
const Anywhere = 4

// Redactor hides a fixed set of secrets. The rule, the same in every
// package that hides one:
//   - every secret is masked, whatever its length: a user who chose a
//     3-character API key gets it hidden in the container's log too;
//   - one of Anywhere bytes or more is masked wherever it appears;
//   - a shorter one (1 to 3 bytes) is masked where it stands as a word of
//     its own: not next to a letter, a digit, "_" or "-" (names in logs
//     are hyphenated: a model "k3y-model", a flag "--max-num-seqs"). "ab"
//     as the key hides "--api-key ab", "'ab'" and "ab.", not the "ab" of
//     "about" or of "ab-12", which would mask the log, not the secret;
//   - an empty secret hides nothing.
//
// The zero Redactor hides nothing.
type Redactor struct {
	long  *strings.Replacer // secrets of Anywhere bytes or more, longest first
	short []string          // shorter secrets, longest first
}

// New returns the Redactor of secrets; empty and repeated ones are dropped.
func New(secrets ...string) Redactor {
	var long, short []string
	for _, s := range secrets {
		switch {
		case s == "" || slices.Contains(long, s) || slices.Contains(short, s):
		case len(s) >= Anywhere:
			long = append(long, s)
		default:
			short = append(short, s)
		}
	}
	// The longest first, so a secret that holds another is masked whole.
	byLength := func(a, b string) int { return len(b) - len(a) }
	slices.SortStableFunc(long, byLength)
	slices.SortStableFunc(short, byLength)
	var r Redactor
	if len(long) > 0 {
		pairs := make([]string, 0, 2*len(long))
		for _, s := range long {
			pairs = append(pairs, s, Mask)
		}
		r.long = strings.NewReplacer(pairs...)
	}
	r.short = short
	return r
}

// Empty reports whether r hides nothing.
func (r Redactor) Empty() bool { return r.long == nil && len(r.short) == 0 }

// String returns s with r's secrets masked.
func (r Redactor) String(s string) string {
	if r.long != nil {
		s = r.long.Replace(s)
	}
	for _, sec := range r.short {
		s = maskWords(s, sec)
	}
	return s
}

// Bytes is String for a body read from the network.
func (r Redactor) Bytes(b []byte) []byte {
	if r.Empty() {
		return b
	}
	return []byte(r.String(string(b)))
}

// maskWords masks each occurrence of sec in s that stands as a word of its
// own: the runes on either side (in s as it came) are not word runes.
func maskWords(s, sec string) string {
	var b strings.Builder
	done := 0 // s[:done] is in b
	for from := 0; from < len(s); {
		i := strings.Index(s[from:], sec)
		if i < 0 {
			break
		}
		i += from
		end := i + len(sec)
		before, _ := utf8.DecodeLastRuneInString(s[:i]) // RuneError at the start: no word
		after, _ := utf8.DecodeRuneInString(s[end:])
		if wordRune(before) || wordRune(after) {
			from = i + 1 // inside a longer word; the next occurrence may overlap this one
			continue
		}
		b.WriteString(s[done:i])
		b.WriteString(Mask)
		done, from = end, end
	}
	if done == 0 {
		return s
	}
	b.WriteString(s[done:])
	return b.String()
}

// wordRune reports whether r continues a word: a letter, a digit, "_" or
// "-".
func wordRune(r rune) bool {
	return r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r)
}

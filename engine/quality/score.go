package quality

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"
)

// The scoring rules are the seed tool's, llm-inference-bench 0.4.29
// (llm_decode_bench.py, score_completion_profile and the helpers it calls),
// so an accuracy here means what it means there. Two differences come from
// Go's regexp: \d, \s and \b are ASCII here and Unicode in Python, which
// only matters for answers written in other scripts' digits or spaces.

// finalLine is the seed tool's extract_final_answer: the last non-empty
// line of text, trimmed (the whole text trimmed when it has none).
func finalLine(text string) string {
	lines := strings.FieldsFunc(text, func(r rune) bool {
		switch r {
		case '\n', '\r', '\v', '\f', 0x1c, 0x1d, 0x1e, 0x85, 0x2028, 0x2029: // str.splitlines' breaks
			return true
		}
		return false
	})
	for i := len(lines) - 1; i >= 0; i-- {
		if l := strings.TrimSpace(lines[i]); l != "" {
			return l
		}
	}
	return strings.TrimSpace(text)
}

// looseNumberRe is the seed tool's _LOOSE_NUMBER_RE: an optional sign,
// digits with optional thousands commas, an optional decimal part. "$" and
// "%" around it are simply not part of the match.
var looseNumberRe = regexp.MustCompile(`[-+]?\d[\d,]*(?:\.\d+)?`)

// lastNumber is the seed tool's parse_final_number_loose: the last number
// in s, commas removed; false when s holds none.
func lastNumber(s string) (float64, bool) {
	all := looseNumberRe.FindAllString(s, -1)
	for i := len(all) - 1; i >= 0; i-- {
		v, err := strconv.ParseFloat(strings.ReplaceAll(all[i], ",", ""), 64)
		if err == nil || math.IsInf(v, 0) { // Python's float() overflows to inf too
			return v, true
		}
	}
	return 0, false
}

// FormatNumber writes a number as answers record it: the shortest decimal
// that reads back as v ("1000", "-3.5").
func FormatNumber(v float64) string { return strconv.FormatFloat(v, 'f', -1, 64) }

// ExtractAnswer reads a model's final number by the seed tool's GSM8K rule
// (scorer dataset_gsm8k): the last number on the final non-empty line,
// else the last number anywhere in the text; "" when there is none
// (unparseable). "#### 7" on the last line reads 7; "the answer is $1,000."
// reads 1000.
func ExtractAnswer(text string) string {
	v, ok := lastNumber(finalLine(text))
	if !ok {
		if v, ok = lastNumber(text); !ok {
			return ""
		}
	}
	return FormatNumber(v)
}

// NumbersMatch is the seed tool's GSM8K comparison: math.isclose with an
// absolute tolerance of 1e-4 and no relative one.
func NumbersMatch(got, want string) bool {
	g, err1 := strconv.ParseFloat(got, 64)
	w, err2 := strconv.ParseFloat(want, 64)
	if (err1 != nil && !math.IsInf(g, 0)) || (err2 != nil && !math.IsInf(w, 0)) {
		return false
	}
	return g == w || math.Abs(g-w) <= 1e-4
}

// OptionLetters are the letters of up to ten options (MMLU-Pro has ten).
const OptionLetters = "ABCDEFGHIJ"

var (
	answerWordRe = regexp.MustCompile(`(?i)\banswer\b`)
	// bareLetterRe is the seed tool's _MC_BARE_LETTER_RE: a line that is
	// only a letter with markdown or punctuation around it ("**B.**").
	bareLetterRe = regexp.MustCompile("^[\\s>*_`#\\-\\(\\[]*([A-Ja-j])[\\s.):\\],!*_`\"']*$")
)

func isAlnum(r rune) bool {
	return r < utf8.RuneSelf && (r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
}

// letterAfter applies the rest of one of the seed tool's answer patterns
// at position i of s (just after a word "answer") and returns the letter
// it reads, or 0. tag is _MC_ANSWER_TAG_RE's rest: up to 12 characters that
// are not letters or digits, then a letter A–J of either case; otherwise
// _MC_ANSWER_IS_RE's: spaces, "is", spaces, up to 3 of *_`(["', then a
// capital A–J. Either letter must not be followed by a letter or digit
// (Python's lookahead, which Go's regexp lacks; the patterns leave no
// other way to match, so checking it after the fact is the same).
func letterAfter(s string, i int, tag bool) byte {
	rest := []rune(s[i:])
	j := 0
	if tag {
		for j < len(rest) && j < 12 && !isAlnum(rest[j]) {
			j++
		}
	} else {
		k := j
		for k < len(rest) && isSpace(rest[k]) {
			k++
		}
		if k == j || k+2 > len(rest) || strings.ToLower(string(rest[k:k+2])) != "is" {
			return 0
		}
		j = k + 2
		for j < len(rest) && isSpace(rest[j]) {
			j++
		}
		for n := 0; n < 3 && j < len(rest) && strings.ContainsRune("*_`([\"'", rest[j]); n++ {
			j++
		}
	}
	if j >= len(rest) {
		return 0
	}
	c := rest[j]
	if tag && c >= 'a' && c <= 'j' {
		c -= 'a' - 'A'
	}
	if c < 'A' || c > 'J' || (j+1 < len(rest) && isAlnum(rest[j+1])) {
		return 0
	}
	return byte(c)
}

func isSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f' || r == '\v'
}

// lastTagLetter is the last letter one pattern reads in s that is among
// allowed (the seed tool walks its matches from the end).
func lastTagLetter(s string, tag bool, allowed string) byte {
	locs := answerWordRe.FindAllStringIndex(s, -1)
	for k := len(locs) - 1; k >= 0; k-- {
		if c := letterAfter(s, locs[k][1], tag); c != 0 && strings.IndexByte(allowed, c) >= 0 {
			return c
		}
	}
	return 0
}

// ExtractLetter reads a model's chosen option by the seed tool's rule
// (extract_mc_letter, scorer dataset_mc_letter): the last "Answer: X" tag
// on the final non-empty line, else that line alone as a bare letter
// ("**B**"), else the last "Answer: X" tag in the whole text, else the
// last "answer is X"; only letters of the item's options count (at least
// A–B). "" means unparseable.
func ExtractLetter(text string, options int) string {
	allowed := OptionLetters[:max(2, min(options, len(OptionLetters)))]
	final := finalLine(text)
	if c := lastTagLetter(final, true, allowed); c != 0 {
		return string(c)
	}
	if m := bareLetterRe.FindStringSubmatch(final); m != nil {
		if c := strings.ToUpper(m[1]); strings.Contains(allowed, c) {
			return c
		}
	}
	for _, tag := range []bool{true, false} {
		if c := lastTagLetter(text, tag, allowed); c != 0 {
			return string(c)
		}
	}
	return ""
}

// scored is one answer read and judged by its item's scorer.
type scored struct {
	got                               string
	correct, unparseable, noAnswerCut bool
}

// score reads text's answer to it by scorer. An answer that cannot be read
// is unparseable, or, when the model stopped at max_tokens (finish reason
// "length"), truncated: it never answered (the seed tool's
// _no_answer_result); both are wrong.
func score(scorer Scorer, it DatasetItem, text, finishReason string) scored {
	var got string
	var correct bool
	switch scorer {
	case ScoreLetter:
		got = ExtractLetter(text, len(it.Options))
		correct = got != "" && got == it.Answer
	default:
		got = ExtractAnswer(text)
		correct = got != "" && NumbersMatch(got, it.Answer)
	}
	if got == "" {
		cut := strings.EqualFold(finishReason, "length")
		return scored{unparseable: !cut, noAnswerCut: cut}
	}
	return scored{got: got, correct: correct}
}

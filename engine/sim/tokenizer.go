package sim

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// The simulator's tokenizer is deterministic and deliberately not "one token
// per word", so clients must calibrate prompt lengths against /tokenize or
// usage.prompt_tokens as they would with a real model:
//
//   - add_special_tokens adds one BOS token at the start;
//   - text is split at white space into words, and each word into pieces of
//     up to 4 characters ("benchmarking" → "benc" "hmar" "king");
//   - a piece's id is an FNV-1a hash of its text (word-initial pieces hash
//     differently), folded into a 151,936-entry vocabulary;
//   - the chat template's markers "<|im_start|>" and "<|im_end|>" are one
//     special token each wherever they appear, as a Hugging Face tokenizer
//     treats its added tokens (ids as in Qwen's vocabulary); they also end
//     the word they touch.
const (
	vocabSize    = 151936
	bosToken     = 1
	maxPieceRune = 4
	imStartToken = 151644
	imEndToken   = 151645
)

// The chat template's markers (chat.go), special tokens to the tokenizer.
const (
	imStart = "<|im_start|>"
	imEnd   = "<|im_end|>"
)

// specialTokens are the added tokens the tokenizer recognises in text.
var specialTokens = [...]struct {
	text string
	id   uint32
}{{imStart, imStartToken}, {imEnd, imEndToken}}

// specialAt returns the special token text starts with, and its length in
// bytes (0 when none).
func specialAt(text string) (uint32, int) {
	if len(text) == 0 || text[0] != '<' {
		return 0, 0
	}
	for _, sp := range specialTokens {
		if strings.HasPrefix(text, sp.text) {
			return sp.id, len(sp.text)
		}
	}
	return 0, 0
}

// tokenize returns the token ids of text. ASCII runs take a fast path;
// other runes are decoded so a piece never splits one.
func tokenize(text string, addSpecial bool) []uint32 {
	ids := make([]uint32, 0, len(text)/4+2)
	if addSpecial {
		ids = append(ids, bosToken)
	}
	i := 0
	for i < len(text) {
		if id, n := specialAt(text[i:]); n > 0 {
			ids = append(ids, id)
			i += n
			continue
		}
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if isSpace(r) {
			i += size
			continue
		}
		// One word, cut into pieces of up to maxPieceRune runes.
		first := true
		for i < len(text) {
			start, n := i, 0
			for i < len(text) && n < maxPieceRune {
				r, size := rune(text[i]), 1
				if r >= utf8.RuneSelf {
					r, size = utf8.DecodeRuneInString(text[i:])
				}
				if isSpace(r) {
					break
				}
				if r == '<' {
					if _, sn := specialAt(text[i:]); sn > 0 {
						break // a special token ends the word
					}
				}
				i += size
				n++
			}
			if n == 0 {
				break
			}
			ids = append(ids, pieceID(text[start:i], first))
			first = false
			if n < maxPieceRune {
				break // the word ended
			}
		}
	}
	return ids
}

func isSpace(r rune) bool {
	if r < utf8.RuneSelf {
		return r == ' ' || r == '\n' || r == '\t' || r == '\r' || r == '\v' || r == '\f'
	}
	return unicode.IsSpace(r)
}

// pieceID hashes a piece (FNV-1a, 32 bit) into the vocabulary, above the
// special tokens 0–2.
func pieceID(piece string, wordStart bool) uint32 {
	h := uint32(2166136261)
	if wordStart {
		h = (h ^ ' ') * 16777619
	}
	for i := 0; i < len(piece); i++ {
		h = (h ^ uint32(piece[i])) * 16777619
	}
	return 3 + h%(vocabSize-3)
}

// outputPieces is what generated tokens spell: each is one token of the
// tokenizer above (at most 4 characters, a leading space marks a word
// start), so generated text re-tokenizes to about as many tokens.
var outputPieces = strings.Fields("the quick brown fox jumps over lazy dogs and runs far away into deep green hills where rain falls soft on old stone walls")

// outputText returns the text of generated tokens [from, to) of a request
// whose output stream is seeded by key.
func outputText(key uint64, from, to int) string {
	var b strings.Builder
	for k := from; k < to; k++ {
		b.WriteString(outputPiece(key, k))
	}
	return b.String()
}

// outputPiece is the text of generated token k: a word of up to 4
// characters with its leading space, one token for the tokenizer above.
func outputPiece(key uint64, k int) string {
	x := mix64(key ^ uint64(k)*0x9e3779b97f4a7c15)
	w := outputPieces[x%uint64(len(outputPieces))]
	if len(w) > maxPieceRune {
		w = w[:maxPieceRune]
	}
	return " " + w
}

// mix64 is SplitMix64's finaliser: a cheap, well-spread hash of a uint64.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	x ^= x >> 31
	return x
}

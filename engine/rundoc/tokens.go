package rundoc

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/hardware"
)

// ContextZeroTokens is the prompt length of context 0 (METHOD.md: Terms):
// the generation request alone, at the size llm-inference-bench sends it.
// That tool's context-0 request is one user message (its paragraph asking
// for a long article) as a chat: 105 tokens of text and 7 of the chat
// template (<|im_start|>user, <|im_end|>, <|im_start|>assistant and their
// newlines) by the simulator's tokenizer, 112 in all, which is what the
// published page's context-0 TTFTs were measured with. A minimal prompt of
// a few tokens reads a shorter TTFT than any published run (issue 35 item
// 5: 198 ms against 296 ms at 0 × 1 on the same simulator).
const ContextZeroTokens = 112

// PromptTokens is the prompt length, in tokens as the server counts them,
// of a cell at context C: C itself, or ContextZeroTokens at context 0.
func PromptTokens(context int) int {
	if context == 0 {
		return ContextZeroTokens
	}
	return context
}

// ContextLabel formats a token count the way METHOD.md labels contexts:
// binary K, so 16384 → "16K", 253952 → "248K", 0 → "0". Counts that are not
// a whole number of K print as plain integers.
func ContextLabel(tokens int) string {
	switch {
	case tokens == ContextMax:
		return "max"
	case tokens != 0 && tokens%1024 == 0:
		return strconv.Itoa(tokens/1024) + "K"
	default:
		return strconv.Itoa(tokens)
	}
}

// NotReported is how every view, report and message words a fact the
// server or the machine did not report (a KV capacity, a core count): an
// unknown is said as such, never printed as a 0.
const NotReported = hardware.NotReported

// TokensText is the one wording of a token count a server reports or a
// plan needs (a KV capacity, a max_model_len, what a cell's requests
// hold): every digit, grouped by thousands, "494,560 tokens", as vLLM's
// log prints its KV cache. No K here: a context's K is binary ("16K" is
// 16384, ContextLabel), so a K for capacities would be a second K.
// A count of 0 or less is one the server did not report (NotReported).
func TokensText(n int) string {
	if n <= 0 {
		return NotReported
	}
	return GroupDigits(n) + " tokens"
}

// GroupDigits writes n with a comma between thousands, "494,560".
func GroupDigits(n int) string {
	s := strconv.Itoa(n)
	neg := strings.HasPrefix(s, "-")
	s = strings.TrimPrefix(s, "-")
	var b strings.Builder
	for i, r := range s {
		if i > 0 && (len(s)-i)%3 == 0 {
			b.WriteByte(',')
		}
		b.WriteRune(r)
	}
	if neg {
		return "-" + b.String()
	}
	return b.String()
}

// maxTokens bounds parsed counts far above any model's context (1 G tokens)
// so multiplication by K or M cannot overflow.
const maxTokens = 1 << 30

// ParseTokens reads a token count: "16K" or "16k" = 16384, "1M" = 1048576,
// plain integers, and "max" = ContextMax.
func ParseTokens(s string) (int, error) {
	t := strings.TrimSpace(s)
	if strings.EqualFold(t, "max") {
		return ContextMax, nil
	}
	mult := 1
	switch {
	case strings.HasSuffix(t, "K"), strings.HasSuffix(t, "k"):
		mult, t = 1024, t[:len(t)-1]
	case strings.HasSuffix(t, "M"), strings.HasSuffix(t, "m"):
		mult, t = 1024*1024, t[:len(t)-1]
	}
	n, err := strconv.Atoi(strings.ReplaceAll(t, "_", ""))
	if err != nil || n < 0 || n > maxTokens/mult {
		return 0, fmt.Errorf("%q is not a token count (use e.g. 8192, 16K or max)", s)
	}
	return n * mult, nil
}

// ParseTokenList reads a comma-separated list of token counts ("0,16K,max").
func ParseTokenList(s string) ([]int, error) {
	var out []int
	for _, f := range strings.Split(s, ",") {
		if strings.TrimSpace(f) == "" {
			continue
		}
		n, err := ParseTokens(f)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("the list %q is empty", s)
	}
	return out, nil
}

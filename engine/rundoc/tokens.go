package rundoc

import (
	"fmt"
	"strconv"
	"strings"
)

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

package bench

import (
	"context"
	"fmt"
	"math"
	"strings"
	"sync"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Counter counts the tokens of a prompt as the server does: the server's
// /tokenize, or usage.prompt_tokens of a probe request with max_tokens 1.
type Counter func(ctx context.Context, prompt string) (int, error)

// fillerWords are common English words; real tokenizers give most of them
// one token with their leading space, so the words-per-token ratio is
// stable and prompt length is easy to steer.
var fillerWords = strings.Fields(`the of and to in is was for on are with as at be by this had not but from
or have an they which one you were her all she there would their we him been has when who will more no if
out so said what up its about into than them can only other new some could time these two may then do
first any my now such like our over man me even most made after also did many before must through back
years where much your way well down should because each just those people how too little state good very
make world still own see men work long get here between both life being under never day same another know
while last might us great old year off come since against go came right used take three`)

// Prompts builds prompts of an exact token length. Each prompt starts with
// a marker unique to the run and the request (METHOD.md: Prompts), inside
// the first 16-token KV block, so prefix caching can never share blocks
// between distinct requests; the rest is filler text.
//
// Length is steered by the number of filler words w. For a fixed marker
// width, tokens(w) ≈ base + r·w; Prompts measures base and r once, then for
// each target length iterates w ← w + (target − tokens(w))/r with the
// Counter until the count is exact (or within a token or two, as word
// boundaries allow), and caches w per target.
type Prompts struct {
	nonce string
	count Counter
	// exact is true when count is cheap (/tokenize): every target length
	// is verified. Otherwise lengths come from the calibrated ratio and
	// Correct refines it from the usage the server reports.
	exact bool

	mu    sync.Mutex
	base  int     // tokens of a marker-only prompt
	ratio float64 // tokens per filler word
	words map[int]int
	pads  map[int]int // pad words topping a target up (exact mode)
}

// NewPrompts returns a prompt builder for one run. nonce makes the run's
// prompts unique; exact says whether count may be called for every length.
func NewPrompts(nonce string, count Counter, exact bool) *Prompts {
	return &Prompts{nonce: nonce, count: count, exact: exact, words: map[int]int{}, pads: map[int]int{}}
}

// calibrationWords is the size of the probe used to measure the ratio.
const calibrationWords = 512

// Calibrate measures the marker's tokens and the tokens per filler word.
func (p *Prompts) Calibrate(ctx context.Context) error {
	base, err := p.count(ctx, p.text(0, 0))
	if err != nil {
		return fmt.Errorf("count prompt tokens: %w", err)
	}
	n, err := p.count(ctx, p.text(0, calibrationWords))
	if err != nil {
		return fmt.Errorf("count prompt tokens: %w", err)
	}
	if n <= base {
		return fmt.Errorf("the server counts %d tokens for a %d-word prompt and %d for an empty one: cannot calibrate prompt length", n, calibrationWords, base)
	}
	p.mu.Lock()
	p.base, p.ratio = base, float64(n-base)/calibrationWords
	p.mu.Unlock()
	return nil
}

// Tolerance is the largest acceptable error of a prompt's length (METHOD.md:
// 1% or 16 tokens, whichever is larger).
func Tolerance(target int) int { return max(16, target/100) }

// Prompt returns prompt number idx of the run for a cell at context
// target: a prompt of target tokens, or at context 0 of
// rundoc.ContextZeroTokens, the size of the generation request the seed
// tool sends alone (METHOD.md: Terms). A length at or below the marker's
// own gives the marker alone.
func (p *Prompts) Prompt(ctx context.Context, target, idx int) (string, error) {
	target = rundoc.PromptTokens(target)
	w, err := p.wordsFor(ctx, target)
	if err != nil {
		return "", err
	}
	p.mu.Lock()
	pad := p.pads[target]
	p.mu.Unlock()
	return p.text(idx, w) + strings.Repeat(padWord, pad), nil
}

// padWord is one token in common tokenizers (and the simulator's): a
// prompt that whole filler words leave a token or two short is topped up
// with it, so /tokenize-verified lengths are exact (issue 18).
const padWord = " a"

// maxPad is the most pad words a prompt gets.
const maxPad = 8

func (p *Prompts) wordsFor(ctx context.Context, target int) (int, error) {
	p.mu.Lock()
	if w, ok := p.words[target]; ok {
		p.mu.Unlock()
		return w, nil
	}
	base, ratio := p.base, p.ratio
	p.mu.Unlock()
	if ratio == 0 {
		return 0, fmt.Errorf("prompts are not calibrated")
	}
	if target <= base {
		return 0, nil
	}
	w := int(math.Round(float64(target-base) / ratio))
	pad := 0
	if p.exact {
		best, bestDiff := w, math.MaxInt
		under, underN := -1, 0 // the longest prompt below the target
		for range 8 {
			n, err := p.count(ctx, p.text(0, w))
			if err != nil {
				return 0, fmt.Errorf("count prompt tokens: %w", err)
			}
			d := target - n
			if abs(d) < bestDiff {
				best, bestDiff = w, abs(d)
			}
			if d > 0 && (under < 0 || n > underN) {
				under, underN = w, n
			}
			if d == 0 {
				break
			}
			step := int(math.Round(float64(d) / ratio))
			if step == 0 {
				step = sign(d)
			}
			w = max(0, w+step)
		}
		// Word boundaries can step over the target (a word of two tokens):
		// top the longest prompt below it up with one-token pad words.
		if bestDiff > 0 && under >= 0 && target-underN <= maxPad {
			k := target - underN
			n, err := p.count(ctx, p.text(0, under)+strings.Repeat(padWord, k))
			if err != nil {
				return 0, fmt.Errorf("count prompt tokens: %w", err)
			}
			if abs(target-n) < bestDiff {
				best, bestDiff, pad = under, abs(target-n), k
			}
		}
		if bestDiff > Tolerance(target) {
			return 0, fmt.Errorf("cannot build a prompt of %d tokens: the closest was %d tokens off", target, bestDiff)
		}
		w = best
	}
	p.mu.Lock()
	p.words[target] = w
	p.pads[target] = pad
	p.mu.Unlock()
	return w, nil
}

// Correct refines the ratio from a prompt whose real length the server
// reported (usage.prompt_tokens), for servers without /tokenize; target is
// the cell's context, as for Prompt. It reports whether the prompt was off
// by more than Tolerance.
func (p *Prompts) Correct(target, got int) (off bool) {
	target = rundoc.PromptTokens(target)
	if got <= 0 || target <= 0 {
		return false
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	w, ok := p.words[target]
	if !ok || w == 0 {
		return false
	}
	if got > p.base {
		p.ratio = float64(got-p.base) / float64(w)
	}
	off = abs(got-target) > Tolerance(target)
	if off || got != target {
		// Re-derive this target's word count from the corrected ratio.
		p.words[target] = max(0, int(math.Round(float64(target-p.base)/p.ratio)))
	}
	return off
}

// text renders prompt idx with w filler words. The marker has a fixed width
// so every prompt of a length tokenizes alike, and it opens with the
// prompt's own digits (lead): a server's prompt cache reuses the longest
// common prefix of two prompts token by token (llama-server per slot), so
// a marker that began with the same words for every prompt ("Request 0000…
// of run …") had a "cold" prefill reuse its first 8 tokens (issue 30
// item 2).
func (p *Prompts) text(idx, w int) string {
	var b strings.Builder
	b.Grow(24 + len(p.nonce) + w*6)
	fmt.Fprintf(&b, "%s: request %06d of run %s.", lead(p.nonce, idx), idx, p.nonce)
	for i := range w {
		b.WriteByte(' ')
		b.WriteString(fillerWords[(i*7+i/len(fillerWords))%len(fillerWords)])
	}
	return b.String()
}

// leadDigits is the width of a prompt's lead.
const leadDigits = 6

// lead is the first word of prompt idx of the run with this nonce: six
// digits that differ between any two prompts of a run (idx < 10⁶) and, for
// prompts of different runs, in all but one in a million cases. Digits
// tokenize to a count that depends only on their number, so every lead
// costs the same tokens; they are written least significant first, so
// prompts sent one after another differ from the first digit, where
// tokenizers that cut numbers into single digits or groups of three start.
// 7919 is a prime other than 2 and 5, so idx → idx·7919 + offset is a
// bijection modulo 10⁶.
func lead(nonce string, idx int) string {
	off := 0
	for _, ch := range nonce {
		off = (off*31 + int(ch)) % 1_000_000
	}
	v := (idx%1_000_000*7919 + off) % 1_000_000
	d := make([]byte, leadDigits)
	for i := range d {
		d[i] = byte('0' + v%10)
		v /= 10
	}
	return string(d)
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}

func sign(x int) int {
	if x < 0 {
		return -1
	}
	return 1
}

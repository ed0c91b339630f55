package quality

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DemoDatasetName names the project's own arithmetic set in GSM8K's layout.
const DemoDatasetName = "demo-arith"

// DemoChoiceName names the project's own multiple-choice set in MMLU-Pro's
// layout: the same problems with four options.
const DemoChoiceName = "demo-choice"

// DemoItems is the size of the demo's sets: GSM8K's test split's, so any
// gsm8k:N that fits one fits the other (and mmlu-pro:N up to 1,000), and
// always the same file (and sha256) whatever N a probe asks for.
const DemoItems = 1319

// splitMix is SplitMix64 from seed: a fixed sequence, the same on every
// platform; next(span) draws from [0, span).
func splitMix(seed uint64) func(span uint64) uint64 {
	x := seed
	return func(span uint64) uint64 {
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return (z ^ (z >> 31)) % span
	}
}

// demoProblem is one of the demo's word problems: "Start with 14. Add 6.
// Multiply by 3. What number do you get?", its worked steps, its result
// and its step count.
type demoProblem struct {
	question string
	work     []string
	result   int64
	steps    int
}

// demoProblems draws n problems: each starts from a number and applies two
// to four steps. The sequence is a pure function of n's prefix, so both
// demo sets hold the same problems.
func demoProblems(n int) []demoProblem {
	next := splitMix(0x5eed)
	out := make([]demoProblem, n)
	for i := range n {
		v := int64(2 + next(40))
		steps := 2 + int(next(3))
		q := []string{fmt.Sprintf("Start with %d.", v)}
		work := []string{}
		for range steps {
			k := int64(2 + next(9))
			var op string
			switch next(3) {
			case 0:
				op, v = fmt.Sprintf("Add %d.", k), v+k
			case 1:
				if v > k {
					op, v = fmt.Sprintf("Subtract %d.", k), v-k
				} else {
					op, v = fmt.Sprintf("Add %d.", k), v+k
				}
			default:
				op, v = fmt.Sprintf("Multiply by %d.", k), v*k
			}
			q = append(q, op)
			work = append(work, fmt.Sprintf("%s That gives %d.", op, v))
		}
		q = append(q, "What number do you get?")
		out[i] = demoProblem{question: strings.Join(q, " "), work: work, result: v, steps: steps}
	}
	return out
}

// DemoGSM8K writes n project-made word problems in GSM8K's JSONL layout,
// each answer its worked steps and "#### <result>". The set is a pure
// function of n, so its sha256 is too: the demo and the tests use it
// instead of GSM8K, whose text is never stored in the repository. The
// category is the step count. The simulator reads these steps as its model
// "solves" them.
func DemoGSM8K(n int) []byte {
	var buf bytes.Buffer
	for _, p := range demoProblems(n) {
		line, _ := json.Marshal(gsm8kLine{
			Question: p.question,
			Answer:   strings.Join(p.work, "\n") + fmt.Sprintf("\n#### %d", p.result),
			Category: fmt.Sprintf("%d steps", p.steps),
		})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

// DemoChoice writes the same n problems as multiple-choice items in
// MMLU-Pro's layout (ParseChoice, LayoutMMLUPro): four options, the result
// and three near misses (result + 1 … 9, distinct) in a drawn order, the
// answer its letter, the category the step count. The simulator answers
// "Answer: <letter>" to them, so the demo shows the letter scoring and
// per-category deltas.
func DemoChoice(n int) []byte {
	var buf bytes.Buffer
	next := splitMix(0xc401ce)
	for i, p := range demoProblems(n) {
		opts := []int64{p.result}
		for len(opts) < 4 {
			d := p.result + 1 + int64(next(9))
			fresh := true
			for _, o := range opts {
				fresh = fresh && o != d
			}
			if fresh {
				opts = append(opts, d)
			}
		}
		for j := len(opts) - 1; j > 0; j-- { // Fisher–Yates
			k := int(next(uint64(j + 1)))
			opts[j], opts[k] = opts[k], opts[j]
		}
		texts, answer := make([]string, 4), ""
		for j, o := range opts {
			texts[j] = fmt.Sprint(o)
			if o == p.result {
				answer = OptionLetters[j : j+1]
			}
		}
		line, _ := json.Marshal(choiceLine{QuestionID: float64(i + 1), Category: fmt.Sprintf("%d steps", p.steps),
			Question: p.question, Options: texts, Answer: answer})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

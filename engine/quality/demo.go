package quality

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
)

// DemoDatasetName names the project's own arithmetic set in GSM8K's layout.
const DemoDatasetName = "demo-arith"

// DemoItems is the size of the demo's set: GSM8K's test split's, so any
// gsm8k:N that fits one fits the other, and always the same file (and
// sha256) whatever N a probe asks for.
const DemoItems = 1319

// DemoGSM8K writes n project-made word problems in GSM8K's JSONL layout:
// each starts from a number and applies two to four steps ("Start with 14.
// Add 6. Multiply by 3. What number do you get?"), its answer the worked
// steps and "#### <result>". The set is a pure function of n, so its
// sha256 is too: the demo and the tests use it instead of GSM8K, whose
// text is never stored in the repository. The category is the step count.
// The simulator reads these steps as its model "solves" them.
func DemoGSM8K(n int) []byte {
	var buf bytes.Buffer
	x := uint64(0x5eed)
	next := func(span uint64) uint64 {
		// SplitMix64: a fixed sequence, the same on every platform.
		x += 0x9e3779b97f4a7c15
		z := x
		z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
		z = (z ^ (z >> 27)) * 0x94d049bb133111eb
		return (z ^ (z >> 31)) % span
	}
	for range n {
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
		line, _ := json.Marshal(gsm8kLine{
			Question: strings.Join(q, " "),
			Answer:   strings.Join(work, "\n") + fmt.Sprintf("\n#### %d", v),
			Category: fmt.Sprintf("%d steps", steps),
		})
		buf.Write(line)
		buf.WriteByte('\n')
	}
	return buf.Bytes()
}

package quality

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"math/big"
	"regexp"
	"strings"
)

// Dataset is a task data set read from its file: its items in the file's
// order and the file's sha256, which a comparison checks.
type Dataset struct {
	Name   string
	SHA256 string
	Items  []DatasetItem
}

// DatasetItem is one question with its reference answer.
type DatasetItem struct {
	// ID is "<data set>/<0-based line>", stable as long as the file is
	// (its sha256 says so).
	ID       string
	Category string
	Question string
	// Answer is the reference final number, normalised (NormalizeNumber).
	Answer string
}

// Ref is the data set's identity with the n items a probe uses.
func (d *Dataset) Ref(n int) *DatasetRef {
	return &DatasetRef{Name: d.Name, SHA256: d.SHA256, Items: n}
}

// Subset is the pinned subset of n items: the first n in the file's order,
// so every run of gsm8k:N on the same file asks the same questions (and a
// smaller N is a prefix of a larger one). n ≤ 0 or beyond the file takes
// every item.
func (d *Dataset) Subset(n int) []DatasetItem {
	if n <= 0 || n > len(d.Items) {
		return d.Items
	}
	return d.Items[:n]
}

// gsm8kLine is one line of GSM8K's JSONL: the question and a worked answer
// whose last line is "#### <number>". Category is not GSM8K's; a
// project-made file may set it.
type gsm8kLine struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Category string `json:"category"`
}

// ParseGSM8K reads GSM8K's JSONL layout (one {"question", "answer"} object
// per line, the answer ending in "#### <number>") and records the file's
// sha256. Blank lines are skipped; a line without its "####" answer is an
// error naming the line.
func ParseGSM8K(name string, data []byte) (*Dataset, error) {
	d := &Dataset{Name: name, SHA256: hexSHA(data)}
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 0; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		var l gsm8kLine
		if err := json.Unmarshal(text, &l); err != nil {
			return nil, fmt.Errorf("line %d of %s is not a JSON object (%v): the file is damaged, delete it to fetch it again", line+1, name, err)
		}
		i := strings.LastIndex(l.Answer, "####")
		want := ""
		if i >= 0 {
			want = NormalizeNumber(strings.TrimSpace(l.Answer[i+4:]))
		}
		if l.Question == "" || want == "" {
			return nil, fmt.Errorf("line %d of %s has no question or no \"#### <number>\" answer: it is not GSM8K's layout", line+1, name)
		}
		d.Items = append(d.Items, DatasetItem{ID: fmt.Sprintf("%s/%d", name, line), Category: l.Category, Question: l.Question, Answer: want})
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	if len(d.Items) == 0 {
		return nil, fmt.Errorf("%s holds no items: the file is empty or damaged, delete it to fetch it again", name)
	}
	return d, nil
}

// numberRe matches a number as GSM8K writes one: an optional sign, digits
// with optional thousands commas, an optional decimal part.
var numberRe = regexp.MustCompile(`[-+]?\$?\d[\d,]*(?:\.\d+)?`)

// NormalizeNumber writes a number the way answers compare: without "$",
// "+", thousands commas or a trailing zero decimal part ("1,000.00" →
// "1000", "-3.50" → "-3.5"); "" when s holds no number.
func NormalizeNumber(s string) string {
	m := numberRe.FindString(s)
	if m == "" {
		return ""
	}
	m = strings.NewReplacer(",", "", "$", "", "+", "").Replace(m)
	r, ok := new(big.Rat).SetString(m)
	if !ok {
		return ""
	}
	if r.IsInt() {
		return r.Num().String()
	}
	return strings.TrimRight(strings.TrimRight(r.FloatString(12), "0"), ".")
}

// ExtractAnswer reads the final number of a model's answer for GSM8K's
// exact final-number match (the scoring llm-inference-bench names; this
// is RigBench's own parse, METHOD.md states it): the first number after
// the last "####" when the text has one, else the last number in the
// text; normalised (NormalizeNumber). "" means unparseable.
func ExtractAnswer(text string) string {
	if i := strings.LastIndex(text, "####"); i >= 0 {
		if n := NormalizeNumber(text[i+4:]); n != "" {
			return n
		}
	}
	all := numberRe.FindAllString(text, -1)
	if len(all) == 0 {
		return ""
	}
	return NormalizeNumber(all[len(all)-1])
}

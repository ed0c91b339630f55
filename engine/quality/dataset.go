package quality

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Scorer names how a data set's answers are read and scored: the seed
// tool's (llm-inference-bench 0.4.29) profile scorers, whose rules
// score.go copies.
type Scorer string

const (
	// ScoreNumber is GSM8K's exact final-number match ("dataset_gsm8k").
	ScoreNumber Scorer = "number"
	// ScoreLetter is a multiple-choice option-letter match
	// ("dataset_mc_letter": MMLU-Pro, GPQA Diamond).
	ScoreLetter Scorer = "letter"
)

// Dataset is a task data set read from its file: its items in the file's
// order and the file's sha256, which a comparison checks.
type Dataset struct {
	Name   string
	SHA256 string
	// Scorer says how its answers are read (number or option letter).
	Scorer Scorer
	Items  []DatasetItem
}

// DatasetItem is one question with its reference answer.
type DatasetItem struct {
	// ID is stable as long as the file is (its sha256 says so): the seed
	// tool's id for its data sets ("gsm8k-0017", "mmlupro-70", "gpqa-rec…"),
	// "<data set>/<0-based line>" for the project's own.
	ID       string
	Category string
	Question string
	// Options are a multiple-choice item's options, lettered A, B, … in
	// this order; none for a number answer.
	Options []string
	// Answer is the reference: the final number (FormatNumber) or the
	// option letter.
	Answer string
}

// Ref is the data set's identity with the n items a probe uses.
func (d *Dataset) Ref(n int) *DatasetRef {
	return &DatasetRef{Name: d.Name, SHA256: d.SHA256, Items: n}
}

// Subset is the pinned subset of n items, the seed tool's
// stride_select_items (llm_decode_bench.py 0.4.29): item ⌊i·len/n⌋ for
// i = 0 … n−1, evenly spread over the file and in its order, so a subset
// of a file sorted by category (MMLU-Pro's) still covers every category,
// and every run of name:N on the same file asks the same questions. n ≤ 0
// or beyond the file takes every item.
func (d *Dataset) Subset(n int) []DatasetItem {
	total := len(d.Items)
	if n <= 0 || n >= total {
		return d.Items
	}
	out := make([]DatasetItem, n)
	for i := range n {
		out[i] = d.Items[i*total/n]
	}
	return out
}

// gsm8kLine is one line of GSM8K's JSONL: the question and a worked answer
// whose last line is "#### <number>". Category is not GSM8K's; a
// project-made file may set it.
type gsm8kLine struct {
	Question string `json:"question"`
	Answer   string `json:"answer"`
	Category string `json:"category,omitempty"`
}

// ParseGSM8K reads GSM8K's JSONL layout (one {"question", "answer"} object
// per line) and records the file's sha256. The reference is the seed tool's
// (load_benchmark_dataset_items, llm_decode_bench.py 0.4.29): the text after
// the answer's last "#### ", without thousands commas, read as a number.
// Items are named gsm8k-NNNN by line, the seed tool's ids, for GSM8K itself
// (name GSM8K.Name) and "<name>/<line>" otherwise. Blank lines are skipped;
// a line without its answer is an error naming the line.
func ParseGSM8K(name string, data []byte) (*Dataset, error) {
	d := &Dataset{Name: name, SHA256: hexSHA(data), Scorer: ScoreNumber}
	err := eachJSONLine(name, data, func(line int, text []byte) error {
		var l gsm8kLine
		if err := json.Unmarshal(text, &l); err != nil {
			return fmt.Errorf("line %d of %s is not a JSON object (%v): the file is damaged, delete it to fetch it again", line+1, name, err)
		}
		want := ""
		if i := strings.LastIndex(l.Answer, "#### "); i >= 0 {
			if v, err := strconv.ParseFloat(strings.ReplaceAll(strings.TrimSpace(l.Answer[i+5:]), ",", ""), 64); err == nil {
				want = FormatNumber(v)
			}
		}
		if strings.TrimSpace(l.Question) == "" || want == "" {
			return fmt.Errorf("line %d of %s has no question or no \"#### <number>\" answer: it is not GSM8K's layout", line+1, name)
		}
		id := fmt.Sprintf("%s/%d", name, line)
		if name == GSM8K.Name {
			id = fmt.Sprintf("gsm8k-%04d", len(d.Items))
		}
		d.Items = append(d.Items, DatasetItem{ID: id, Category: l.Category, Question: strings.TrimSpace(l.Question), Answer: want})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

// eachJSONLine calls do with each non-blank line of a JSONL file and its
// 0-based line number; a file with no line is an error.
func eachJSONLine(name string, data []byte, do func(line int, text []byte) error) error {
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	n := 0
	for line := 0; sc.Scan(); line++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 {
			continue
		}
		if err := do(line, text); err != nil {
			return err
		}
		n++
	}
	if err := sc.Err(); err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	if n == 0 {
		return fmt.Errorf("%s holds no items: the file is empty or damaged, delete it to fetch it again", name)
	}
	return nil
}

package quality

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// choiceLine is one multiple-choice item in the seed tool's JSONL layouts
// (llm_decode_bench.py 0.4.29, load_benchmark_dataset_items): MMLU-Pro's
// {question_id, category, question, options, answer} and the GPQA Diamond
// file it builds, {record_id, category, subdomain, question, options,
// answer, answer_index}. answer is the option letter.
type choiceLine struct {
	QuestionID any      `json:"question_id,omitempty"`
	RecordID   any      `json:"record_id,omitempty"`
	Category   string   `json:"category"`
	Question   string   `json:"question"`
	Options    []string `json:"options"`
	Answer     string   `json:"answer"`
}

// ChoiceLayout says which of the seed tool's multiple-choice layouts a
// file is in: its ids and how many options an item has.
type ChoiceLayout int

const (
	// LayoutMMLUPro is MMLU-Pro's: up to ten options, ids
	// "mmlupro-<question_id>".
	LayoutMMLUPro ChoiceLayout = iota
	// LayoutGPQA is GPQA Diamond's: exactly four options, ids
	// "gpqa-<record_id>".
	LayoutGPQA
)

// ParseChoice reads a multiple-choice data set in one of the seed tool's
// layouts and records the file's sha256. Its checks are the seed tool's: a
// question, options (four for GPQA), and an answer that is one of the
// options' letters; a line that fails them is an error naming the line.
// The category (MMLU-Pro's subject, GPQA's high-level domain) gives the
// per-category deltas.
func ParseChoice(name string, layout ChoiceLayout, data []byte) (*Dataset, error) {
	d := &Dataset{Name: name, SHA256: hexSHA(data), Scorer: ScoreLetter}
	err := eachJSONLine(name, data, func(line int, text []byte) error {
		var l choiceLine
		if err := json.Unmarshal(text, &l); err != nil {
			return fmt.Errorf("line %d of %s is not a multiple-choice item (%v): the file is damaged, delete it to fetch it again", line+1, name, err)
		}
		idx := len(d.Items)
		q, ans := strings.TrimSpace(l.Question), strings.ToUpper(strings.TrimSpace(l.Answer))
		nOpt := len(l.Options)
		okOpts := nOpt > 0 && nOpt <= len(OptionLetters)
		id := "mmlupro-" + idOf(l.QuestionID, idx, true)
		if layout == LayoutGPQA {
			okOpts = nOpt == 4
			id = "gpqa-" + idOf(l.RecordID, idx, false)
		}
		if q == "" || !okOpts || len(ans) != 1 || !strings.Contains(OptionLetters[:nOpt], ans) {
			return fmt.Errorf("line %d of %s has no question, no options or an answer that is not one of its option letters: it is not the %s layout", line+1, name, layoutName(layout))
		}
		d.Items = append(d.Items, DatasetItem{ID: id, Category: l.Category, Question: q, Options: l.Options, Answer: ans})
		return nil
	})
	if err != nil {
		return nil, err
	}
	return d, nil
}

func layoutName(l ChoiceLayout) string {
	if l == LayoutGPQA {
		return "GPQA Diamond"
	}
	return "MMLU-Pro"
}

// idOf writes an item's id the way the seed tool does: MMLU-Pro's
// int(question_id or idx), GPQA's str(record_id or idx); a missing or
// empty id falls back to the item's index.
func idOf(v any, idx int, integer bool) string {
	switch x := v.(type) {
	case float64:
		if x != 0 {
			return strconv.FormatInt(int64(x), 10)
		}
	case string:
		if s := strings.TrimSpace(x); s != "" {
			if !integer {
				return x
			}
			if n, err := strconv.ParseInt(s, 10, 64); err == nil {
				return strconv.FormatInt(n, 10)
			}
			return s
		}
	}
	return strconv.Itoa(idx)
}

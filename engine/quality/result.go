package quality

import (
	"encoding/json"
	"fmt"
	"io"
	"time"
)

// Kind names the quality document's format.
const Kind = "rigbench.quality/v1"

// Result is one probe's outcome against one endpoint: the document
// `rigbench-cli quality --json` writes and `--baseline` reads
// (rigbench.quality/v1, docs/quality.md). A Result holds every item's
// answer, so two of them on the same items compare pair by pair.
type Result struct {
	// Kind is always Kind.
	Kind string `json:"kind"`
	// Source is "" for a result RigBench measured, and names the tool and
	// version for one imported from another tool's file
	// ("llm-inference-bench 0.4.29", seedfile.go).
	Source string `json:"source,omitempty"`
	// Probe is what was measured, as the user names it ("gsm8k:200",
	// "agreement").
	Probe string `json:"probe"`
	// Profile is the probe's settings that decide its answers (prompt
	// template, max_tokens, temperature, logprobs): two results compare
	// only when their profiles are equal.
	Profile string `json:"profile"`
	// Dataset is the data set the items came from; nil for the agreement
	// probe, whose prompts are the project's own (their set's sha256 is in
	// Profile).
	Dataset *DatasetRef `json:"dataset,omitempty"`
	// Endpoint, Model and Flags say what answered: the server's address
	// (without credentials), its model id, and the launch flags where
	// RigBench launched it (the simulator's for --demo).
	Endpoint string   `json:"endpoint"`
	Model    string   `json:"model"`
	Flags    []string `json:"flags,omitempty"`
	// Simulated is true when the simulator answered (--demo, or a server
	// whose /version says so).
	Simulated bool `json:"simulated,omitempty"`
	// Started is when the probe began.
	Started time.Time `json:"started"`
	// Items are a task probe's answers, in the data set's order.
	Items []Item `json:"items,omitempty"`
	// Prompts are the agreement probe's greedy continuations.
	Prompts []PromptTokens `json:"prompts,omitempty"`
}

// DatasetRef identifies a data set exactly: its name, the sha256 of the file
// its items were read from, and how many of them the probe used.
type DatasetRef struct {
	Name   string `json:"name"`
	SHA256 string `json:"sha256"`
	Items  int    `json:"items"`
}

// Item is one task item's answer.
type Item struct {
	// ID is the item's stable id in its data set ("gsm8k/17").
	ID string `json:"id"`
	// Category groups items for per-category deltas ("" when the data set
	// has none).
	Category string `json:"category,omitempty"`
	// Want is the reference answer; Got the answer parsed from the
	// model's text ("" when none could be).
	Want string `json:"want"`
	Got  string `json:"got,omitempty"`
	// Correct is Got == Want by the data set's scoring rule.
	Correct bool `json:"correct"`
	// Unparseable is true when the model finished but no answer could be
	// read from its text (the seed tool's "unparseable").
	Unparseable bool `json:"unparseable,omitempty"`
	// Truncated is true when no answer could be read and the model stopped
	// at max_tokens: it never answered (the seed tool's "truncated", a
	// token-budget artifact rather than a format miss).
	Truncated bool `json:"truncated,omitempty"`
	// HitMaxTokens is true when the answer stopped at max_tokens
	// (finish_reason "length"), whether or not an answer was read.
	HitMaxTokens bool `json:"hit_max_tokens,omitempty"`
	// CompletionTokens is usage.completion_tokens of the answer.
	CompletionTokens int `json:"completion_tokens"`
	// Error is the request's error, when it failed; such an item counts
	// as wrong and unparseable.
	Error string `json:"error,omitempty"`
}

// PromptTokens is one agreement prompt's greedy continuation: the tokens
// and, at each position, the top-k logprobs the server reported.
type PromptTokens struct {
	// ID names the prompt in the project's set ("arith-1").
	ID string `json:"id"`
	// Tokens are the generated tokens' texts.
	Tokens []string `json:"tokens"`
	// TopLogprobs are the top-k alternatives per position, token text to
	// natural-log probability.
	TopLogprobs []map[string]float64 `json:"top_logprobs"`
}

// Accuracy is a task probe's share of correct items with its Wilson 95%
// interval, and the counts that qualify it.
type Accuracy struct {
	Correct     int      `json:"correct"`
	N           int      `json:"n"`
	Share       float64  `json:"share"`
	CI95        Interval `json:"ci95"`
	Unparseable int      `json:"unparseable"`
	Truncated   int      `json:"truncated"`
	HitMax      int      `json:"hit_max_tokens"`
	// MeanTokens is the mean of the items' completion tokens.
	MeanTokens float64 `json:"mean_completion_tokens"`
}

// Accuracy summarises a task probe's items (Wilson).
func (r *Result) Accuracy() Accuracy { return accuracyOf(r.Items) }

// accuracyOf summarises items: the share right with its Wilson interval
// and the counts that qualify it.
func accuracyOf(items []Item) Accuracy {
	a := Accuracy{N: len(items)}
	var tok int
	for _, it := range items {
		if it.Correct {
			a.Correct++
		}
		if it.Unparseable {
			a.Unparseable++
		}
		if it.Truncated {
			a.Truncated++
		}
		if it.HitMaxTokens {
			a.HitMax++
		}
		tok += it.CompletionTokens
	}
	if a.N > 0 {
		a.Share = float64(a.Correct) / float64(a.N)
		a.MeanTokens = float64(tok) / float64(a.N)
	}
	a.CI95 = Wilson(a.Correct, a.N)
	return a
}

// Write writes r as indented JSON.
func (r *Result) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// Read reads a quality result: a rigbench.quality/v1 document, or
// llm-inference-bench's completion-stats report (seedfile.go), told apart
// by their shape. Anything else is refused with the sentence the user
// reads.
func Read(rd io.Reader) (*Result, error) {
	data, err := io.ReadAll(io.LimitReader(rd, maxResultBytes+1))
	if err != nil {
		return nil, fmt.Errorf("cannot read the result (%v)", err)
	}
	if len(data) > maxResultBytes {
		return nil, fmt.Errorf("the file is larger than %d MiB, far more than a quality result: give a file that `rigbench-cli quality --json` or %s wrote", maxResultBytes>>20, SeedTool)
	}
	var head struct {
		Kind string `json:"kind"`
	}
	if err := json.Unmarshal(data, &head); err != nil {
		return nil, fmt.Errorf("this is not a quality result (%v): give a file that `rigbench-cli quality --json` or %s's completion-stats mode wrote", err, SeedTool)
	}
	if head.Kind == Kind {
		var r Result
		if err := json.Unmarshal(data, &r); err != nil {
			return nil, fmt.Errorf("this %s document is damaged (%v): give the file `rigbench-cli quality --json` wrote, unedited", Kind, err)
		}
		return &r, nil
	}
	if r, ok, err := readSeed(data); ok {
		return r, err
	}
	what := "a JSON object of another kind"
	if head.Kind != "" {
		what = fmt.Sprintf("a %q document", head.Kind)
	}
	return nil, fmt.Errorf("this file is %s, neither a RigBench quality result (%s) nor %s's completion-stats report (metadata.mode %q with runs): give a file that `rigbench-cli quality --json` or %s wrote", what, Kind, SeedTool, seedMode, SeedTool)
}

// maxResultBytes bounds a result file: a seed report of GSM8K's 1,319
// items with their texts is a few MiB.
const maxResultBytes = 256 << 20

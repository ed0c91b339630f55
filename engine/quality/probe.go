package quality

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	"github.com/rigbench/rigbench/engine/client"
)

// Answerer is what a probe needs of an endpoint: one whole greedy
// completion (engine/client's Client is one).
type Answerer interface {
	Greedy(ctx context.Context, req client.GreedyRequest) (client.GreedyAnswer, error)
}

var _ Answerer = (*client.Client)(nil)

// Prompt versions name the wording of each scorer's prompt: a change to
// the wording (or to the scoring or the pinned subset) is a new version, so
// results asked or scored differently never pair. gsm8k-v1 took the first N
// items and RigBench's own number parse; v2 takes the seed tool's evenly
// spread subset and its scoring (score.go).
const (
	numberPromptVersion = "gsm8k-v2"
	letterPromptVersion = "mc-letter-v1"
)

// taskPrompt asks one GSM8K question zero-shot, asking for the final line
// the scoring rule reads ("#### <number>": the last number on the last
// line, as the seed tool's rule reads it).
const taskPrompt = "Solve the math problem. Think step by step, then write the final answer as a number on its own last line, after \"#### \".\n\nQuestion: %s\nAnswer:"

// choicePrompt is the seed tool's MMLU_PRO_PROMPT_TEMPLATE
// (llm_decode_bench.py 0.4.29), which it uses for MMLU-Pro and GPQA
// Diamond alike: the question, its options lettered "A. …" one a line, and
// the request to end with "Answer: <letter>".
const choicePrompt = "Answer the following multiple-choice question.\n\n%s\n\nOptions:\n%s\n\nReason as needed, then end your response with only the chosen option letter on the last line, in the form:\nAnswer: <letter>"

// Defaults of a task probe.
const (
	// DefaultTaskMaxTokens bounds each answer: GSM8K's worked answers
	// take well under 300 tokens; one that reaches the bound counts as
	// truncated.
	DefaultTaskMaxTokens = 512
	// DefaultConcurrency is how many items are asked at once: the probe
	// measures answers, not speed, and a few at once keeps a card busy.
	DefaultConcurrency = 8
)

// TaskProbe asks the pinned subset of a data set, each item one request
// at temperature 0, and scores each answer by its data set's rule (score.go:
// exact final-number match, or option-letter match).
type TaskProbe struct {
	// Name is the probe as the user named it ("gsm8k:200").
	Name    string
	Dataset *Dataset
	// N is how many items (Dataset.Subset: evenly spread); 0 takes them all.
	N int
	// MaxTokens of each answer (DefaultTaskMaxTokens when 0).
	MaxTokens int
	// Concurrency is how many items are in flight (DefaultConcurrency
	// when 0).
	Concurrency int
	// Progress, when set, is told after each item.
	Progress func(done, total int)
	// Now is the clock that stamps Result.Started (time.Now when nil).
	Now func() time.Time
}

// Profile is the settings that decide the probe's answers; results pair
// only when theirs are equal.
func (p TaskProbe) Profile() string {
	version := numberPromptVersion
	if p.Dataset.Scorer == ScoreLetter {
		version = letterPromptVersion
	}
	return fmt.Sprintf("%s max_tokens=%d temperature=0", version, p.maxTokens())
}

func (p TaskProbe) maxTokens() int {
	if p.MaxTokens > 0 {
		return p.MaxTokens
	}
	return DefaultTaskMaxTokens
}

// Header is the result's identity before the probe runs (kind, probe,
// settings, data set): what Comparable checks, so a front end can refuse
// a baseline before asking anything.
func (p TaskProbe) Header() *Result {
	return &Result{Kind: Kind, Probe: p.Name, Profile: p.Profile(), Dataset: p.Dataset.Ref(len(p.Dataset.Subset(p.N)))}
}

// Run asks model every item and returns the result. A failed request
// ends the probe with its error: a half-asked data set is no measurement.
func (p TaskProbe) Run(ctx context.Context, a Answerer, model string) (*Result, error) {
	items := p.Dataset.Subset(p.N)
	res := p.Header()
	res.Model, res.Started = model, now(p.Now)
	res.Items = make([]Item, len(items))
	err := forEach(ctx, len(items), p.Concurrency, p.Progress, func(ctx context.Context, i int) error {
		it := items[i]
		ans, err := a.Greedy(ctx, client.GreedyRequest{Model: model, Prompt: ItemPrompt(p.Dataset.Scorer, it), MaxTokens: p.maxTokens()})
		if err != nil {
			return fmt.Errorf("item %s: %w", it.ID, err)
		}
		s := score(p.Dataset.Scorer, it, ans.Text, ans.FinishReason)
		res.Items[i] = Item{ID: it.ID, Category: it.Category, Want: it.Answer, Got: s.got, Correct: s.correct,
			Unparseable: s.unparseable, Truncated: s.noAnswerCut, HitMaxTokens: ans.FinishReason == "length", CompletionTokens: ans.CompletionTokens}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// TaskPrompt is the prompt a task probe sends for a GSM8K-style question:
// the demo's simulator and tests read it.
func TaskPrompt(question string) string { return fmt.Sprintf(taskPrompt, question) }

// ItemPrompt is the prompt a task probe sends for item under scorer: a
// number question's TaskPrompt, or a multiple-choice item's choicePrompt.
func ItemPrompt(scorer Scorer, it DatasetItem) string {
	if scorer != ScoreLetter {
		return TaskPrompt(it.Question)
	}
	opts := make([]string, len(it.Options))
	for i, o := range it.Options {
		opts[i] = fmt.Sprintf("%c. %s", OptionLetters[i], o)
	}
	return fmt.Sprintf(choicePrompt, it.Question, strings.Join(opts, "\n"))
}

func now(clock func() time.Time) time.Time {
	if clock == nil {
		return time.Now().UTC()
	}
	return clock()
}

// forEach runs do(i) for i in [0, n) with at most conc at once, and stops
// at the first error (the others are cancelled).
func forEach(ctx context.Context, n, conc int, progress func(done, total int), do func(ctx context.Context, i int) error) error {
	if conc <= 0 {
		conc = DefaultConcurrency
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	var (
		mu   sync.Mutex
		done int
		wg   sync.WaitGroup
	)
	next := make(chan int)
	for range min(conc, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range next {
				if err := do(ctx, i); err != nil {
					cancel(err)
					continue
				}
				mu.Lock()
				done++
				if progress != nil {
					progress(done, n)
				}
				mu.Unlock()
			}
		}()
	}
feed:
	for i := range n {
		select {
		case next <- i:
		case <-ctx.Done():
			break feed
		}
	}
	close(next)
	wg.Wait()
	if err := context.Cause(ctx); err != nil {
		return err
	}
	return nil
}

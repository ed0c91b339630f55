package quality

import (
	"context"
	"fmt"
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

// taskPromptVersion names taskPrompt: a change to the wording is a new
// version, so results asked differently never pair.
const taskPromptVersion = "gsm8k-v1"

// taskPrompt asks one GSM8K question zero-shot, asking for the final line
// the scoring rule reads ("#### <number>").
const taskPrompt = "Solve the math problem. Think step by step, then write the final answer as a number on its own last line, after \"#### \".\n\nQuestion: %s\nAnswer:"

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
// at temperature 0, and scores each answer by exact final-number match.
type TaskProbe struct {
	// Name is the probe as the user named it ("gsm8k:200").
	Name    string
	Dataset *Dataset
	// N is how many items (the first N); 0 takes them all.
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
	return fmt.Sprintf("%s max_tokens=%d temperature=0", taskPromptVersion, p.maxTokens())
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
		ans, err := a.Greedy(ctx, client.GreedyRequest{Model: model, Prompt: fmt.Sprintf(taskPrompt, it.Question), MaxTokens: p.maxTokens()})
		if err != nil {
			return fmt.Errorf("item %s: %w", it.ID, err)
		}
		got := ExtractAnswer(ans.Text)
		res.Items[i] = Item{ID: it.ID, Category: it.Category, Want: it.Answer, Got: got, Correct: got != "" && got == it.Answer,
			Unparseable: got == "", HitMaxTokens: ans.FinishReason == "length", CompletionTokens: ans.CompletionTokens}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return res, nil
}

// TaskPrompt is the prompt a task probe sends for question: the demo's
// simulator and tests read it.
func TaskPrompt(question string) string { return fmt.Sprintf(taskPrompt, question) }

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

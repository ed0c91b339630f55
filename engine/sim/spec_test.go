package sim

import (
	"bytes"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/client"
)

// TestSpeculativeConfigFlag: --speculative-config reads vLLM's JSON, names
// a model's own MTP head "mtp", and refuses what vLLM refuses in its
// argparse wording.
func TestSpeculativeConfigFlag(t *testing.T) {
	for _, tc := range []struct {
		v      string
		method string
		k      int
	}{
		{`{"method":"mtp","num_speculative_tokens":2}`, "mtp", 2},
		{`{"method":"deepseek_mtp","num_speculative_tokens":1}`, "mtp", 1},
		{`{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4}`, "ngram", 4},
		{`{"model":"yuhuili/EAGLE-LLaMA3-Instruct-8B","num_speculative_tokens":3}`, "draft_model", 3},
		{`{"method":"eagle3","model":"x","num_speculative_tokens":5}`, "eagle3", 5},
	} {
		c, err := ParseArgs([]string{"--speculative-config", tc.v})
		if err != nil || c.Speculative == nil || c.Speculative.Method != tc.method || c.Speculative.Tokens != tc.k {
			t.Errorf("%s: %+v, %v; want %s with %d tokens", tc.v, c.Speculative, err, tc.method, tc.k)
		}
	}
	if c, err := ParseArgs([]string{"--speculative-config", "{}"}); err != nil || c.Speculative != nil {
		t.Errorf("{} turns speculation off: %+v, %v", c.Speculative, err)
	}
	for v, want := range map[string]string{
		`{"method":"mtp"`: "invalid loads value",
		`{"method":"medusa2","num_speculative_tokens":2}`: "method 'medusa2' is not supported",
		`{"method":"mtp"}`: "num_speculative_tokens must be provided",
		`{"method":"mtp","num_speculative_tokens":0}`: "between 1 and 16",
		`{"num_speculative_tokens":2}`:                "no \"method\"",
	} {
		_, err := ParseArgs([]string{"--speculative-config", v})
		var ae *ArgError
		if !errors.As(err, &ae) || !strings.Contains(err.Error(), want) {
			t.Errorf("%s: %v, want an argparse error with %q", v, err, want)
		}
	}
}

// TestSpeculativeDecodeCounters runs requests through a speculative core
// and checks what the derivations rest on: every drafted step
// emits its accepted drafts + 1, so the output tokens are first tokens +
// drafts + accepted; acceptance per position falls with depth; the
// acceptance rate is the profile's expectation; the truth's sequence-steps
// are the steps that produced tokens; and /metrics exports vLLM's four
// counters with their types.
func TestSpeculativeDecodeCounters(t *testing.T) {
	p := noAPI(tinyProfile())
	const k, n, out = 3, 8, 400
	c := testCore(p, 4096, limits{maxNumSeqs: 16, maxNumBatchedTokens: 512})
	c.spec = &Speculation{Method: "mtp", Tokens: k}
	var reqs []*seq
	for i := range n {
		prompt := make([]uint32, 32)
		for j := range prompt {
			prompt[j] = uint32(100 + 7*i + j)
		}
		r := req(string(rune('a'+i)), prompt, out)
		r.key = uint64(i + 1)
		c.add(r, 0)
		reqs = append(reqs, r)
	}
	runToEnd(t, c, reqs)
	sc := c.count.spec
	if got := c.count.generationTokens; got != n*out {
		t.Fatalf("generated %d tokens, want %d (every request to max_tokens)", got, n*out)
	}
	if got := int64(n) + sc.drafts + sc.accepted; got != c.count.generationTokens {
		t.Errorf("first tokens %d + drafts %d + accepted %d = %d, want the %d generated", n, sc.drafts, sc.accepted, got, c.count.generationTokens)
	}
	if sc.draftTokens != k*sc.drafts {
		t.Errorf("draft tokens %d, want k × drafts = %d", sc.draftTokens, k*sc.drafts)
	}
	for i := 1; i < k; i++ {
		if sc.perPos[i] > sc.perPos[i-1] {
			t.Errorf("position %d accepted %d, more than position %d's %d", i, sc.perPos[i], i-1, sc.perPos[i-1])
		}
	}
	var sum int64
	for _, x := range sc.perPos {
		sum += x
	}
	if sum != sc.accepted {
		t.Errorf("per-position accepted add up to %d, want %d", sum, sc.accepted)
	}
	pr := p.Spec.Probabilities("mtp", k, 0)
	want := ExpectedAccepted(pr) / k
	if rate := float64(sc.accepted) / float64(sc.draftTokens); math.Abs(rate-want) > 0.03 {
		t.Errorf("acceptance rate %.3f, want the profile's %.3f ± 0.03", rate, want)
	}
	var truth SpecTruth
	for _, r := range c.specLog {
		truth.SeqSteps += r.seqSteps
		truth.Drafts += r.drafts
		truth.Accepted += r.accepted
		truth.Tokens += r.out
	}
	if truth.Tokens != n*out || int64(truth.Drafts) != sc.drafts || int64(truth.Accepted) != sc.accepted || truth.SeqSteps != n+truth.Drafts {
		t.Errorf("truth %+v against counters %+v", truth, sc)
	}

	var b bytes.Buffer
	s := &Server{core: c, cfg: Config{KVCacheDtype: "auto"}, prof: p, model: "m"}
	s.writeMetrics(&b)
	text := b.String()
	m, err := client.ParseMetrics(&b)
	if err != nil {
		t.Fatal(err)
	}
	if m.Spec == nil || m.Spec.Drafts != float64(sc.drafts) || m.Spec.DraftTokens != float64(sc.draftTokens) ||
		m.Spec.Accepted != float64(sc.accepted) || len(m.Spec.AcceptedPerPos) != k || m.Spec.AcceptedPerPos[0] != float64(sc.perPos[0]) {
		t.Errorf("metrics read back %+v, want %+v", m.Spec, sc)
	}
	for _, typ := range []string{"# TYPE vllm:spec_decode_num_drafts_total counter", "# TYPE vllm:spec_decode_num_accepted_tokens_per_pos_total counter",
		`position="2"`} {
		if !strings.Contains(text, typ) {
			t.Errorf("/metrics lacks %q", typ)
		}
	}
}

// TestNGramAcceptsMoreOnRepetitiveText: the n-gram drafter copies spans of
// the prompt, so a prompt that repeats itself is drafted far better than
// one that does not; a trained head gains a little.
func TestNGramAcceptsMoreOnRepetitiveText(t *testing.T) {
	varied := make([]uint32, 600)
	repeated := make([]uint32, 600)
	for i := range varied {
		varied[i] = uint32(mix64(uint64(i)) % vocabSize)
		repeated[i] = uint32(10 + i%12)
	}
	rv, rr := Repetition(varied), Repetition(repeated)
	if rv > 0.01 || rr < 0.95 {
		t.Fatalf("repetition %.3f (varied) and %.3f (repeated)", rv, rr)
	}
	m := DefaultSpecModel()
	ng := ExpectedAccepted(m.Probabilities("ngram", 4, rr)) / ExpectedAccepted(m.Probabilities("ngram", 4, rv))
	mtp := ExpectedAccepted(m.Probabilities("mtp", 4, rr)) / ExpectedAccepted(m.Probabilities("mtp", 4, rv))
	if ng < 5 || mtp < 1 || mtp > 1.6 {
		t.Errorf("repetitive text accepts %.1f× more with ngram and %.2f× with mtp", ng, mtp)
	}
}

// TestSpeculativeStepCost: drafting adds its stated share per drafted
// token, n-gram drafting nothing, and a profile whose drafting and
// verification cost nothing steps exactly as fast as without speculation.
func TestSpeculativeStepCost(t *testing.T) {
	p := noAPI(tinyProfile())
	work := []chunk{{s: &seq{}, start: 100, n: 1}, {s: &seq{}, start: 100, n: 1}}
	plain := testCore(p, 64, limits{}).stepCost(work)
	c := testCore(p, 64, limits{})
	c.spec = &Speculation{Method: "mtp", Tokens: 2}
	m := p.Spec
	want := (plain + m.VerifyPerTokenS*4) * (1 + 2*m.DraftShare)
	if got := c.stepCost(work); math.Abs(got-want) > 1e-12 {
		t.Errorf("mtp:2 step %.6g s, want %.6g", got, want)
	}
	c.spec.Method = "ngram"
	if got := c.stepCost(work); math.Abs(got-(plain+m.VerifyPerTokenS*4)) > 1e-12 {
		t.Errorf("ngram:2 step %.6g s, want %.6g (verification only)", got, plain+m.VerifyPerTokenS*4)
	}
	c.prof.Spec.DraftShare, c.prof.Spec.VerifyPerTokenS = 0, 0
	c.spec.Method = "mtp"
	if got := c.stepCost(work); got != plain {
		t.Errorf("free drafting: step %.6g s, want %.6g", got, plain)
	}
}

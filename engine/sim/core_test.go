package sim

import (
	"math"
	"testing"
)

func testCore(p Profile, blocks int, lim limits) *core {
	if lim.blockSize == 0 {
		lim.blockSize = 16
	}
	return newCore(p, lim, blocks)
}

// run steps the core until every request finished, returning the steps run.
func runToEnd(t *testing.T, c *core, reqs []*seq) int {
	t.Helper()
	steps := 0
	for {
		done := true
		for _, r := range reqs {
			if r.state != stateDone {
				done = false
			}
		}
		if done {
			return steps
		}
		next, ok := c.nextEvent()
		if !ok {
			t.Fatal("engine idle with unfinished requests")
		}
		c.idleUntil(next)
		c.step()
		steps++
		if steps > 1e6 {
			t.Fatal("no progress")
		}
	}
}

func req(id string, prompt []uint32, out int) *seq {
	return &seq{id: id, prompt: prompt, stopAt: out, stopReason: "length"}
}

func noAPI(p Profile) Profile {
	p.APIBaseS, p.APIPerTokenS, p.APILogS = 0, 0, 0
	return p
}

func TestContinuousBatchingRespectsMaxNumSeqs(t *testing.T) {
	c := testCore(noAPI(DefaultProfile()), 1000, limits{maxNumSeqs: 2, maxNumBatchedTokens: 2048})
	var reqs []*seq
	for i := range 5 {
		r := req("r", seqTokens(10, uint32(i)), 20)
		reqs = append(reqs, r)
		c.add(r, 0)
	}
	c.step()
	if len(c.running) != 2 || len(c.waiting) != 3 {
		t.Fatalf("running %d waiting %d, want 2 and 3", len(c.running), len(c.waiting))
	}
	runToEnd(t, c, reqs)
	// The third request starts when one of the first two finishes.
	if reqs[2].scheduledAt < reqs[0].finishedAt-1e-9 {
		t.Errorf("third request scheduled at %v before the first finished at %v", reqs[2].scheduledAt, reqs[0].finishedAt)
	}
	if c.count.generationTokens != 100 {
		t.Errorf("generated %d tokens, want 100", c.count.generationTokens)
	}
}

func TestChunkedPrefillSharesBudgetWithDecode(t *testing.T) {
	c := testCore(noAPI(DefaultProfile()), 1000, limits{maxNumSeqs: 8, maxNumBatchedTokens: 512})
	dec := req("d", seqTokens(8, 1), 100)
	c.add(dec, 0)
	c.step() // prefill of the short prompt, first token
	long := req("l", seqTokens(2000, 2), 1)
	c.add(long, c.now)
	c.promote()
	work := c.schedule()
	if len(work) != 2 || work[0].s != dec || work[0].n != 1 || work[1].s != long || work[1].n != 511 {
		t.Fatalf("step work = %+v, want a decode of 1 and a prefill chunk of 511", work)
	}
}

func TestPrefixCacheHitNeverCoversLastToken(t *testing.T) {
	c := testCore(noAPI(DefaultProfile()), 1000, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048, prefixCaching: true})
	prompt := seqTokens(64, 9) // exactly 4 blocks
	a := req("a", prompt, 1)
	c.add(a, 0)
	runToEnd(t, c, []*seq{a})
	b := req("b", prompt, 1)
	c.add(b, c.now)
	runToEnd(t, c, []*seq{b})
	if b.cached != 48 {
		t.Errorf("cached %d tokens, want 48 (the block holding the last token is recomputed)", b.cached)
	}
	if c.count.prefixHits != 48 || c.count.prefixQueries != 128 {
		t.Errorf("hits %d queries %d", c.count.prefixHits, c.count.prefixQueries)
	}
	// Prefix caching off: no hits.
	c2 := testCore(noAPI(DefaultProfile()), 1000, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048})
	x, y := req("x", prompt, 1), req("y", prompt, 1)
	c2.add(x, 0)
	runToEnd(t, c2, []*seq{x})
	c2.add(y, c2.now)
	runToEnd(t, c2, []*seq{y})
	if y.cached != 0 {
		t.Errorf("prefix caching off, yet %d tokens cached", y.cached)
	}
}

func TestPrefixHitMakesTTFTShort(t *testing.T) {
	p := noAPI(DefaultProfile())
	c := testCore(p, 10000, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048, prefixCaching: true})
	prompt := seqTokens(32768, 5)
	cold := req("cold", prompt, 1)
	c.add(cold, 0)
	runToEnd(t, c, []*seq{cold})
	warm := req("warm", prompt, 1)
	c.add(warm, c.now)
	runToEnd(t, c, []*seq{warm})
	coldTTFT, warmTTFT := cold.firstTokenAt-cold.arrival, warm.firstTokenAt-warm.arrival
	if warmTTFT > coldTTFT/100 {
		t.Errorf("warm TTFT %.3fs is not much shorter than cold %.3fs", warmTTFT, coldTTFT)
	}
}

func TestWaitingQueueWhenCacheIsFull(t *testing.T) {
	// 10 blocks of 16 = 160 tokens: two requests of 100 tokens cannot both
	// be admitted; the second waits until the first finishes.
	c := testCore(noAPI(DefaultProfile()), 10, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048})
	a, b := req("a", seqTokens(100, 1), 2), req("b", seqTokens(100, 2), 2)
	c.add(a, 0)
	c.add(b, 0)
	c.step()
	if a.state != stateRunning || b.state != stateWaiting {
		t.Fatalf("states a=%v b=%v, want running and waiting", a.state, b.state)
	}
	runToEnd(t, c, []*seq{a, b})
	if b.scheduledAt < a.finishedAt {
		t.Errorf("b admitted at %v before a finished at %v", b.scheduledAt, a.finishedAt)
	}
	if c.pool.free() != 10 {
		t.Errorf("%d blocks free after all finished, want 10", c.pool.free())
	}
}

func TestPreemptionByRecompute(t *testing.T) {
	// 8 blocks = 128 tokens. Two requests of 40-token prompts that each
	// grow to 100 tokens cannot both finish without a preemption.
	c := testCore(noAPI(DefaultProfile()), 8, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048})
	a, b := req("a", seqTokens(40, 1), 60), req("b", seqTokens(40, 2), 60)
	c.add(a, 0)
	c.add(b, 0)
	runToEnd(t, c, []*seq{a, b})
	if c.count.preemptions == 0 {
		t.Fatal("no preemption although the cache could not hold both")
	}
	if a.output != 60 || b.output != 60 || c.count.generationTokens != 120 {
		t.Errorf("outputs %d, %d (generated %d); a preempted request must keep its tokens", a.output, b.output, c.count.generationTokens)
	}
	// The later request is the victim: it finishes after the first.
	if b.finishedAt <= a.finishedAt {
		t.Errorf("b finished at %v, a at %v; the newest request should be preempted", b.finishedAt, a.finishedAt)
	}
}

func TestAbortFreesBlocks(t *testing.T) {
	c := testCore(noAPI(DefaultProfile()), 100, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048})
	a := req("a", seqTokens(300, 1), 1000)
	c.add(a, 0)
	for range 5 {
		c.step()
	}
	if c.pool.free() == 100 {
		t.Fatal("running request holds no blocks")
	}
	before := c.count.generationTokens
	c.abort(a)
	if c.pool.free() != 100 || len(c.running) != 0 || !a.aborted {
		t.Fatalf("after abort: free %d running %d", c.pool.free(), len(c.running))
	}
	if out := c.step(); out != nil || c.count.generationTokens != before {
		t.Error("an aborted request kept generating")
	}
}

func TestTimeModel(t *testing.T) {
	p := DefaultProfile()
	c := testCore(p, 10, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048})
	s := &seq{}
	// A prefill chunk costs linear plus quadratic in its positions.
	got := c.stepCost([]chunk{{s, 1000, 2000}})
	want := p.StepBaseS + p.PrefillPerTokenS*2000 + p.PrefillAttentionS*(3000.0*3000-1000.0*1000)
	if math.Abs(got-want) > 1e-12 {
		t.Errorf("prefill chunk cost %v, want %v", got, want)
	}
	// Whole-prompt prefill grows faster than linearly: per token, 128K costs
	// more than 8K.
	perTok := func(n int) float64 { return c.stepCost([]chunk{{s, 0, n}}) / float64(n) }
	if perTok(131072) < 2*perTok(8192) {
		t.Errorf("prefill per token at 128K (%v) not well above 8K (%v)", perTok(131072), perTok(8192))
	}
	// Decode steps grow with batch size and with context.
	batch := func(b, ctx int) float64 {
		w := make([]chunk, b)
		for i := range w {
			w[i] = chunk{s, ctx, 1}
		}
		return c.stepCost(w)
	}
	if !(batch(1, 0) < batch(8, 0) && batch(8, 0) < batch(32, 0)) {
		t.Errorf("decode step does not grow with batch: %v %v %v", batch(1, 0), batch(8, 0), batch(32, 0))
	}
	if !(batch(4, 0) < batch(4, 16384) && batch(4, 16384) < batch(4, 65536)) {
		t.Errorf("decode step does not grow with context")
	}
	// Reference anchor: one sequence at context 0 decodes at about 50 tok/s.
	if r := 1 / batch(1, 0); r < 45 || r > 55 {
		t.Errorf("single-stream decode %.1f tok/s, want about 50", r)
	}
}

func TestAPIServerIsSerial(t *testing.T) {
	p := DefaultProfile()
	p.APIBaseS, p.APIPerTokenS, p.APILogS = 0.1, 0, 0
	c := testCore(p, 1000, limits{maxNumSeqs: 8, maxNumBatchedTokens: 2048})
	a, b := req("a", seqTokens(10, 1), 1), req("b", seqTokens(10, 2), 1)
	c.add(a, 0)
	c.add(b, 0)
	if a.readyAt != 0.1 || math.Abs(b.readyAt-0.2) > 1e-12 {
		t.Errorf("ready at %v and %v, want 0.1 and 0.2", a.readyAt, b.readyAt)
	}
	if next, _ := c.nextEvent(); next != 0.1 {
		t.Errorf("next event %v, want 0.1", next)
	}
}

// The waiting gauge counts what the scheduler left waiting, as vLLM's
// scheduler stats do: a request that arrived during a step is not in it,
// one that finds no seat is, and an abort takes it out.
func TestWaitingGaugeIsTheSchedulersView(t *testing.T) {
	c := testCore(noAPI(DefaultProfile()), 1000, limits{maxNumSeqs: 1, maxNumBatchedTokens: 2048})
	a := req("a", seqTokens(10, 1), 50)
	c.add(a, 0)
	c.step()
	b := req("b", seqTokens(10, 2), 50)
	c.add(b, c.now) // arrives while a's step runs
	c.promote()     // b is in the queue, but no schedule has seen it yet
	if g := c.waitingGauge(); g != 0 {
		t.Errorf("gauge %d before a schedule saw b, want 0", g)
	}
	c.step() // no seat for b: max_num_seqs is 1
	if g := c.waitingGauge(); g != 1 || b.state != stateWaiting {
		t.Errorf("gauge %d with b left waiting (state %v), want 1", g, b.state)
	}
	c.abort(b)
	if g := c.waitingGauge(); g != 0 {
		t.Errorf("gauge %d after b was aborted, want 0", g)
	}
}

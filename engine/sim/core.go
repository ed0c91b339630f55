package sim

import (
	"math"
)

// seqState is where a request is inside the engine.
type seqState int

const (
	stateAPI     seqState = iota // in the API server (tokenising), not yet scheduled
	stateWaiting                 // in the scheduler's waiting queue
	stateRunning                 // scheduled: prefilling or decoding
	stateDone                    // finished or aborted
)

// seq is one request inside the engine. Fields are owned by the core (and
// read by the server under the same lock).
type seq struct {
	id     string
	prompt []uint32
	hashes []uint64 // chained hashes of the prompt's full blocks
	key    uint64   // seeds the output text
	salt   uint64   // cache_salt: separates prefix caches (0: none)
	// stopAt is the output length at which the request finishes: max_tokens,
	// or a natural EOS length when EOS is not ignored (never below min_tokens).
	stopAt       int
	stopReason   string // "length" or "stop"
	arrival      float64
	readyAt      float64 // leaves the API server
	scheduledAt  float64 // first scheduled (queue time ends)
	started      bool    // scheduled at least once
	firstTokenAt float64
	finishedAt   float64

	state    seqState
	computed int // tokens whose KV is computed (prompt, then outputs)
	output   int // tokens generated
	hashed   int // prompt blocks registered in the cache
	cached   int // prompt tokens served from the prefix cache (first schedule)
	// prefilled counts the prompt tokens the engine computed for this
	// request, recomputations after a preemption included: 0 for one
	// cancelled before it was scheduled, whatever cached says then.
	prefilled int
	blocks    []int
	aborted   bool
	failed    bool // ran out of KV under failOnFull
	// lastTokenAt is the simulated time of the latest generated token.
	lastTokenAt float64
	// slot is the llama-server slot the request holds (slotted: one was
	// given, see slotCache).
	slot    int
	slotted bool
	// specP are the acceptance probabilities of the request's drafts
	// (SpecModel.Probabilities for its prompt), set at its first drafted
	// step; nil without speculation.
	specP []float64
}

// known is the number of tokens the sequence holds: prompt plus outputs.
func (s *seq) known() int { return len(s.prompt) + s.output }

// limits are the scheduler settings from the command line.
type limits struct {
	maxNumSeqs          int
	maxNumBatchedTokens int
	prefixCaching       bool
	blockSize           int
	// maxModelLen bounds the buckets of the prefill-tokens histogram.
	maxModelLen int
	// failOnFull: a request the KV pool cannot hold fails instead of
	// preempting or waiting (llama-server's shared pool, personality_llama.go).
	failOnFull bool
}

// counters are vLLM's cumulative metrics.
type counters struct {
	promptTokens     int64
	generationTokens int64
	prefixQueries    int64
	prefixHits       int64
	preemptions      int64
	finished         int64
	steps            int64
	// promptComputed and promptCached split the prompt tokens of requests
	// whose prefill completed (their first token) by where their KV came
	// from, as vLLM's prompt_tokens_by_source does: computed here
	// (local_compute) or found in the prefix cache (local_cache_hit).
	promptComputed int64
	promptCached   int64
	// spec are vLLM's spec_decode counters (a speculative launch only).
	spec specCounters
}

// emission is what one step produced for one sequence.
type emission struct {
	s        *seq
	tokens   int // 0, 1, or accepted drafts + 1 on a speculative step
	finished bool
}

// core is the engine in simulated time: the API-server queue, the scheduler
// with its waiting and running queues, the KV block pool and the time model.
// It never reads a clock; callers advance it with step. It is not safe for
// concurrent use (the server guards it with its mutex).
type core struct {
	prof Profile
	lim  limits
	pool *blockPool
	now  float64 // simulated seconds
	// worked is the clock at the end of the engine's last step: an idle
	// engine's clock runs on with the wall clock (idleUntil), but nothing
	// happened in it after worked (addAt).
	worked float64

	apiFree float64 // when the serial API server is next free
	// stalls are the spans, in order, in which the engine takes a request
	// in and runs no step (Profile.APIStallShare).
	stalls  []span
	api     []*seq // in the API server, by readyAt
	waiting []*seq
	running []*seq
	// leftWaiting is how many requests the last schedule left waiting.
	leftWaiting int
	count       counters
	hist        histograms
	failed      []*seq // failed under failOnFull, drained by the server
	// noise varies step times (Config.Noise); steps records each noisy
	// step for TrueRate. Both are nil without noise.
	noise *stepNoise
	steps []stepRecord
	// slots is llama-server's per-slot prompt cache (slots.go), which
	// replaces the block prefix cache; nil for the other personalities.
	slots *slotCache
	// cold is a fresh server's first prompt computing slower than later
	// ones (llama-server, coldStart); nil for the other personalities.
	cold *coldStart
	// spec is the launch's speculative decoding (nil: none), and specLog
	// its ground truth, one record per step (SpecTruth).
	spec    *Speculation
	specLog []specRecord
}

func newCore(p Profile, lim limits, numBlocks int) *core {
	return &core{prof: p, lim: lim, pool: newBlockPool(numBlocks), hist: newHistograms(lim.maxModelLen)}
}

// add admits a request arriving at simulated time at (not before the
// engine's present). The API server handles one request at a time, so its
// ready time queues behind the previous request's.
func (c *core) add(s *seq, at float64) {
	c.addAt(s, max(at, c.now))
}

// addAt admits a request that arrived at simulated time at, which may lie
// before the engine's present (a step that ran while its handler read it):
// the API server, which runs beside the engine, took it from then; the
// engine sees it at its next step.
func (c *core) addAt(s *seq, at float64) {
	if at < c.now && len(c.running) == 0 && len(c.waiting) == 0 && len(c.api) == 0 {
		// An idle engine's clock followed the wall clock past the
		// request's arrival while its handler waited for the host (a busy
		// machine starts it late): nothing happened in between, so the
		// engine takes the request from its arrival, as the card would
		// have, never from before its last step's end. Left at the wall
		// clock, 8K×4's cached streams on llama-server read a TTFT of
		// 0.7–1.2 s of card time under -race beside other work, against
		// 0.16 s of steps.
		c.now = max(at, c.worked)
	}
	s.arrival = at
	start := math.Max(at, c.apiFree)
	cost := c.prof.apiCost(len(s.prompt))
	s.readyAt = start + cost
	c.apiFree = s.readyAt
	if sh := c.prof.APIStallShare; sh > 0 {
		c.stalls = append(c.stalls, span{s.readyAt - min(sh, 1)*cost, s.readyAt})
	}
	s.state = stateAPI
	s.hashes = blockHashes(s.prompt, c.lim.blockSize, s.salt)
	c.api = append(c.api, s)
}

// abort removes a request wherever it is and frees its blocks (a client
// disconnect). Its tokens stop counting from here on.
func (c *core) abort(s *seq) {
	if s.state == stateDone {
		return
	}
	s.aborted = true
	c.finish(s)
	c.worked = max(c.worked, c.now) // its slot and blocks came free now
}

// finish takes s out of every queue and frees its blocks.
func (c *core) finish(s *seq) {
	switch s.state {
	case stateAPI:
		c.api = removeSeq(c.api, s)
	case stateWaiting:
		c.waiting = removeSeq(c.waiting, s)
	case stateRunning:
		c.running = removeSeq(c.running, s)
	}
	c.pool.release(s.blocks)
	s.blocks = nil
	s.state = stateDone
	s.finishedAt = c.now
	if s.slotted {
		c.slots.free(s.slot)
		s.slotted = false
	}
}

func removeSeq(q []*seq, s *seq) []*seq {
	for i, x := range q {
		if x == s {
			return append(q[:i], q[i+1:]...)
		}
	}
	return q
}

// waitingGauge is vllm:num_requests_waiting: the requests the scheduler left
// waiting at its last step (fewer if some were aborted since). vLLM
// publishes its scheduler's stats after each schedule, so a request that
// arrives during a step is not counted: the next step admits it unless the
// budget, a seat or KV blocks are short. Counting it would make every
// arrival look like a queue for up to a step, and a host that runs the
// engine late (a loaded machine) stretch that into seconds.
func (c *core) waitingGauge() int { return min(c.leftWaiting, len(c.waiting)) }

// busy reports whether a step would do work now.
func (c *core) busy() bool {
	c.promote()
	return len(c.running) > 0 || len(c.waiting) > 0
}

// nextEvent returns when the engine next has work: now when a step can run,
// else when the next request leaves the API server; false when idle.
func (c *core) nextEvent() (float64, bool) {
	if c.busy() {
		return c.now, true
	}
	if len(c.api) > 0 {
		return c.api[0].readyAt, true
	}
	return 0, false
}

// idleUntil moves the clock of an idle engine forward (never backwards).
func (c *core) idleUntil(t float64) {
	if t > c.now {
		c.now = t
	}
}

// promote moves requests whose API-server time has passed into the waiting
// queue, in arrival order.
func (c *core) promote() {
	n := 0
	for n < len(c.api) && c.api[n].readyAt <= c.now {
		c.api[n].state = stateWaiting
		c.waiting = append(c.waiting, c.api[n])
		n++
	}
	if n > 0 {
		c.api = append(c.api[:0], c.api[n:]...)
	}
}

// blocksFor is the number of blocks that hold n tokens.
func (c *core) blocksFor(n int) int { return (n + c.lim.blockSize - 1) / c.lim.blockSize }

// grow gives s the blocks to hold tokens more tokens; false when the pool
// is short.
func (c *core) grow(s *seq, tokens int) bool {
	need := c.blocksFor(s.computed+tokens) - len(s.blocks)
	if need <= 0 {
		return true
	}
	ids := c.pool.allocate(need)
	if ids == nil {
		return false
	}
	s.blocks = append(s.blocks, ids...)
	return true
}

// preempt evicts a running sequence by recompute: its blocks are freed (the
// full prompt blocks stay cached until evicted) and it goes back to the
// front of the waiting queue with its outputs kept, to be prefilled again.
func (c *core) preempt(s *seq) {
	c.running = removeSeq(c.running, s)
	c.pool.release(s.blocks)
	s.blocks = nil
	s.computed = 0
	s.hashed = 0
	s.state = stateWaiting
	c.waiting = append([]*seq{s}, c.waiting...)
	c.count.preemptions++
}

// chunk is work scheduled for one sequence in one step.
type chunk struct {
	s     *seq
	start int // first position computed
	n     int // tokens computed
}

// schedule picks the work of one step, vLLM V1 style: running sequences
// first (decodes and unfinished prefills, in order), each taking from the
// token budget, preempting from the back of the running queue when the cache
// cannot grow; then, if nothing was preempted, waiting requests in order
// while there is budget, a free slot and room in the cache.
func (c *core) schedule() []chunk {
	budget := c.lim.maxNumBatchedTokens
	var work []chunk
	preempted := false
	for i := 0; i < len(c.running) && budget > 0; i++ {
		s := c.running[i]
		n := min(s.known()-s.computed, budget)
		if n <= 0 {
			continue
		}
		for !c.grow(s, n) {
			if c.lim.failOnFull {
				c.fail(s)
				break
			}
			victim := c.running[len(c.running)-1]
			c.preempt(victim)
			preempted = true
			if victim == s {
				break
			}
		}
		if s.state != stateRunning {
			break
		}
		work = append(work, chunk{s, s.computed, n})
		budget -= n
	}
	if preempted {
		c.leftWaiting = len(c.waiting)
		return work
	}
	defer func() { c.leftWaiting = len(c.waiting) }()
	for len(c.waiting) > 0 && len(c.running) < c.lim.maxNumSeqs && budget > 0 {
		s := c.waiting[0]
		if !c.admit(s, budget) {
			if c.lim.failOnFull {
				c.fail(s)
				continue
			}
			break
		}
		c.waiting = c.waiting[1:]
		s.state = stateRunning
		c.running = append(c.running, s)
		n := min(s.known()-s.computed, budget)
		work = append(work, chunk{s, s.computed, n})
		budget -= n
	}
	return work
}

// admit looks up the prefix cache for a waiting request and allocates the
// blocks of its first chunk; false (and nothing taken) when the cache is
// short.
func (c *core) admit(s *seq, budget int) bool {
	var hits []int
	if c.lim.prefixCaching && s.computed == 0 {
		hits = c.pool.match(s.hashes)
		// A hit never covers the last token: it must be computed to sample
		// the next one.
		if maxHit := (s.known() - 1) / c.lim.blockSize; len(hits) > maxHit {
			hits = hits[:maxHit]
		}
	}
	hitTokens := len(hits) * c.lim.blockSize
	slot := -1
	if c.slots != nil && !s.started {
		// A slot's own cache: the reused tokens hold blocks of their own,
		// shared with no other request.
		slot, hitTokens = c.slots.pick(s.prompt)
		if slot < 0 {
			return false
		}
	}
	n := min(s.known()-hitTokens, budget)
	need := c.blocksFor(hitTokens+n) - len(hits)
	if c.pool.free()-c.pool.freeAmong(hits) < need {
		return false
	}
	if slot >= 0 {
		c.slots.commit(slot, s.prompt, c.now)
		s.slot, s.slotted = slot, true
	}
	c.pool.touch(hits)
	s.blocks = append(s.blocks[:0], hits...)
	s.computed = hitTokens
	s.hashed = len(hits)
	if !s.started {
		s.started = true
		s.scheduledAt = c.now
		s.cached = hitTokens
		c.count.prefixQueries += int64(len(s.prompt))
		c.count.prefixHits += int64(hitTokens)
		c.count.promptTokens += int64(len(s.prompt))
		c.hist.queue.observe(c.now - s.readyAt)
	}
	if !c.grow(s, n) {
		// Cannot happen: the free count was checked above.
		panic("sim: block accounting is inconsistent")
	}
	return true
}

// stepCost is the time model of one step (see Profile). A one-token chunk
// is a decode (or the last prompt token after a full prefix hit).
func (c *core) stepCost(work []chunk) float64 {
	p := &c.prof
	t := p.StepBaseS
	decodes, attn := 0, 0.0
	for _, w := range work {
		if w.n == 1 {
			x := float64(w.start)
			decodes++
			attn += p.attention(x)
			continue
		}
		a, b := float64(w.start), float64(w.start+w.n)
		t += (p.PrefillPerTokenS*float64(w.n) + p.PrefillAttentionS*(b*b-a*a)) / c.cold.rate(w.s)
	}
	if decodes > 0 {
		q := p.DecodeBatchExponent
		if q == 0 {
			q = 1
		}
		t += p.DecodePerSeqS*float64(decodes) + attn*math.Pow(float64(decodes), q-1)
		t = p.withDrafts(t, c.spec, decodes)
	}
	return t
}

// span is an interval of simulated time.
type span struct{ from, to float64 }

// skipStalls moves the clock past a stall the present falls in: a step
// due then starts when the request being taken in is through.
func (c *core) skipStalls() {
	for len(c.stalls) > 0 {
		st := c.stalls[0]
		switch {
		case st.to <= c.now:
		case st.from <= c.now:
			c.now = st.to
		default:
			return
		}
		c.stalls = c.stalls[1:]
	}
}

// step runs one scheduler step from the engine's present, advances the
// clock by its cost and returns what each sequence produced. It returns nil
// when there was nothing to do (the clock does not move then).
func (c *core) step() []emission {
	if c.busy() {
		c.skipStalls()
	}
	c.promote()
	work := c.schedule()
	if len(work) == 0 {
		return nil
	}
	c.cold.claim(work)
	cost := c.stepCost(work)
	noisy := cost * c.noise.factor()
	c.now += noisy
	c.worked = c.now
	c.count.steps++
	out := make([]emission, 0, len(work))
	var rec specRecord
	for _, w := range work {
		s := w.s
		if p := len(s.prompt); w.start < p {
			s.prefilled += min(w.start+w.n, p) - w.start
		}
		s.computed += w.n
		c.registerHashes(s)
		if s.computed < s.known() {
			continue // a prefill chunk that does not reach the end yet
		}
		drafted := c.spec != nil && w.n == 1 && s.output > 0
		s.output++
		tokens := 1
		if drafted {
			tokens += c.draft(s)
			rec.drafts++
			rec.draftTokens += c.spec.Tokens
			rec.accepted += tokens - 1
		}
		c.count.generationTokens += int64(tokens)
		rec.seqSteps++
		rec.out += tokens
		if s.output == 1 {
			s.firstTokenAt = c.now
			c.hist.ttft.observe(c.now - s.arrival)
			c.count.promptCached += int64(s.cached)
			c.count.promptComputed += int64(len(s.prompt) - s.cached)
		} else {
			c.hist.itl.observe(c.now - s.lastTokenAt)
		}
		s.lastTokenAt = c.now
		e := emission{s: s, tokens: tokens}
		if s.output >= s.stopAt {
			c.finish(s)
			c.count.finished++
			c.hist.e2e.observe(c.now - s.arrival)
			// vLLM observes a request's prefill when it finishes: from its
			// first schedule to its first token, and the prompt tokens it
			// computed (the rest came from the prefix cache).
			c.hist.prefill.observe(s.firstTokenAt - s.scheduledAt)
			c.hist.prefillTokens.observe(float64(len(s.prompt) - s.cached))
			e.finished = true
		}
		out = append(out, e)
	}
	if c.noise != nil {
		c.steps = append(c.steps, stepRecord{end: c.now, excess: noisy - cost, tokens: rec.out})
	}
	if c.spec != nil {
		rec.end = c.now
		if len(c.specLog) >= maxSpecLog {
			// Keep the latest half: a truth is read over a cell's
			// window, not the server's whole life.
			c.specLog = append(c.specLog[:0], c.specLog[len(c.specLog)/2:]...)
		}
		c.specLog = append(c.specLog, rec)
	}
	c.cold.settle()
	return out
}

// registerHashes caches the prompt blocks s has completely computed.
func (c *core) registerHashes(s *seq) {
	if !c.lim.prefixCaching {
		return
	}
	full := min(s.computed, len(s.prompt)) / c.lim.blockSize
	for ; s.hashed < full && s.hashed < len(s.blocks); s.hashed++ {
		c.pool.setHash(s.blocks[s.hashed], s.hashes[s.hashed])
	}
}

// draft runs one drafted step's acceptance for s, whose verified token
// the caller has counted: it returns the accepted drafts, at most what
// s may still emit and what its blocks can hold (their KV was computed
// by the verification), and counts them in vLLM's counters. Every draft
// proposed counts, accepted or not.
func (c *core) draft(s *seq) int {
	k := c.spec.Tokens
	if s.specP == nil {
		s.specP = c.prof.Spec.Probabilities(c.spec.Method, k, Repetition(s.prompt))
	}
	acc := min(specAccepted(s, s.specP), s.stopAt-s.output)
	if acc > 0 && !c.grow(s, acc) {
		acc = 0
	}
	s.output += acc
	s.computed += acc
	c.count.spec.drafts++
	c.count.spec.draftTokens += int64(k)
	c.count.spec.accepted += int64(acc)
	if len(c.count.spec.perPos) < k {
		c.count.spec.perPos = append(c.count.spec.perPos, make([]int64, k-len(c.count.spec.perPos))...)
	}
	for i := range acc {
		c.count.spec.perPos[i]++
	}
	return acc
}

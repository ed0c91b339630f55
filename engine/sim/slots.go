package sim

// slotCache is llama-server's prompt cache: each slot keeps the tokens of
// the last prompt it processed, and a new request reuses the longest
// common prefix with the slot it is given, token by token. Unlike vLLM's
// prefix cache there are no shared blocks: two slots that processed the
// same prompt each computed it, and a prompt that shares only its first
// few tokens with the slot's last one (a marker every prompt starts with)
// reuses those few (issue 30 item 2).
type slotCache struct {
	tokens [][]uint32 // per slot, the last prompt it processed
	used   []float64  // per slot, when it was last given a request
	busy   []bool
}

func newSlotCache(slots int) *slotCache {
	return &slotCache{tokens: make([][]uint32, slots), used: make([]float64, slots), busy: make([]bool, slots)}
}

// pick chooses a free slot for prompt, as llama-server does: the slot whose
// cached prompt shares the longest prefix with it, else the least recently
// used. It returns the slot and the tokens that prefix lets the request
// skip (never the last one, which is computed to sample the next token);
// -1 when every slot is busy. Nothing changes until commit.
func (sc *slotCache) pick(prompt []uint32) (slot, reuse int) {
	slot, best := -1, 0
	for i := range sc.tokens {
		if sc.busy[i] {
			continue
		}
		n := commonPrefix(sc.tokens[i], prompt)
		if slot < 0 || n > best || n == best && sc.used[i] < sc.used[slot] {
			slot, best = i, n
		}
	}
	if slot < 0 {
		return -1, 0
	}
	return slot, min(best, max(len(prompt)-1, 0))
}

// commit gives the slot to prompt at simulated time now: the slot is busy,
// and its cache holds prompt from now on.
func (sc *slotCache) commit(slot int, prompt []uint32, now float64) {
	sc.busy[slot], sc.used[slot] = true, now
	sc.tokens[slot] = prompt
}

// free returns a slot (the request finished, failed or was aborted); its
// cached prompt stays for the next request.
func (sc *slotCache) free(slot int) {
	if slot >= 0 && slot < len(sc.busy) {
		sc.busy[slot] = false
	}
}

// commonPrefix is the number of leading tokens a and b share.
func commonPrefix(a, b []uint32) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

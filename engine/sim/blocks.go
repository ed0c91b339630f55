package sim

// blockPool is the KV cache: a fixed number of blocks of BlockSize tokens,
// handed to sequences as they grow, with vLLM's prefix caching:
//
//   - a full block of prompt tokens gets a hash chained from its parent
//     block's hash, so a block matches only when the whole prefix before it
//     matches too;
//   - a freed block keeps its hash and joins the tail of an LRU free list; it
//     can be taken back by a request with the same prefix (a hit) until it
//     is evicted, which happens when the free list's head is allocated;
//   - a sequence frees its blocks tail first, so the end of a prompt is
//     evicted before its beginning (longer shared prefixes survive).
type blockPool struct {
	blocks []block
	// head and tail of the free list (LRU order: head is evicted first);
	// -1 when empty.
	head, tail int
	nFree      int
	// cached maps a block hash to the block holding it.
	cached map[uint64]int
}

// block is one KV block.
type block struct {
	ref        int // sequences using it; 0 = on the free list
	hash       uint64
	hashed     bool
	prev, next int // free-list links
	onFree     bool
}

func newBlockPool(n int) *blockPool {
	p := &blockPool{blocks: make([]block, n), head: -1, tail: -1, cached: make(map[uint64]int)}
	for i := range p.blocks {
		p.pushTail(i)
	}
	return p
}

// total is the number of blocks; free is how many are on the free list
// (cached or not), which is what vLLM's usage gauge subtracts.
func (p *blockPool) total() int { return len(p.blocks) }
func (p *blockPool) free() int  { return p.nFree }

// usage is vllm:kv_cache_usage_perc: the fraction of blocks in use.
func (p *blockPool) usage() float64 {
	if len(p.blocks) == 0 {
		return 0
	}
	return 1 - float64(p.nFree)/float64(len(p.blocks))
}

func (p *blockPool) pushTail(i int) {
	b := &p.blocks[i]
	b.prev, b.next, b.onFree = p.tail, -1, true
	if p.tail >= 0 {
		p.blocks[p.tail].next = i
	} else {
		p.head = i
	}
	p.tail = i
	p.nFree++
}

func (p *blockPool) unlink(i int) {
	b := &p.blocks[i]
	if b.prev >= 0 {
		p.blocks[b.prev].next = b.next
	} else {
		p.head = b.next
	}
	if b.next >= 0 {
		p.blocks[b.next].prev = b.prev
	} else {
		p.tail = b.prev
	}
	b.prev, b.next, b.onFree = -1, -1, false
	p.nFree--
}

// match returns the blocks holding the longest cached prefix of hashes.
func (p *blockPool) match(hashes []uint64) []int {
	var ids []int
	for _, h := range hashes {
		i, ok := p.cached[h]
		if !ok {
			break
		}
		ids = append(ids, i)
	}
	return ids
}

// freeAmong counts how many of ids sit on the free list: taking them as hits
// removes them from it, so they are no longer available for allocation.
func (p *blockPool) freeAmong(ids []int) int {
	n := 0
	for _, i := range ids {
		if p.blocks[i].onFree {
			n++
		}
	}
	return n
}

// touch takes cached blocks for a sequence (a prefix hit).
func (p *blockPool) touch(ids []int) {
	for _, i := range ids {
		if p.blocks[i].onFree {
			p.unlink(i)
		}
		p.blocks[i].ref++
	}
}

// allocate takes n blocks from the head of the free list, evicting any hash
// they held, or returns nil when fewer than n are free.
func (p *blockPool) allocate(n int) []int {
	if n > p.nFree {
		return nil
	}
	ids := make([]int, n)
	for k := range ids {
		i := p.head
		p.unlink(i)
		b := &p.blocks[i]
		if b.hashed {
			if p.cached[b.hash] == i {
				delete(p.cached, b.hash)
			}
			b.hashed = false
		}
		b.ref = 1
		ids[k] = i
	}
	return ids
}

// setHash registers a full block under its chained hash so later requests
// can hit it. A hash already held by another block keeps that block.
func (p *blockPool) setHash(i int, h uint64) {
	b := &p.blocks[i]
	if b.hashed {
		return
	}
	if _, dup := p.cached[h]; dup {
		return
	}
	b.hash, b.hashed = h, true
	p.cached[h] = i
}

// release drops a sequence's blocks, tail first, onto the free list.
func (p *blockPool) release(ids []int) {
	for k := len(ids) - 1; k >= 0; k-- {
		b := &p.blocks[ids[k]]
		b.ref--
		if b.ref == 0 {
			p.pushTail(ids[k])
		}
	}
}

// blockHashes returns the chained hashes of the full blocks of tokens: hash
// k covers tokens [0, (k+1)·size) through its parent hash.
// A non-zero salt (cache_salt) starts the chain elsewhere.
func blockHashes(tokens []uint32, size int, salt uint64) []uint64 {
	n := len(tokens) / size
	hs := make([]uint64, n)
	parent := uint64(0x6a09e667f3bcc908) ^ salt
	for k := 0; k < n; k++ {
		h := parent
		for _, t := range tokens[k*size : (k+1)*size] {
			h = mix64(h ^ uint64(t))
		}
		hs[k] = h
		parent = h
	}
	return hs
}

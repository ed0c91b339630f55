package sim

import "testing"

func seqTokens(n int, salt uint32) []uint32 {
	t := make([]uint32, n)
	for i := range t {
		t[i] = salt*100003 + uint32(i)
	}
	return t
}

func TestBlockHashesChain(t *testing.T) {
	a := blockHashes(seqTokens(64, 1), 16, 0)
	b := blockHashes(seqTokens(64, 1), 16, 0)
	if len(a) != 4 {
		t.Fatalf("%d hashes for 64 tokens, want 4", len(a))
	}
	for i := range a {
		if a[i] != b[i] {
			t.Fatalf("hash %d differs for equal prefixes", i)
		}
	}
	// Changing the first token changes every later hash (the chain).
	c := seqTokens(64, 1)
	c[0]++
	for i, h := range blockHashes(c, 16, 0) {
		if h == a[i] {
			t.Errorf("block %d matches although the prefix differs", i)
		}
	}
	// A salt separates caches.
	if blockHashes(seqTokens(64, 1), 16, 42)[0] == a[0] {
		t.Error("cache_salt did not change the hash")
	}
	if n := len(blockHashes(seqTokens(63, 1), 16, 0)); n != 3 {
		t.Errorf("a partial block got a hash: %d hashes for 63 tokens", n)
	}
}

func TestBlockPoolPrefixHitAndLRUEviction(t *testing.T) {
	p := newBlockPool(4)
	h := blockHashes(seqTokens(32, 7), 16, 0)
	ids := p.allocate(2)
	p.setHash(ids[0], h[0])
	p.setHash(ids[1], h[1])
	if got := p.match(h); len(got) != 2 {
		t.Fatalf("in-use blocks: %d hits, want 2", len(got))
	}
	p.release(ids)
	if p.free() != 4 || p.usage() != 0 {
		t.Fatalf("after release free=%d usage=%v", p.free(), p.usage())
	}
	// Freed blocks stay cached.
	if got := p.match(h); len(got) != 2 {
		t.Fatalf("freed cached blocks: %d hits, want 2", len(got))
	}
	// The free list is LRU: the two never-used blocks go first, then the
	// freed prompt's tail block (freed tail first), then its head.
	p.allocate(2)
	if got := p.match(h); len(got) != 2 {
		t.Fatalf("hits evicted too early: %d", len(got))
	}
	p.allocate(1)
	if got := p.match(h); len(got) != 1 {
		t.Fatalf("after evicting the tail block: %d hits, want 1 (the head)", len(got))
	}
	p.allocate(1)
	if got := p.match(h); len(got) != 0 {
		t.Fatalf("after evicting all: %d hits", len(got))
	}
	if p.allocate(1) != nil {
		t.Fatal("allocated from an empty pool")
	}
}

func TestBlockPoolTouchRemovesFromFreeList(t *testing.T) {
	p := newBlockPool(3)
	h := blockHashes(seqTokens(16, 3), 16, 0)
	ids := p.allocate(1)
	p.setHash(ids[0], h[0])
	p.release(ids)
	hits := p.match(h)
	if p.freeAmong(hits) != 1 {
		t.Fatal("a freed cached block should count as free")
	}
	p.touch(hits)
	if p.free() != 2 || p.blocks[hits[0]].ref != 1 {
		t.Fatalf("touch: free=%d ref=%d", p.free(), p.blocks[hits[0]].ref)
	}
	// A second user shares the block.
	p.touch(p.match(h))
	p.release(hits)
	if p.free() != 2 {
		t.Fatal("a shared block returned to the free list while still used")
	}
}

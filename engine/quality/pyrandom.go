package quality

import (
	"crypto/sha512"
	"math/big"
	"math/bits"
)

// pyRandom is CPython's random.Random (a Mersenne Twister, MT19937) as far
// as the seed tool's GPQA Diamond builder uses it: seeded with a string,
// then shuffle. The GPQA file's options are in the order
// random.Random("gpqa-diamond-<record id>").shuffle gives them, so building
// the same file means drawing the same numbers. Sources: CPython's
// Lib/random.py (seed version 2, shuffle, _randbelow_with_getrandbits) and
// Modules/_randommodule.c (init_by_array, genrand_uint32, getrandbits).
type pyRandom struct {
	mt  [624]uint32
	mti int
}

// newPyRandom seeds like random.Random(s) for a str s: the integer whose
// big-endian bytes are s's UTF-8 followed by their SHA-512, handed to
// init_by_array as 32-bit words, least significant first.
func newPyRandom(s string) *pyRandom {
	sum := sha512.Sum512([]byte(s))
	b := append([]byte(s), sum[:]...)
	n := new(big.Int).SetBytes(b)
	words := n.Bits() // little-endian machine words
	var key []uint32
	for _, w := range words {
		key = append(key, uint32(w))
		if bits.UintSize == 64 {
			key = append(key, uint32(uint64(w)>>32))
		}
	}
	keyUsed := 1 // (bit length − 1)/32 + 1, CPython's keyused
	if bl := n.BitLen(); bl > 0 {
		keyUsed = (bl-1)/32 + 1
	}
	for len(key) < keyUsed {
		key = append(key, 0)
	}
	r := &pyRandom{}
	r.initByArray(key[:keyUsed])
	return r
}

func (r *pyRandom) initGenrand(s uint32) {
	r.mt[0] = s
	for i := 1; i < 624; i++ {
		r.mt[i] = 1812433253*(r.mt[i-1]^(r.mt[i-1]>>30)) + uint32(i)
	}
	r.mti = 624
}

func (r *pyRandom) initByArray(key []uint32) {
	r.initGenrand(19650218)
	i, j := 1, 0
	for k := max(624, len(key)); k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1664525)) + key[j] + uint32(j)
		i++
		j++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
		if j >= len(key) {
			j = 0
		}
	}
	for k := 623; k > 0; k-- {
		r.mt[i] = (r.mt[i] ^ ((r.mt[i-1] ^ (r.mt[i-1] >> 30)) * 1566083941)) - uint32(i)
		i++
		if i >= 624 {
			r.mt[0] = r.mt[623]
			i = 1
		}
	}
	r.mt[0] = 0x80000000
}

func (r *pyRandom) uint32() uint32 {
	if r.mti >= 624 {
		for k := 0; k < 624; k++ {
			y := (r.mt[k] & 0x80000000) | (r.mt[(k+1)%624] & 0x7fffffff)
			v := r.mt[(k+397)%624] ^ (y >> 1)
			if y&1 != 0 {
				v ^= 0x9908b0df
			}
			r.mt[k] = v
		}
		r.mti = 0
	}
	y := r.mt[r.mti]
	r.mti++
	y ^= y >> 11
	y ^= (y << 7) & 0x9d2c5680
	y ^= (y << 15) & 0xefc60000
	y ^= y >> 18
	return y
}

// below is _randbelow_with_getrandbits(n) for 0 < n < 2³²: k = n's bit
// length, getrandbits(k) = the next word's top k bits, drawn again until
// below n.
func (r *pyRandom) below(n int) int {
	k := bits.Len(uint(n))
	for {
		if v := int(r.uint32() >> (32 - k)); v < n {
			return v
		}
	}
}

// shuffleStrings is random.shuffle: for i from len−1 down to 1, swap item i with
// item below(i+1).
func shuffleStrings(r *pyRandom, x []string) {
	for i := len(x) - 1; i > 0; i-- {
		j := r.below(i + 1)
		x[i], x[j] = x[j], x[i]
	}
}

package quality

import (
	"slices"
	"testing"
)

// Known answers from CPython 3.11 (random.Random(s).getrandbits(32) three
// times, and random.Random(s).shuffle of ["correct", "w1", "w2", "w3"]):
// the seed tool's GPQA options are in this order only if these match.
func TestPyRandomMatchesCPython(t *testing.T) {
	for _, tc := range []struct {
		seed    string
		words   [3]uint32
		shuffle []string
	}{
		{"gpqa-diamond-rec06pnAkLOr2t2mp", [3]uint32{2373527451, 2090880079, 2301194074}, []string{"correct", "w1", "w2", "w3"}},
		{"gpqa-diamond-x", [3]uint32{76909832, 63394606, 225213934}, []string{"w1", "w2", "w3", "correct"}},
		{"gpqa-diamond-recZZZ9", [3]uint32{2060376000, 855309687, 1323431934}, []string{"w2", "w1", "correct", "w3"}},
	} {
		r := newPyRandom(tc.seed)
		got := [3]uint32{r.uint32(), r.uint32(), r.uint32()}
		if got != tc.words {
			t.Errorf("%s: words %v, CPython %v", tc.seed, got, tc.words)
		}
		opts := []string{"correct", "w1", "w2", "w3"}
		shuffleStrings(newPyRandom(tc.seed), opts)
		if !slices.Equal(opts, tc.shuffle) {
			t.Errorf("%s: shuffle %v, CPython %v", tc.seed, opts, tc.shuffle)
		}
	}
}

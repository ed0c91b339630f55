package sim

// coldStart is a fresh llama-server's first prompt: it computes at a share
// of the rate every later prompt reaches. On the real b9928 (issue 35, CPU,
// -np 4 -kvu) a fresh server's first 512-token prompt ran at about 1,075
// tok/s and later ones at about 1,500, and the server's own timer agreed,
// so the cost is in the compute, not in HTTP: the first large batch the
// server runs pays for what later ones find ready (buffers first touched,
// kernels first run). A short request before it (RigBench's 2-token
// options probe, whose prompt is a few tokens) did not warm it, so only a
// prompt chunk of at least coldMinTokens counts as the first prompt.
//
// The whole first prompt, every chunk of it, computes at coldShare of the
// warm rate: its prefill part of each step's cost (Profile: PrefillPerTokenS
// and PrefillAttentionS) is divided by coldShare. Once its prefill is done
// (its first token) or it ended, the server is warm for good.
type coldStart struct {
	share float64
	first *seq // the prompt computing cold; nil before it and after
	warm  bool
}

const (
	// llamaColdShare is 1,075 / 1,500 tok/s, rounded: the real b9928's
	// first prompt against later ones.
	llamaColdShare = 0.72
	// coldMinTokens is the smallest prompt chunk that warms the server;
	// smaller ones (a probe's few tokens, a decode step) leave it cold.
	coldMinTokens = 32
)

func newColdStart(share float64) *coldStart { return &coldStart{share: share} }

// claim picks the first prompt from a step's work, while the server is
// cold: the first prefill chunk of at least coldMinTokens tokens.
func (cs *coldStart) claim(work []chunk) {
	if cs == nil || cs.warm || cs.first != nil {
		return
	}
	for _, w := range work {
		if w.n >= coldMinTokens && w.start < len(w.s.prompt) {
			cs.first = w.s
			return
		}
	}
}

// rate is the share of the warm prompt rate s computes at: coldShare for
// the first prompt while it prefills, else 1.
func (cs *coldStart) rate(s *seq) float64 {
	if cs == nil || cs.first == nil || s != cs.first {
		return 1
	}
	return cs.share
}

// settle warms the server once the first prompt's prefill is done (or it
// ended some other way: aborted, failed).
func (cs *coldStart) settle() {
	if cs == nil || cs.first == nil {
		return
	}
	if s := cs.first; s.computed >= len(s.prompt) || s.state == stateDone {
		cs.first, cs.warm = nil, true
	}
}

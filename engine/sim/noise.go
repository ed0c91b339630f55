package sim

import (
	"math"
	"math/rand/v2"
	"time"
)

// stepNoise makes step times vary as a real card's do (clocks, memory
// contention): each step's time is its modelled cost × a factor drawn from
// a log-normal distribution with mean 1 and relative standard deviation
// sigma. With mean 1 the long-run rate is the noiseless model's, which
// stepLog keeps as the ground truth an estimate is checked against.
type stepNoise struct {
	sigma float64
	rng   *rand.Rand
}

// factor draws one step's factor: exp(s·z − s²/2) with z standard normal
// has mean 1, and s² = ln(1 + sigma²) gives it standard deviation sigma.
func (n *stepNoise) factor() float64 {
	if n == nil || n.sigma <= 0 {
		return 1
	}
	s := math.Sqrt(math.Log1p(n.sigma * n.sigma))
	return math.Exp(s*n.rng.NormFloat64() - s*s/2)
}

// stepRecord is one noisy step in the ground truth: when it ended
// (simulated seconds), the tokens it generated, and how much longer than its
// noiseless cost it took (negative when shorter).
type stepRecord struct {
	end, excess float64
	tokens      int
}

// TrueRate is the ground truth of a decode window run against a noisy
// simulator: the output tokens of the steps that ended in [from, to) over
// the span's length with the noise taken out, in tokens per second of the
// simulated card. The span keeps its idle moments (the streams' first
// tokens, restarts), as a measured window does; only the noise's excess
// time is removed. It is the rate the window would have measured on a card
// without noise, which a 95% interval measured over the same window should
// hold 95% of the time. It is 0 when the server has no noise
// (Config.Noise) or no step ended in the span.
func (s *Server) TrueRate(from, to time.Time) float64 {
	s.mu.Lock()
	defer s.mu.Unlock()
	a, b := s.simAt(from), s.simAt(to)
	var tokens int
	excess := 0.0
	for _, st := range s.core.steps {
		if st.end >= a && st.end < b {
			tokens += st.tokens
			excess += st.excess
		}
	}
	if tokens == 0 || b-a-excess <= 0 {
		return 0
	}
	return float64(tokens) / (b - a - excess)
}

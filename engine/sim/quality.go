package sim

import (
	"math"
	"regexp"
	"strconv"
	"strings"
)

// The simulator knows what it loses (issue 37): its greedy output is a
// deterministic function of the prompt and the seed, and a lossy launch —
// a KV cache below 16 bits, a --quantization — perturbs it by the amounts
// the profile's QualityModel states:
//
//   - tokens: the lossy launch follows the lossless one's tokens up to a
//     divergence position D, then continues on its own (another stream of
//     the same vocabulary). D is geometric: each token diverges with the
//     loss's TokenDivergence probability, drawn once per prompt and launch;
//   - logprobs: at every position the top-k alternatives are the same
//     tokens, and the lossy launch adds Gaussian noise of LogitNoise nats to
//     their logits (the greedy token stays on top before D), so the KL
//     divergence between the two is about LogitNoise²/2 per position;
//   - task answers: a prompt holding a problem the simulated model can
//     read ("Start with 14. Add 6. Multiply by 3. …", the layout of
//     engine/quality's demo set) ends with "#### <number>", right for a
//     share BaseAccuracy of items (drawn per item from its text), and a
//     lossy launch turns a right item wrong with probability Lose and a
//     wrong one right with probability Gain (drawn per item and launch).
//     When the prompt also lists numbered options ("Options:\nA. 60\nB. 57",
//     engine/quality's demo multiple-choice set), one of which is the
//     problem's result, the answer is "Answer: <letter>" instead: the
//     result's letter when right, else the near miss's (or the next
//     option's). AnswerTruth tells a test which items a launch gets right.

// QualityModel is what a profile's model answers and how lossy launches
// change it. The zero value reads as DefaultQualityModel.
type QualityModel struct {
	// BaseAccuracy is the share of readable problems the lossless launch
	// answers right.
	BaseAccuracy float64
	// KV8 is the loss of an 8-bit KV cache (fp8, int8_per_token_head, …:
	// vllm.KVCacheDtypes' ratio ½), KV4 of a 4-bit one (int4_per_token_head,
	// nvfp4: ratio ¼).
	KV8, KV4 Loss
	// Quantization is the loss of any --quantization method.
	Quantization Loss
}

// Loss is how much one lossy setting perturbs the model (see the package
// comment above).
type Loss struct {
	// TokenDivergence is the probability per generated token that greedy
	// decoding leaves the lossless launch's path.
	TokenDivergence float64
	// LogitNoise is the standard deviation, in nats, of the noise added to
	// each top-k logit.
	LogitNoise float64
	// Lose is the probability that an item the lossless launch answers
	// right comes out wrong; Gain that a wrong one comes out right.
	Lose, Gain float64
	// LengthInflation lengthens every answer to a readable problem by this
	// share (0.1: 10% more tokens, rounded), as a degraded model rambles;
	// an answer that no longer fits max_tokens is cut there.
	LengthInflation float64
}

// DefaultQualityModel is the profiles' model: an 8-bit KV cache loses
// almost nothing (one token in 500 diverges, flips are rare and go both
// ways: no net loss), a 4-bit one loses clearly (one token in 30 diverges,
// 8% of right answers go wrong: about −6 points from 80%, and answers
// 12% longer), and weight quantization lies between.
func DefaultQualityModel() QualityModel {
	return QualityModel{
		BaseAccuracy: 0.80,
		KV8:          Loss{TokenDivergence: 0.002, LogitNoise: 0.03, Lose: 0.005, Gain: 0.02},
		KV4:          Loss{TokenDivergence: 0.035, LogitNoise: 0.25, Lose: 0.08, Gain: 0.01, LengthInflation: 0.12},
		Quantization: Loss{TokenDivergence: 0.01, LogitNoise: 0.12, Lose: 0.03, Gain: 0.01, LengthInflation: 0.05},
	}
}

func (m QualityModel) orDefault() QualityModel {
	if m == (QualityModel{}) {
		return DefaultQualityModel()
	}
	return m
}

// launchLoss is a launch's combined loss and the salt its draws use: the
// KV dtype's and the quantization's losses compose as independent
// perturbations (1 − Π(1 − rate); noise adds in quadrature). A lossless
// launch has the zero Loss and salt 0.
func launchLoss(p Profile, kvDtype, quantization string) (Loss, uint64) {
	m := p.Quality.orDefault()
	var parts []Loss
	var salt uint64
	if ratio, ok := kvDtypeRatio(kvDtype); ok && ratio < 1 {
		if ratio <= 0.25 {
			parts = append(parts, m.KV4)
		} else {
			parts = append(parts, m.KV8)
		}
		salt ^= mix64(hashString("kv:" + kvDtype))
	}
	if quantization != "" && quantization != "None" && quantization != "none" {
		parts = append(parts, m.Quantization)
		salt ^= mix64(hashString("q:" + quantization))
	}
	if len(parts) == 1 {
		return parts[0], salt // exactly the profile's figures
	}
	var l Loss
	keep, keepR, keepW, grow := 1.0, 1.0, 1.0, 1.0
	for _, x := range parts {
		grow *= 1 + x.LengthInflation
		keep *= 1 - x.TokenDivergence
		keepR *= 1 - x.Lose
		keepW *= 1 - x.Gain
		l.LogitNoise = math.Hypot(l.LogitNoise, x.LogitNoise)
	}
	l.TokenDivergence, l.Lose, l.Gain, l.LengthInflation = 1-keep, 1-keepR, 1-keepW, grow-1
	return l, salt
}

// QualityLoss is the server's launch's loss against the same profile's
// lossless launch (the zero Loss when lossless).
func (s *Server) QualityLoss() Loss { return s.loss }

// unit maps a hash to [0, 1).
func unit(h uint64) float64 { return float64(h>>11) / (1 << 53) }

// gauss is a standard normal draw from a hash (Box–Muller).
func gauss(h uint64) float64 {
	u1 := unit(mix64(h)) + 1.0/(1<<54)
	u2 := unit(mix64(h ^ 0x632be59bd9b4e019))
	return math.Sqrt(-2*math.Log(u1)) * math.Cos(2*math.Pi*u2)
}

// streamQuality is a request's share of the quality model: nil for a
// request of a lossless launch that reads no problem (the plain words).
type streamQuality struct {
	answer *answerPlan
	// divergeAt is divergesAt's position, -1 for never.
	divergeAt int
}

// answerPlan is a readable problem's answer: the tokens the model ends
// with ("####" and the number, cut into the tokenizer's pieces).
type answerPlan struct {
	tokens []string
}

// problemRe finds the demo set's steps; solve reads them. optionRe finds
// a multiple-choice prompt's numbered options.
var (
	problemStartRe = regexp.MustCompile(`Start with (\d+)\.`)
	problemStepRe  = regexp.MustCompile(`^\s*(Add|Subtract|Multiply by) (\d+)\.`)
	optionRe       = regexp.MustCompile(`(?m)^([A-J])\. (-?\d+)$`)
)

// chooseLetter is the option letter a multiple-choice prompt's answer
// names: the option equal to the result the model reached (got), else,
// when it is wrong and no option shows its number, the option after the
// right one. "" when the prompt lists no option equal to right.
func chooseLetter(text string, right, got int64) string {
	opts := optionRe.FindAllStringSubmatch(text, -1)
	ri := -1
	for i, o := range opts {
		if v, _ := strconv.ParseInt(o[2], 10, 64); v == right {
			ri = i
		}
	}
	if ri < 0 {
		return ""
	}
	if got == right {
		return opts[ri][1]
	}
	for _, o := range opts {
		if v, _ := strconv.ParseInt(o[2], 10, 64); v == got {
			return o[1]
		}
	}
	return opts[(ri+1)%len(opts)][1]
}

// solve reads the last problem in text the simulated model understands and
// returns its result and the problem's text (from "Start with" to the
// step list's end), or false when there is none.
func solve(text string) (int64, string, bool) {
	locs := problemStartRe.FindAllStringSubmatchIndex(text, -1)
	if len(locs) == 0 {
		return 0, "", false
	}
	loc := locs[len(locs)-1]
	v, err := strconv.ParseInt(text[loc[2]:loc[3]], 10, 64)
	if err != nil {
		return 0, "", false
	}
	rest, end := text[loc[1]:], loc[1]
	for {
		m := problemStepRe.FindStringSubmatchIndex(rest)
		if m == nil {
			break
		}
		k, _ := strconv.ParseInt(rest[m[4]:m[5]], 10, 64)
		switch rest[m[2]:m[3]] {
		case "Add":
			v += k
		case "Subtract":
			v -= k
		default:
			v *= k
		}
		rest, end = rest[m[1]:], end+m[1]
	}
	return v, text[loc[0]:end], true
}

// inflate lengthens a lossy launch's answer by its LengthInflation,
// cutting it at maxTokens.
func (s *Server) inflate(sq *seq, maxTokens int) {
	if s.loss.LengthInflation <= 0 || sq.stopReason != "stop" {
		return
	}
	n := int(math.Round(float64(sq.stopAt) * (1 + s.loss.LengthInflation)))
	if n >= maxTokens {
		sq.stopAt, sq.stopReason = maxTokens, "length"
	} else {
		sq.stopAt = n
	}
}

// AnswerTruth is what this server answers to a /v1/completions request of
// prompt (a string, special tokens added) with maxTokens: whether it reads a
// problem there at all (readable), whether its answer is cut by maxTokens
// before the "####" (truncated), whether the number it gives is right
// (correct: readable, not truncated, and drawn right), and how many tokens
// it answers with. It is the truth a test checks the probe's scoring and
// statistics against. The right-or-wrong draw is per item (its problem's
// text) and launch, independent of the seed; the length is the request's.
func (s *Server) AnswerTruth(prompt string, maxTokens int) (correct, truncated, readable bool, tokens int) {
	_, problem, ok := solve(prompt)
	if !ok {
		return false, false, false, 0
	}
	sq := newSeq("", tokenize(prompt, true), maxTokens, 0, false, "", s.cfg.Seed, s.prof)
	s.inflate(sq, maxTokens)
	truncated = sq.stopReason != "stop"
	return !truncated && s.answersRight(problem), truncated, true, sq.stopAt
}

func (s *Server) answersRight(problem string) bool {
	h := hashString(problem)
	right := unit(mix64(h)) < s.prof.Quality.orDefault().BaseAccuracy
	if s.lossSalt == 0 {
		return right
	}
	u := unit(mix64(h ^ s.lossSalt))
	if right {
		return u >= s.loss.Lose
	}
	return u < s.loss.Gain
}

// planAnswer is the answer a prompt's text gets, or nil when the model
// reads no problem there.
func (s *Server) planAnswer(text string) *answerPlan {
	v, problem, ok := solve(text)
	if !ok {
		return nil
	}
	right := v
	if !s.answersRight(problem) {
		v += 1 + int64(mix64(hashString(problem)^0xbad)%9) // a near miss
	}
	if letter := chooseLetter(text, right, v); letter != "" {
		return &answerPlan{tokens: []string{" Answer:", " " + letter}}
	}
	p := &answerPlan{tokens: []string{" ####"}}
	digits := strconv.FormatInt(v, 10)
	for i := 0; i < len(digits); i += maxPieceRune {
		piece := digits[i:min(i+maxPieceRune, len(digits))]
		if i == 0 {
			piece = " " + piece
		}
		p.tokens = append(p.tokens, piece)
	}
	return p
}

// divergesAt is the position of the first token a lossy launch draws
// from its own path for a request keyed key: geometric with the loss's
// TokenDivergence, D = ⌊ln(1 − u)/ln(1 − r)⌋; -1 (never) when lossless.
func (s *Server) divergesAt(key uint64) int {
	r := s.loss.TokenDivergence
	if s.lossSalt == 0 || r <= 0 {
		return -1
	}
	if r >= 1 {
		return 0
	}
	u := unit(mix64(key ^ s.lossSalt))
	d := math.Floor(math.Log1p(-u) / math.Log1p(-r))
	if d > math.MaxInt32 {
		return -1
	}
	return int(d)
}

// tokenKey is the key generated token k is drawn from: the request's own
// before the divergence, the lossy launch's path after it.
func (s *Server) tokenKey(st *stream, k int) uint64 {
	if q := st.quality; q != nil && q.divergeAt >= 0 && k >= q.divergeAt {
		return mix64(st.sq.key ^ s.lossSalt ^ 0xa5a5a5a5a5a5a5a5)
	}
	return st.sq.key
}

// piece is the text of generated token k of st: the answer's tokens at the
// end of a readable problem's natural answer, else the model's words.
func (s *Server) piece(st *stream, k int) string {
	if q := st.quality; q != nil && q.answer != nil && st.sq.stopReason == "stop" {
		a := q.answer
		if i := k - (st.sq.stopAt - len(a.tokens)); i >= 0 && i < len(a.tokens) {
			return a.tokens[i]
		}
	}
	return outputPiece(s.tokenKey(st, k), k)
}

// textOf is the text of generated tokens [from, to) of st.
func (s *Server) textOf(st *stream, from, to int) string {
	if st.quality == nil {
		return outputText(st.sq.key, from, to) // the lossless words, as always
	}
	var b strings.Builder
	for k := from; k < to; k++ {
		b.WriteString(s.piece(st, k))
	}
	return b.String()
}

// startQuality sets a new request's answer and divergence, and lengthens
// a lossy launch's answer by its LengthInflation (cut at maxTokens); text
// is its prompt's text ("" when it came as token ids). s.mu is held, and
// the engine has not seen the request yet.
func (s *Server) startQuality(st *stream, text string, maxTokens int) {
	q := &streamQuality{divergeAt: s.divergesAt(st.sq.key)}
	if text != "" {
		q.answer = s.planAnswer(text)
	}
	if q.answer != nil {
		s.inflate(st.sq, maxTokens)
	}
	if q.answer != nil || q.divergeAt >= 0 {
		st.quality = q
	}
}

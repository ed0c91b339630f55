package sim

import (
	"encoding/json"
	"fmt"
	"math"
)

// maxLogprobs is vLLM's default --max-logprobs: the most alternatives per
// token a request may ask for.
const maxLogprobs = 20

// restMass is the probability the simulated model leaves outside the
// reported alternatives (the rest of the vocabulary).
const restMass = 0.05

// qualityRequest is what a completion request asks of the quality model:
// its prompt's text (for a problem to solve) and how many logprobs per
// token it wants (0: none).
type qualityRequest struct {
	text     string
	logprobs int
}

// readQualityRequest reads the prompt's text (a string prompt, or a list of
// one) and the logprobs count, with vLLM's error for too many.
func readQualityRequest(prompt json.RawMessage, logprobs *int) (qualityRequest, error) {
	var q qualityRequest
	if err := json.Unmarshal(prompt, &q.text); err != nil {
		var list []string
		if json.Unmarshal(prompt, &list) == nil && len(list) == 1 {
			q.text = list[0]
		}
	}
	if logprobs != nil {
		if *logprobs > maxLogprobs {
			return q, fmt.Errorf("Requested sample logprobs of %d, which is greater than max allowed: %d", *logprobs, maxLogprobs)
		}
		q.logprobs = max(*logprobs, 0)
	}
	return q, nil
}

// completionLogprobs is vLLM's /v1/completions choices[].logprobs.
type completionLogprobs struct {
	TextOffset    []int                `json:"text_offset"`
	TokenLogprobs []float64            `json:"token_logprobs"`
	Tokens        []string             `json:"tokens"`
	TopLogprobs   []map[string]float64 `json:"top_logprobs"`
}

// logprobShape is a completion answer that carries logprobs: the plain
// shape, with the whole answer's logprobs added to a non-streaming body.
// (A stream's chunks carry none: RigBench's probe does not stream.)
type logprobShape struct {
	completionShape
	s  *Server
	st *stream
	k  int
}

// withLogprobs wraps a completion shape when the request asked for
// logprobs; other shapes and requests pass through.
func (s *Server) withLogprobs(shape responseShape, st *stream, q qualityRequest) responseShape {
	cs, ok := shape.(completionShape)
	if !ok || q.logprobs == 0 {
		return shape
	}
	return logprobShape{completionShape: cs, s: s, st: st, k: q.logprobs}
}

func (l logprobShape) full(text, finish string, u usage) any {
	lp := l.s.logprobsOf(l.st, u.CompletionTokens, l.k)
	return l.chunk([]choice{{Text: text, Logprobs: lp, FinishReason: &finish}}, &u)
}

// logprobsOf is the logprobs of st's first n tokens, k alternatives each.
//
// At position j the alternatives are the generated token and k − 1 other
// words, chosen by the position's key (so two launches on the same path
// see the same candidates). Their logits fall from 0 in steps of 0.3 to
// 2.8 nats; a lossy launch adds its LogitNoise to each (the generated
// token kept on top, as greedy decoding picked it). The reported logprobs
// are the softmax over the k, scaled to 1 − restMass.
func (s *Server) logprobsOf(st *stream, n, k int) *completionLogprobs {
	lp := &completionLogprobs{TextOffset: make([]int, n), TokenLogprobs: make([]float64, n), Tokens: make([]string, n), TopLogprobs: make([]map[string]float64, n)}
	off := 0
	for j := range n {
		tok := s.piece(st, j)
		key := s.tokenKey(st, j)
		words := alternatives(tok, key, j, k)
		logits := make([]float64, len(words))
		for i := 1; i < len(logits); i++ {
			logits[i] = logits[i-1] - (0.3 + 2.5*unit(mix64(key^uint64(j)<<8^uint64(i))))
		}
		if s.lossSalt != 0 && s.loss.LogitNoise > 0 {
			for i := range logits {
				logits[i] += s.loss.LogitNoise * gauss(key^s.lossSalt^uint64(j)<<8^uint64(i))
			}
			for i := 1; i < len(logits); i++ {
				logits[i] = math.Min(logits[i], logits[0]-0.01)
			}
		}
		lse := logSumExp(logits)
		top := make(map[string]float64, len(words))
		for i, w := range words {
			top[w] = logits[i] - lse + math.Log1p(-restMass)
		}
		lp.TextOffset[j], lp.Tokens[j], lp.TokenLogprobs[j], lp.TopLogprobs[j] = off, tok, top[tok], top
		off += len(tok)
	}
	return lp
}

// alternatives are k distinct words for position j, tok first.
func alternatives(tok string, key uint64, j, k int) []string {
	out := []string{tok}
	start := int(mix64(key^uint64(j)*0x9e3779b97f4a7c15^0x1f) % uint64(len(outputPieces)))
	for i := 0; len(out) < k && i < len(outputPieces); i++ {
		w := outputPieces[(start+i)%len(outputPieces)]
		if len(w) > maxPieceRune {
			w = w[:maxPieceRune]
		}
		if w = " " + w; w != tok {
			out = append(out, w)
		}
	}
	return out
}

func logSumExp(xs []float64) float64 {
	m := math.Inf(-1)
	for _, x := range xs {
		m = math.Max(m, x)
	}
	var s float64
	for _, x := range xs {
		s += math.Exp(x - m)
	}
	return m + math.Log(s)
}

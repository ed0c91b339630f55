package bench

// Prompt reuse in adaptive plans (docs/METHOD.md: Decode cells, step 2,
// and Prompt reuse (adaptive plans)).
//
// Most of the card's time in a long matrix is not spent in windows but in
// warm-ups: cell (C, N) prefills N prompts of C tokens before its window,
// and the default matrix's warm-ups add up to about 2.1 M prompt tokens,
// 70% of a fixed-window run on the reference card. An adaptive plan keeps
// what the server already holds instead of throwing it away:
//
//   - Stream i keeps its document from cell to cell, cut to the cell's
//     context (except where a prefill cell's samples take its place,
//     below). Prompts are a marker unique to the document followed by the
//     same filler text, so the document's prompt at context C is a prefix
//     of its prompt at any longer context: within a context the warm-up of
//     N = 16 finds the 8 prompts of N = 8 cached, and at the next context a
//     stream's warm-up prefills only the tokens its prompt grew by (the
//     prefix cache holds the rest).
//   - The prompts a prefill cell at context C sent cold (its samples) are
//     the first streams' prompts of the decode cells at C, so they are
//     prefilled once, not twice. Adaptive plans run each context's prefill
//     cell just before its decode cells, so the cache still holds them.
//
// No figure changes: a window's requests send cached prompts in both
// methods, two streams of one cell never share a block (their documents
// start with different markers), and every prefill sample is still a
// fresh, never-sent prompt. A server without prefix caching prefills a
// reused prompt again, which costs what a fresh one would. Fixed-window
// plans keep the seed tool's fresh prompts per cell, for parity with
// published runs.

// streamDocs assigns documents (prompt indexes, see Prompts.Prompt) to the
// streams of the decode cells of one run, in the order the cells run.
type streamDocs struct {
	// docs[i] is the document stream i sent last.
	docs []int
	// seeds are the documents each context's prefill cell sent, in order.
	seeds map[int][]int
	// sent is the longest prompt, in tokens, sent of each document.
	sent map[int]int
}

// cellDoc is one stream's document in a decode cell, with the longest
// prompt of it sent before the cell (0: none, or only its marker).
type cellDoc struct{ doc, sent int }

// seed records that the prefill cell at context sent document doc cold.
func (s *streamDocs) seed(context, doc int) {
	if s.seeds == nil {
		s.seeds = map[int][]int{}
	}
	s.seeds[context] = append(s.seeds[context], doc)
	s.markSent(doc, context)
}

func (s *streamDocs) markSent(doc, tokens int) {
	if s.sent == nil {
		s.sent = map[int]int{}
	}
	s.sent[doc] = max(s.sent[doc], tokens)
}

// forCell returns the documents of the n streams of a decode cell at
// context, in stream order, and remembers them for the cells after it:
// the prefill cell's documents at this context first, then the documents
// the streams sent before, then fresh ones (from fresh). They are distinct:
// each document is only ever held by one stream position.
func (s *streamDocs) forCell(context, n int, fresh func() int) []cellDoc {
	seeds := s.seeds[context]
	out := make([]cellDoc, n)
	for i := range out {
		var d int
		switch {
		case i < len(seeds):
			d = seeds[i]
		case i < len(s.docs):
			d = s.docs[i]
		default:
			d = fresh()
		}
		out[i] = cellDoc{doc: d, sent: s.sent[d]}
		s.markSent(d, context)
		if i < len(s.docs) {
			s.docs[i] = d
		} else {
			s.docs = append(s.docs, d)
		}
	}
	return out
}

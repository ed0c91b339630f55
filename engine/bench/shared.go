package bench

// The shared prompt policy (docs/METHOD.md: Prompts), the seed tool's and
// the default: one document per context, sent by every stream of every
// decode cell at that context. The first cell's warm-up prefills it once
// and every later request finds it in the prefix cache, as the seed
// tool's requests do, so a RigBench figure reads like a published run.
// Capacity is still predicted as N × (context + output): what the server
// shares between identical prompts is the server's business, and the
// statuses of the two policies compare.
//
// A context's document is the first prompt its prefill cell sent cold
// (the seed tool's scout request), else a fresh one; contexts never share
// a document, so every context's first warm-up is cold.
type sharedDocs struct {
	docs map[int]cellDoc // context → its document and the longest prompt of it sent
}

// forContext returns the document of context, taking a fresh one (from
// fresh) the first time, and records that it is sent at context tokens.
func (s *sharedDocs) forContext(context int, fresh func() int) cellDoc {
	if s.docs == nil {
		s.docs = map[int]cellDoc{}
	}
	d, ok := s.docs[context]
	if !ok {
		d = cellDoc{doc: fresh()}
	}
	s.docs[context] = cellDoc{doc: d.doc, sent: max(d.sent, context)}
	return d
}

// seed makes doc, which a prefill cell sent cold at context, the context's
// document unless it has one.
func (s *sharedDocs) seed(context, doc int) {
	if s.docs == nil {
		s.docs = map[int]cellDoc{}
	}
	if _, ok := s.docs[context]; !ok {
		s.docs[context] = cellDoc{doc: doc, sent: context}
	}
}

// sharedDocs returns the n streams' documents of a decode cell at context
// under the shared policy: n times the context's document.
func (r *Runner) sharedDocs(context, n int) []cellDoc {
	d := r.shared.forContext(context, r.newDoc)
	out := make([]cellDoc, n)
	for i := range out {
		out[i] = d
	}
	return out
}

// shared reports whether every stream of a cell sends one document.
func shared(docs []cellDoc) bool {
	if len(docs) < 2 {
		return false
	}
	for _, d := range docs[1:] {
		if d.doc != docs[0].doc {
			return false
		}
	}
	return true
}

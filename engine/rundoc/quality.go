package rundoc

import (
	"bytes"
	"encoding/json"
	"strings"
)

// Quality is a run's quality check (issue 37; METHOD.md, "Quality (paired
// check)"): the probe asked of the run's own server after its matrix,
// before the server stopped, and, where the run had a baseline (a Tune
// variant against the sweep's base launch), the paired comparison with it.
//
// The probe's result and the comparison are engine/quality's documents,
// kept here exactly as that package wrote them: rundoc cannot import it
// (engine/quality → engine/bench → engine/rundoc), and copying its types
// here would write each figure's definition twice. engine/quality.FromRun
// reads them back typed and checks them; every front end and report goes
// through it.
type Quality struct {
	// Probe names what was measured, as the user named it ("gsm8k:200",
	// "agreement").
	Probe string `json:"probe"`
	// Result is the probe's rigbench.quality/v1 document (every item's
	// answer or every prompt's tokens); absent when the probe failed.
	Result json.RawMessage `json:"result,omitempty"`
	// Error is why the probe failed, in one sentence; the run's speed
	// figures stand.
	Error string `json:"error,omitempty"`
	// Baseline is the pairing with the baseline's probe; nil when the run
	// had no baseline.
	Baseline *QualityBaseline `json:"baseline,omitempty"`
}

// QualityBaseline is a probe paired with its baseline's.
type QualityBaseline struct {
	// RunID is the UUID of the run whose probe is the baseline ("" when
	// it came from a file).
	RunID string `json:"run_id,omitempty"`
	// Label names the baseline for a reader ("your flags").
	Label string `json:"label,omitempty"`
	// Comparison is the paired comparison as engine/quality computed it:
	// its Comparison for a task probe, its Agreement for the agreement
	// probe.
	Comparison json.RawMessage `json:"comparison,omitempty"`
	// Error is why the two could not be paired, in one sentence.
	Error string `json:"error,omitempty"`
}

// quality checks what rundoc can of a run's quality section: its texts'
// lengths and that the kept documents are JSON objects. engine/quality
// checks their contents (FromRun).
func (v *validator) quality(q *Quality) {
	v.text("quality.probe", q.Probe, MaxTextLen)
	v.text("quality.error", q.Error, MaxTextLen)
	v.object("quality.result", q.Result)
	if b := q.Baseline; b != nil {
		v.text("quality.baseline.run_id", b.RunID, MaxTextLen)
		v.text("quality.baseline.label", b.Label, MaxTextLen)
		v.text("quality.baseline.error", b.Error, MaxTextLen)
		v.object("quality.baseline.comparison", b.Comparison)
	}
}

// object checks that raw, when present, is one JSON object.
func (v *validator) object(field string, raw json.RawMessage) {
	if len(raw) == 0 {
		return
	}
	var m map[string]json.RawMessage
	if err := json.Unmarshal(raw, &m); err != nil {
		v.fail("%s is not a JSON object: %v", field, err)
	}
}

// compactQuality keeps the quality section's documents compact, as the
// history stores them, whatever the indentation of the file they came
// back in, so a run exported and imported again is the same run.
func compactQuality(q *Quality) {
	if q == nil {
		return
	}
	compactRaw(&q.Result)
	if q.Baseline != nil {
		compactRaw(&q.Baseline.Comparison)
	}
}

func compactRaw(raw *json.RawMessage) {
	if len(*raw) == 0 {
		return
	}
	var b bytes.Buffer
	if json.Compact(&b, *raw) == nil {
		*raw = b.Bytes()
	}
}

// inQualityTokens reports whether path lies inside an agreement prompt's
// top-k logprobs (quality.result.prompts[i].top_logprobs): its keys are
// the model's token texts (" The", "37"), not RigBench's spelling.
func inQualityTokens(path string) bool {
	rest, ok := strings.CutPrefix(path, "quality.result.prompts[")
	if !ok {
		return false
	}
	_, after, ok := strings.Cut(rest, "].top_logprobs[")
	return ok && after != ""
}

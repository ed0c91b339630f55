package tune

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// SchemaV1 names the sweep document format (docs/tune.md).
const SchemaV1 = "rigbench.tune/v1"

// MaxDocBytes bounds a sweep document read back: a sweep of a hundred
// variants of twenty cells is about 1 MB.
const MaxDocBytes = 16 << 20

// Doc is the sweep document `rigbench-cli tune --json` writes and the app
// exports and imports: the spec, each variant's flags, status, run id,
// score and decode cells, the best variant and the verdict.
type Doc struct {
	Schema    string `json:"schema"`
	SweepID   string `json:"sweep_id"`
	Objective string `json:"objective"`
	// Base is the launch every variant starts from.
	Base        DocBase      `json:"base"`
	Dimensions  []Dimension  `json:"dimensions"`
	Mode        Mode         `json:"mode"`
	Plan        rundoc.Plan  `json:"plan"`
	Constraints []string     `json:"constraints,omitempty"`
	Variants    []DocVariant `json:"variants"`
	// Best is the index of the winning variant, null when none scored.
	Best    *int   `json:"best"`
	Ties    []int  `json:"ties,omitempty"`
	Verdict string `json:"verdict"`
	// QualityVerdict is the verdict's quality sentences alone
	// (Result.QualityVerdict); absent without a probe.
	QualityVerdict string `json:"quality_verdict,omitempty"`
}

// DocBase is the base launch without secrets.
type DocBase struct {
	Model string `json:"model"`
	Image string `json:"image,omitempty"`
	// Flags are the base's vLLM arguments after the model.
	Flags []string `json:"flags"`
}

// DocVariant is one variant in the document.
type DocVariant struct {
	// Flags are the arguments the variant changes from the base ([] for
	// the base itself); Label is them as one line.
	Flags []string `json:"flags"`
	// Unset are the flags the variant leaves out that the base sets
	// (speculative "off" against a base that drafts); absent when none.
	Unset []string `json:"unset,omitempty"`
	// Interface is the link's interface the variant's cluster used, on
	// every variant of a sweep that varies it (tune --vary interface=…;
	// the base's is the cluster's own); absent otherwise.
	Interface string `json:"interface,omitempty"`
	Label     string `json:"label"`
	Status    Status `json:"status"`
	RunID     string `json:"run_id,omitempty"`
	// Score is the objective's value, null when the variant has none
	// (ScoreWhy says why).
	Score *float64 `json:"score"`
	// ScoreCI95 is the score's 95% confidence half-width, when it has one.
	ScoreCI95 float64 `json:"score_ci95,omitempty"`
	ScoreWhy  string  `json:"score_why,omitempty"`
	Error     string  `json:"error,omitempty"`
	Fix       string  `json:"fix,omitempty"`
	// KVCapacityTokens is the server's reported KV cache size.
	KVCapacityTokens int     `json:"kv_capacity_tokens,omitempty"`
	LoadS            float64 `json:"load_s,omitempty"`
	// Startup is the server's start as its run records it (launch.startup:
	// load_s and vLLM's weights / compile / graph capture split); absent
	// for the demo, which launches nothing.
	Startup *rundoc.Startup `json:"startup,omitempty"`
	Cells   []DocCell       `json:"cells"`
	// Quality is the variant's quality check against the base launch's;
	// absent when the sweep asks no probe.
	Quality *DocQuality `json:"quality,omitempty"`
}

// DocCell is a decode cell's headline figures.
type DocCell struct {
	Context        int           `json:"context"`
	Concurrency    int           `json:"concurrency"`
	Status         rundoc.Status `json:"status"`
	TotalTokS      float64       `json:"total_tok_s,omitempty"`
	PerRequestTokS float64       `json:"per_request_tok_s,omitempty"`
	TTFTP90Ms      float64       `json:"ttft_p90_ms,omitempty"`
	TBTP90Ms       float64       `json:"tbt_p90_ms,omitempty"`
	JPerToken      float64       `json:"energy_j_per_token,omitempty"`
	// TotalTokSCI95 and PerRequestTokSCI95 are the 95% half-widths of
	// total and per-request tok/s (0: none).
	TotalTokSCI95      float64 `json:"total_tok_s_ci95,omitempty"`
	PerRequestTokSCI95 float64 `json:"per_request_tok_s_ci95,omitempty"`
	// Reason is the cell's reason or notes: why it queued, or that its
	// window was mostly spent waiting for first tokens.
	Reason string `json:"reason,omitempty"`
}

// Document builds the sweep document of a result.
func (r *Result) Document() *Doc {
	base := r.Spec.Base
	rec := base.Record()
	d := &Doc{Schema: SchemaV1, SweepID: r.Spec.ID, Objective: r.Spec.Objective.String(),
		Base:       DocBase{Model: base.Model, Image: rec.Image, Flags: nonNil(rec.Args)},
		Dimensions: r.Spec.Dimensions, Mode: r.Spec.Mode, Plan: r.Spec.Plan, Ties: r.Ties, Verdict: r.Verdict, QualityVerdict: r.QualityVerdict}
	if base.Image == "" {
		d.Base.Image = "" // the demo: no image
	}
	for _, k := range r.Spec.Constraints {
		d.Constraints = append(d.Constraints, k.String())
	}
	if r.Best >= 0 {
		b := r.Best
		d.Best = &b
	}
	for _, v := range r.Variants {
		dv := DocVariant{Flags: nonNil(FlagArgs(v.Variant.Changes)), Interface: r.Spec.linkOf(v.Variant), Label: v.Variant.Label(), Status: v.Status,
			RunID: v.RunID, ScoreWhy: v.Score.Why, Error: v.Error, Fix: v.Fix, LoadS: v.LoadS, Cells: []DocCell{},
			Quality: docQuality(r.Spec.Quality, v.Quality)}
		for _, ch := range v.Variant.Changes {
			if ch.Value == "" {
				dv.Unset = append(dv.Unset, ch.Name)
			}
		}
		if v.Score.OK {
			s := v.Score.Value
			dv.Score, dv.ScoreCI95 = &s, v.Score.CI95
		}
		if v.Run != nil {
			dv.KVCapacityTokens = v.Run.Server.KVCapacityTokens
			if v.Run.Launch != nil {
				dv.Startup = v.Run.Launch.Startup
			}
			for _, c := range v.Run.Cells {
				if c.Phase != rundoc.PhaseDecode {
					continue
				}
				dv.Cells = append(dv.Cells, DocCell{Context: c.Context, Concurrency: c.Concurrency, Status: c.Status,
					TotalTokS: c.TotalTokS, PerRequestTokS: c.PerRequestTokS, TTFTP90Ms: c.TTFTP90Ms,
					TBTP90Ms: c.TBTP90Ms, JPerToken: c.EnergyJPerToken, TotalTokSCI95: c.TotalTokSCI95, PerRequestTokSCI95: c.PerRequestTokSCI95, Reason: c.Reason})
			}
		}
		d.Variants = append(d.Variants, dv)
	}
	return d
}

func nonNil(s []string) []string {
	if s == nil {
		return []string{}
	}
	return s
}

// Write writes the document as indented JSON.
func (d *Doc) Write(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(d)
}

// ReadDoc reads a sweep document back (the app's import of an export),
// refusing another schema, an oversized file and a document whose parts do
// not agree.
func ReadDoc(r io.Reader) (*Doc, error) {
	data, err := io.ReadAll(io.LimitReader(r, MaxDocBytes+1))
	if err != nil {
		return nil, err
	}
	if len(data) > MaxDocBytes {
		return nil, fmt.Errorf("the file is too large for a sweep document (over %d MB)", MaxDocBytes>>20)
	}
	var d Doc
	if err := json.Unmarshal(data, &d); err != nil {
		return nil, fmt.Errorf("not a sweep document: %w", err)
	}
	if d.Schema != SchemaV1 {
		return nil, fmt.Errorf("not a sweep document (schema %q, want %q)", d.Schema, SchemaV1)
	}
	if len(d.Variants) == 0 {
		return nil, errors.New("the sweep document has no variants")
	}
	if d.Best != nil && (*d.Best < 0 || *d.Best >= len(d.Variants)) {
		return nil, fmt.Errorf("the sweep document's best variant %d is not one of its %d variants", *d.Best, len(d.Variants))
	}
	for _, t := range d.Ties {
		if t < 0 || t >= len(d.Variants) {
			return nil, fmt.Errorf("the sweep document's tie %d is not one of its %d variants", t, len(d.Variants))
		}
	}
	return &d, nil
}

// BestConfig returns the base launch with the best variant's flags applied,
// what "Apply to Launch" puts in the form; ok is false when none won.
func (r *Result) BestConfig() (vllm.LaunchConfig, bool) {
	if r.Best < 0 {
		return r.Spec.Base, false
	}
	return r.Variants[r.Best].Variant.Config, true
}

// BestChanges returns the flags the best variant changes from the base, as
// "Apply to Launch" sets them on the launch form, a flag it leaves out
// with an empty Value (Variant.Changes' rule: unset it); ok is false when
// no variant won or the base won (nothing to change).
func (d *Doc) BestChanges() (changes []vllm.FlagValue, ok bool) {
	if d.Best == nil {
		return nil, false
	}
	best := d.Variants[*d.Best]
	if len(best.Flags) > 0 {
		c, err := vllm.ParseArgs(best.Flags)
		if err != nil {
			return nil, false
		}
		changes = c.Flags
	}
	for _, name := range best.Unset {
		changes = append(changes, vllm.FlagValue{Name: name})
	}
	return changes, len(changes) > 0
}

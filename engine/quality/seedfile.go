package quality

import (
	"encoding/json"
	"fmt"
	"net/url"
	"sort"
	"strings"
	"time"
)

// SeedTool names the tool whose completion-stats reports Read imports.
const SeedTool = "llm-inference-bench"

// seedReport is the part of llm-inference-bench's completion-stats report
// a paired comparison reads (llm_decode_bench.py 0.4.29,
// run_completion_stats_benchmark's report and _comparison_side_info): the
// metadata that identifies the run and one row per request
// (CompletionStatsRun as a dict).
type seedReport struct {
	Metadata *struct {
		Version       string `json:"version"`
		Mode          string `json:"mode"`
		Server        string `json:"server"`
		Model         string `json:"model"`
		Timestamp     string `json:"timestamp"`
		TestProfile   string `json:"test_profile"`
		Dataset       string `json:"dataset"`
		DatasetSHA256 string `json:"dataset_sha256"`
	} `json:"metadata"`
	Runs []seedRun `json:"runs"`
}

// seedRun is one request of a seed report: an item's answer when the
// profile is a data set's.
type seedRun struct {
	ItemID           string  `json:"item_id"`
	Category         string  `json:"category"`
	Correct          *bool   `json:"correct"`
	CompletionTokens float64 `json:"completion_tokens"`
	ScoreLabel       string  `json:"score_label"`
	ScoreDetail      string  `json:"score_detail"`
	ParsedAnswer     string  `json:"parsed_answer"`
	ExpectedAnswer   string  `json:"expected_answer"`
	HitMaxTokens     bool    `json:"hit_max_tokens"`
	Error            string  `json:"error"`
}

// seedMode is the metadata.mode of a completion-stats report.
const seedMode = "completion_stats"

// fromSeed turns a seed report into a Result its paired comparison reads
// the way the seed tool's build_paired_comparison does: the scored runs
// (an item_id and a correct that is not null) by item, a later run of an
// item replacing an earlier one; "unparseable" is score_detail
// "unparseable" and "truncated" score_label "truncated", as it counts
// them. The probe is the test profile, and two imported results pair when
// their profiles and dataset sha256 are equal, the two things the seed tool
// checks.
func fromSeed(r *seedReport) (*Result, error) {
	m := r.Metadata
	byID := map[string]Item{}
	for _, run := range r.Runs {
		if run.ItemID == "" || run.Correct == nil {
			continue
		}
		byID[run.ItemID] = Item{ID: run.ItemID, Category: run.Category, Want: run.ExpectedAnswer, Got: run.ParsedAnswer,
			Correct: *run.Correct, Unparseable: run.ScoreDetail == "unparseable", Truncated: run.ScoreLabel == "truncated",
			HitMaxTokens: run.HitMaxTokens, CompletionTokens: int(run.CompletionTokens), Error: run.Error}
	}
	profile := m.TestProfile
	if profile == "" {
		profile = "custom"
	}
	if len(byID) == 0 {
		return nil, fmt.Errorf("this %s report (profile %s) holds no scored data-set items (runs with an item_id and a correct): compare reports of a data-set profile (gsm8k, mmlu-pro, gpqa-diamond)", SeedTool, profile)
	}
	res := &Result{Kind: Kind, Source: strings.TrimSpace(SeedTool + " " + m.Version), Probe: profile,
		Profile: SeedTool + " test_profile=" + profile, Endpoint: redactURL(m.Server), Model: m.Model}
	if t, err := time.ParseInLocation("2006-01-02T15:04:05.999999", m.Timestamp, time.Local); err == nil {
		res.Started = t
	}
	ids := make([]string, 0, len(byID))
	for id := range byID {
		ids = append(ids, id)
	}
	sort.Strings(ids) // the seed tool pairs sorted ids
	for _, id := range ids {
		res.Items = append(res.Items, byID[id])
	}
	if m.Dataset != "" || m.DatasetSHA256 != "" {
		res.Dataset = &DatasetRef{Name: m.Dataset, SHA256: m.DatasetSHA256, Items: len(res.Items)}
	}
	return res, nil
}

// redactURL drops any user and password from an address.
func redactURL(s string) string {
	u, err := url.Parse(s)
	if err != nil || u.User == nil {
		return s
	}
	u.User = nil
	return u.String()
}

// readSeed decodes data as a seed report when it has the shape of one: a
// metadata object whose mode is completion_stats, and runs. ok is false
// for any other shape.
func readSeed(data []byte) (res *Result, ok bool, err error) {
	var r seedReport
	if json.Unmarshal(data, &r) != nil || r.Metadata == nil || r.Metadata.Mode != seedMode || r.Runs == nil {
		var probe struct {
			Metadata *struct {
				Mode string `json:"mode"`
			} `json:"metadata"`
			Runs json.RawMessage `json:"runs"`
		}
		if json.Unmarshal(data, &probe) == nil && probe.Metadata != nil && probe.Metadata.Mode == seedMode && probe.Runs != nil {
			// The shape is the seed tool's, a field's type is not.
			return nil, true, fmt.Errorf("this %s completion-stats report has runs that are not in its layout (%v): give the file the tool wrote, unedited", SeedTool, json.Unmarshal(data, &r))
		}
		return nil, false, nil
	}
	res, err = fromSeed(&r)
	return res, true, err
}

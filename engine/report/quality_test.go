package report_test

import (
	"bytes"
	"encoding/csv"
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// withQuality returns the reference run with a task probe paired against
// a baseline: 100 items, the baseline right on the first 80, the run
// losing items 0–11 and gaining 80–81.
func withQuality(t *testing.T) (*rundoc.Run, *quality.Comparison) {
	r, cmp, _ := withQualityAndBase(t)
	return r, cmp
}

// withQualityAndBase is withQuality with the baseline's result.
func withQualityAndBase(t *testing.T) (*rundoc.Run, *quality.Comparison, *quality.Result) {
	t.Helper()
	ds := &quality.DatasetRef{Name: "demo-arith", SHA256: "3730d312aaaa", Items: 100}
	base := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	cand := &quality.Result{Kind: quality.Kind, Probe: "gsm8k:100", Profile: "p", Dataset: ds}
	for i := range 100 {
		id := fmt.Sprintf("gsm8k/%d", i)
		base.Items = append(base.Items, quality.Item{ID: id, Want: "1", Correct: i < 80, CompletionTokens: 100})
		cand.Items = append(cand.Items, quality.Item{ID: id, Want: "1", Correct: (i < 80 && i >= 12) || i == 80 || i == 81, CompletionTokens: 110})
	}
	p := quality.Pair(base, cand, "c0ffee00-0000-4000-8000-000000000001", "your flags")
	q, err := (&quality.Check{Probe: "gsm8k:100", Result: cand, Baseline: p}).Doc()
	if err != nil {
		t.Fatal(err)
	}
	r := reference(t)
	r.Quality = q
	return r, p.Task, base
}

// TestReportsShowTheQualityCheck: Markdown, HTML and CSV each carry the
// run's probe and its pairing, with the figures engine/quality computed.
func TestReportsShowTheQualityCheck(t *testing.T) {
	t.Parallel()
	r, cmp := withQuality(t)
	if cmp.RightOnlyBaseline != 12 || cmp.RightOnlyCandidate != 2 {
		t.Fatalf("flips %d/%d, want 12/2", cmp.RightOnlyBaseline, cmp.RightOnlyCandidate)
	}
	p := quality.PText(quality.McNemarExact(12, 2))
	var md bytes.Buffer
	if err := report.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"## Quality", "accuracy 70.0% (70/100)", "−10.0 points", "12 right only in the baseline, 2 only in this run", p, "your flags (run c0ffee00)"} {
		if !strings.Contains(md.String(), want) {
			t.Errorf("Markdown lacks %q:\n%s", want, md.String())
		}
	}
	var html bytes.Buffer
	if err := report.WriteHTML(&html, []*rundoc.Run{r}, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<section id="quality">`, "accuracy 70.0% (70/100)", "−10.0 points", p} {
		if !strings.Contains(html.String(), want) {
			t.Errorf("HTML lacks %q", want)
		}
	}
	var c bytes.Buffer
	if err := report.WriteCSV(&c, r); err != nil {
		t.Fatal(err)
	}
	data := bytes.Clone(c.Bytes())
	rows, err := csv.NewReader(&c).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	col := map[string]int{}
	for i, h := range rows[0] {
		col[h] = i
	}
	for _, k := range report.QualityColumns {
		if _, ok := col[k]; !ok {
			t.Fatalf("CSV header lacks %s: %v", k, rows[0])
		}
	}
	for _, row := range rows[1:] {
		got := []string{row[col["quality_probe"]], row[col["quality_accuracy_pct"]], row[col["quality_delta_points"]],
			row[col["quality_right_only_baseline"]], row[col["quality_right_only_here"]]}
		if want := []string{"gsm8k:100", "70.0", "-10.0", "12", "2"}; !slices.Equal(got, want) {
			t.Errorf("CSV row's quality = %v, want %v", got, want)
		}
	}
	// A CSV with quality columns still reads back as a run.
	if _, err := report.ReadReferenceCSV(bytes.NewReader(data)); err != nil {
		t.Errorf("the CSV no longer reads back: %v", err)
	}
}

// TestReportsWithoutQualityUnchanged: a run without a check gets no
// quality section and no quality columns.
func TestReportsWithoutQualityUnchanged(t *testing.T) {
	t.Parallel()
	r := reference(t)
	var md, c bytes.Buffer
	if err := report.WriteMarkdown(&md, r); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteCSV(&c, r); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(md.String(), "## Quality") || strings.Contains(c.String(), "quality_") {
		t.Error("a run without a quality check shows one")
	}
}

// TestImportRefusesABadQualityCheck: a run file whose quality section is
// not engine/quality's is refused in one sentence, not shown half-read.
func TestImportRefusesABadQualityCheck(t *testing.T) {
	t.Parallel()
	r, _ := withQuality(t)
	r.Quality.Result = []byte(`{"kind":"something/v9","probe":"gsm8k:100"}`)
	var b bytes.Buffer
	if err := rundoc.WriteRun(&b, r); err != nil {
		t.Fatal(err)
	}
	_, err := report.ReadRunData(b.Bytes(), "bad.json")
	if err == nil || !strings.Contains(err.Error(), "not rigbench.quality/v1") {
		t.Errorf("import of a foreign quality result: %v, want a refusal naming rigbench.quality/v1", err)
	}
}

// TestCompareQualityPairsWithRunA: a comparison pairs each run's probe
// with run A's item by item, in Markdown and HTML, and says why a run
// without a probe is not paired.
func TestCompareQualityPairsWithRunA(t *testing.T) {
	t.Parallel()
	cand, cmp, baseRes := withQualityAndBase(t)
	base := reference(t)
	base.UUID = "c0ffee00-0000-4000-8000-000000000001"
	q, err := (&quality.Check{Probe: baseRes.Probe, Result: baseRes}).Doc()
	if err != nil {
		t.Fatal(err)
	}
	base.Quality = q
	bare := reference(t)
	bare.UUID = "c0ffee00-0000-4000-8000-000000000002"
	runs := []*rundoc.Run{base, cand, bare}
	lines := report.QualityCompare(runs)
	if len(lines) != 2 || !strings.HasPrefix(lines[0], "B against A (gsm8k:100): −10.0 points") ||
		!strings.Contains(lines[0], quality.PText(cmp.McNemarP)) || lines[1] != "C against A: not paired: run C has no quality probe" {
		t.Fatalf("paired lines %q", lines)
	}
	var md, html bytes.Buffer
	if err := report.WriteCompareMarkdown(&md, runs); err != nil {
		t.Fatal(err)
	}
	if err := report.WriteHTML(&html, runs, report.HTMLOptions{}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(md.String(), "## Quality, paired item by item") || !strings.Contains(md.String(), "B against A (gsm8k:100): −10.0 points") {
		t.Errorf("the Markdown comparison lacks the paired quality:\n%s", md.String())
	}
	if !strings.Contains(html.String(), "<li>B against A (gsm8k:100): −10.0 points") {
		t.Error("the HTML comparison lacks the paired quality")
	}
}

package rundoc_test

import (
	"bytes"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

// CutText keeps the first bytes, at a character boundary, says it cut and
// how much there was, and stays within the limit.
func TestCutText(t *testing.T) {
	t.Parallel()
	if got := rundoc.CutText("short", 10); got != "short" {
		t.Errorf("short text changed: %q", got)
	}
	long := strings.Repeat("é", 30000) // 60,000 bytes of 2-byte characters
	got := rundoc.CutText(long, rundoc.MaxTextLen)
	if len(got) > rundoc.MaxTextLen || !utf8.ValidString(got) || !strings.HasPrefix(got, "ééé") ||
		!strings.Contains(got, "cut by RigBench: 60000 bytes") {
		t.Errorf("cut text: %d bytes, valid %v, ends %q", len(got), utf8.ValidString(got), got[len(got)-80:])
	}
}

// hostileText is text a server or a machine could send: empty, short,
// multi-byte, or far over any limit.
func hostileText(rng *rand.Rand) string {
	switch rng.IntN(5) {
	case 0:
		return ""
	case 1:
		return "x"
	case 2:
		return strings.Repeat("ü<|>\n", rng.IntN(40000))
	case 3:
		return strings.Repeat("a", rng.IntN(1<<17))
	}
	return "\x00\x1b[31m" + strings.Repeat("é", rng.IntN(300))
}

func hostileNum(rng *rand.Rand) float64 {
	return []float64{math.NaN(), -1, 0, 3.5, 1e300, math.MaxFloat64}[rng.IntN(6)]
}

func hostileInt(rng *rand.Rand) int {
	return []int{-5, 0, 7, 1 << 40, math.MaxInt, 1 << 62}[rng.IntN(6)]
}

// TestFitMakesEveryRunImportable is the property of issue 12 #7: whatever
// a server, a probe or a slipped label puts into a run — overlong text,
// repeated or empty tags, counts of 2^62, NaN figures — Fit brings it
// within the limits, and the run exports and imports again unchanged.
func TestFitMakesEveryRunImportable(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(12, 7))
	for i := range 60 {
		r := jsonioFullRun()
		r.Name, r.Notes, r.Error = hostileText(rng), hostileText(rng), hostileText(rng)
		r.Tags = []string{hostileText(rng), "a", "a", " ", hostileText(rng)}
		for range rng.IntN(80) { // too many, repeated, some too long
			r.Tags = append(r.Tags, strings.Repeat("t", rng.IntN(100)))
		}
		r.Server.Model, r.Server.Engine, r.Server.Version = hostileText(rng), hostileText(rng), hostileText(rng)
		r.Server.MaxModelLen, r.Server.KVCapacityTokens = hostileInt(rng), hostileInt(rng)
		r.Launch.Image, r.Launch.ServeCommand = hostileText(rng), hostileText(rng)
		r.Launch.Args = []string{hostileText(rng), hostileText(rng)}
		r.Hardware.OS.Name, r.Hardware.GPUAbsentReason = hostileText(rng), hostileText(rng)
		r.Hardware.GPUs = append(r.Hardware.GPUs, hardware.GPU{Name: hostileText(rng)})
		c := &r.Cells[1]
		c.Reason = hostileText(rng)
		c.OutputTokens, c.PromptTokens = hostileInt(rng), hostileInt(rng)
		c.TotalTokS, c.TTFTMs = hostileNum(rng), hostileNum(rng)
		c.ServerSamples[0].KVUsage, c.ServerSamples[0].T = rundoc.Reported(hostileNum(rng), true), hostileNum(rng)
		c.ServerStats.RunningMean = hostileNum(rng)

		rundoc.Fit(r)
		if err := rundoc.ValidateRun(r); err != nil {
			t.Fatalf("run %d after Fit: %v", i, err)
		}
		var a, b bytes.Buffer
		if err := rundoc.WriteRun(&a, r); err != nil {
			t.Fatal(err)
		}
		back, err := rundoc.ReadRun(bytes.NewReader(a.Bytes()))
		if err != nil {
			t.Fatalf("run %d does not import again: %v", i, err)
		}
		if err := rundoc.WriteRun(&b, back); err != nil || !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Fatalf("run %d: export → import → export differs (%v)", i, err)
		}
	}
}

// A run within the limits is left as it is.
func TestFitKeepsAValidRun(t *testing.T) {
	t.Parallel()
	r := jsonioFullRun()
	var a, b bytes.Buffer
	rundoc.WriteRun(&a, r)
	rundoc.Fit(r)
	rundoc.WriteRun(&b, r)
	if !bytes.Equal(a.Bytes(), b.Bytes()) {
		t.Error("Fit changed a run that was within every limit")
	}
}

// The user's words are checked by the rule an import applies.
func TestCheckLabels(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, notes string
		tags        []string
		want        string
	}{
		{strings.Repeat("n", 300), "", nil, "name is 300 bytes long, at most 200"},
		{"", "", []string{"a", "a"}, `tags[1] repeats the tag "a"`},
		{"", "", []string{strings.Repeat("t", 80)}, "tags[0] is 80 bytes long, at most 64"},
		{"", "", make([]string, 70), "tags has 70 entries, at most 64"},
		{"", strings.Repeat("x", 70<<10), nil, "notes is 71680 bytes long"},
	} {
		if err := rundoc.CheckLabels(tc.name, tc.tags, tc.notes); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("err %v, want %q", err, tc.want)
		}
	}
	if err := rundoc.CheckLabels("baseline", []string{"fp8", "3060"}, "ok"); err != nil {
		t.Errorf("good labels: %v", err)
	}
}

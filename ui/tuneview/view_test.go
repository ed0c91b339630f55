package tuneview_test

import (
	"strings"
	"testing"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/tuneview"
)

// A sweep document read back from an export shows its verdict and table,
// and Apply hands the winner's flags to the Launch form.
func TestShowImportedSweep(t *testing.T) {
	test.NewTempApp(t)
	const exported = `{"schema":"rigbench.tune/v1","sweep_id":"0123abcd","objective":"total-tok-s@16Kx8",
"base":{"model":"m","flags":["--max-num-seqs","64"]},"mode":"grid","plan":{"contexts":[16384],"concurrency":[8],"prefill_contexts":null,"duration_s":30,"max_output":1024},
"variants":[{"flags":[],"label":"your flags","status":"measured","score":100,"cells":[{"context":16384,"concurrency":8,"status":"Valid","total_tok_s":100}]},
{"flags":["--kv-cache-dtype","fp8"],"label":"--kv-cache-dtype fp8","status":"measured","score":138,"cells":[{"context":16384,"concurrency":8,"status":"Valid","total_tok_s":138}]},
{"flags":["--gpu-memory-utilization","0.3"],"label":"--gpu-memory-utilization 0.3","status":"failed to start","score":null,"error":"No memory left for the KV cache.","cells":[]}],
"best":1,"verdict":"` + "`--kv-cache-dtype fp8`" + `: +38% total tok/s at 16K×8 over your flags."}`
	d, err := tune.ReadDoc(strings.NewReader(exported))
	if err != nil {
		t.Fatal(err)
	}
	var applied []vllm.FlagValue
	v := tuneview.New(tuneview.Backend{OnApply: func(c []vllm.FlagValue) { applied = c }})
	test.NewWindow(v.Content()).Resize(fyne.NewSize(1200, 800))
	v.Show(d)
	if v.Verdict() != "Verdict: --kv-cache-dtype fp8: +38% total tok/s at 16K×8 over your flags." {
		t.Errorf("verdict %q", v.Verdict())
	}
	rows := v.Rows()
	if len(rows) != 4 || rows[2][0] != "2 ★" || rows[2][4] != "138.0" || rows[3][2] != "failed to start" {
		t.Errorf("rows %q", rows)
	}
	if !v.CanApply() {
		t.Fatal("Apply is disabled")
	}
	v.Apply()
	if len(applied) != 1 || applied[0].Name != "--kv-cache-dtype" || applied[0].Value != "fp8" {
		t.Errorf("applied %v", applied)
	}
}

func TestAddDimensionRefusesBadInput(t *testing.T) {
	test.NewTempApp(t)
	v := tuneview.New(tuneview.Backend{})
	for _, c := range [][2]string{{"", "1"}, {"--kv-cache-dtype", "int3"}, {"--api-key", "a,b"}, {"--max-num-seqs", ""}} {
		if err := v.AddDimension(c[0], c[1]); err == nil {
			t.Errorf("%q = %q was accepted", c[0], c[1])
		}
	}
	if err := v.AddDimension("--enable-prefix-caching", "on,off"); err != nil {
		t.Fatal(err)
	}
	// Without a runner there is no estimate, but the summary counts the
	// variants: the base and both states of the switch.
	if s := v.Summary(); !strings.HasPrefix(s, "3 variants") {
		t.Errorf("summary %q", s)
	}
}

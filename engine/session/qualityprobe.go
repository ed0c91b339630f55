package session

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/quality"
)

// QualityProbeInput is a quality probe as a user names it, in either front
// end (the CLI's --probe, --dataset and --max-tokens; the app's Quality
// check picker), read by one rule: NewQualityProbe.
type QualityProbeInput struct {
	// Name is "agreement" or a task probe NAME[:N] by the seed tool's
	// profile names and aliases ("gsm8k:200", "mmlupro", "gpqa").
	Name string
	// Demo asks the demo's own data sets, the only problems its simulator
	// reads.
	Demo bool
	// Dataset is a file in the probe's layout read instead of fetching the
	// pinned one ("" for none).
	Dataset string
	// DatasetDir returns the folder fetched data sets are cached in
	// (QualityDatasetDir of the history); it is called only when a data
	// set is to be fetched, so a front end resolves the history's path
	// only then.
	DatasetDir func() (string, error)
	// MaxTokens of each answer (0: quality.DefaultTaskMaxTokens).
	MaxTokens int
	// Progress, when set, is told after each item or prompt.
	Progress func(done, total int)
}

// ProbeNameError is a probe name that names no probe, or asks more items
// than its data set has: the front end's input is wrong (the CLI reports
// it as a usage error of --probe). Msg is the sentence without the flag.
type ProbeNameError struct{ Msg string }

func (e *ProbeNameError) Error() string { return e.Msg }

// QualityDatasetDir is the folder beside the history where fetched data
// sets are cached (as predict keeps model facts in "models").
func QualityDatasetDir(historyPath string) string {
	return filepath.Join(filepath.Dir(historyPath), "datasets")
}

// taskProbes are the task probes by the seed tool's profile names: the
// pinned source, how its file is read, and the demo's own set.
var taskProbes = map[string]struct {
	src   quality.Source
	parse func(name string, data []byte) (*quality.Dataset, error)
	demo  func() (*quality.Dataset, error)
}{
	"gsm8k": {quality.GSM8K, quality.ParseGSM8K, func() (*quality.Dataset, error) {
		return quality.ParseGSM8K(quality.DemoDatasetName, quality.DemoGSM8K(quality.DemoItems))
	}},
	"mmlu-pro": {quality.MMLUPro, func(n string, d []byte) (*quality.Dataset, error) {
		return quality.ParseChoice(n, quality.LayoutMMLUPro, d)
	}, demoChoice},
	"gpqa-diamond": {quality.GPQADiamond, func(n string, d []byte) (*quality.Dataset, error) {
		return quality.ParseChoice(n, quality.LayoutGPQA, d)
	}, demoChoice},
}

// probeAliases are the seed tool's other names for its profiles
// (llm_decode_bench.py 0.4.29, BUILTIN_TEST_PROFILE_ALIASES).
var probeAliases = map[string]string{"gsm-8k": "gsm8k", "mmlupro": "mmlu-pro", "mmlu-pro-1000": "mmlu-pro", "gpqa": "gpqa-diamond", "gpqa_diamond": "gpqa-diamond"}

func demoChoice() (*quality.Dataset, error) {
	return quality.ParseChoice(quality.DemoChoiceName, quality.LayoutMMLUPro, quality.DemoChoice(quality.DemoItems))
}

// NewQualityProbe reads in into the probe to run (for Quality) and the
// result's identity before it runs (quality.Comparable's input, so a
// baseline is refused before anything is asked). A task probe's data set
// is the demo's own on Demo, else in.Dataset, else the pinned file fetched
// into the cache (quality.Fetch: offline, its error names the file and
// where to put it). The probe is named by its canonical name and item
// count ("mmlu-pro:200"), so results pair whatever alias asked for them.
// A name that is no probe is a *ProbeNameError.
func NewQualityProbe(ctx context.Context, in QualityProbeInput) (QualityProbe, *quality.Result, error) {
	if in.Name == "agreement" {
		p := quality.AgreementProbe{Progress: in.Progress}
		return p.Run, p.Header(), nil
	}
	kind, n, hasN := strings.Cut(in.Name, ":")
	if a, ok := probeAliases[kind]; ok {
		kind = a
	}
	tp, known := taskProbes[kind]
	items, err := strconv.Atoi(n)
	if !known || (hasN && (err != nil || items < 1)) {
		return nil, nil, &ProbeNameError{fmt.Sprintf("%q is not a probe: use agreement, gsm8k:N, mmlu-pro:N or gpqa-diamond:N (N items, e.g. gsm8k:200)", in.Name)}
	}
	var ds *quality.Dataset
	switch {
	case in.Dataset != "":
		data, err := os.ReadFile(in.Dataset)
		if err != nil {
			return nil, nil, fmt.Errorf("cannot read the data set %s (%v): check the path", in.Dataset, err)
		}
		if ds, err = tp.parse(tp.src.Name, data); err != nil {
			return nil, nil, err
		}
	case in.Demo:
		ds, _ = tp.demo()
	default:
		if in.DatasetDir == nil {
			return nil, nil, fmt.Errorf("no folder to keep the data set %s in: give its file instead", tp.src.File)
		}
		dir, err := in.DatasetDir()
		if err != nil {
			return nil, nil, err
		}
		data, err := quality.Fetch(ctx, nil, tp.src, dir)
		if err != nil {
			return nil, nil, err
		}
		if ds, err = tp.parse(tp.src.Name, data); err != nil {
			return nil, nil, err
		}
	}
	if !hasN {
		items = len(ds.Items)
	}
	if items > len(ds.Items) {
		return nil, nil, &ProbeNameError{fmt.Sprintf("%s has %d items, fewer than %d", ds.Name, len(ds.Items), items)}
	}
	p := quality.TaskProbe{Name: fmt.Sprintf("%s:%d", kind, items), Dataset: ds, N: items, MaxTokens: in.MaxTokens, Progress: in.Progress}
	return p.Run, p.Header(), nil
}

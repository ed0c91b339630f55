package quality

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"

	"github.com/rigbench/rigbench/internal/safefile"
)

// Source is where a data set's file comes from and what it must be: it is
// fetched on first use, checked against SHA256 and kept in the cache
// folder as File, never stored in RigBench's repository.
type Source struct {
	// Name is the data set's name ("gsm8k").
	Name string
	// URL is the public file, at a pinned revision.
	URL string
	// SHA256 is the file's pinned sha256 (hex).
	SHA256 string
	// File is the cached file's name in the cache folder.
	File string
	// Size is the file's length in bytes, for the truncation message; 0
	// when not pinned.
	Size int64
	// BuiltFrom, when set, says that the file is not published as such but
	// built from another (a sentence naming it and the tool that builds
	// it): Fetch then takes the file only from the cache, checked against
	// SHA256, and otherwise says how to get it.
	BuiltFrom string
}

// GSM8K is the GSM8K test split (1,319 problems) at openai/grade-school-math
// commit 3101c7d, the file and sha256 other evaluation harnesses pin too.
var GSM8K = Source{
	Name:   "gsm8k",
	URL:    "https://raw.githubusercontent.com/openai/grade-school-math/3101c7d5072418e28b9008a6636bde82a006892c/grade_school_math/data/test.jsonl",
	SHA256: "3730d312f6e3440559ace48831e51066acaca737f6eabec99bccb9e4b3c39d14",
	File:   "gsm8k-test.jsonl",
}

// MMLUPro is the seed tool's pinned stratified 1,000-question subset of
// TIGER-Lab/MMLU-Pro's test split (Apache-2.0; largest-remainder per
// category, floor-stride by question_id), as llm-inference-bench 0.4.29
// states it (llm_decode_bench.py, BENCH_DATASETS["mmlu_pro_1000"]): the URL
// is its repository's main branch, not a fixed commit, so the sha256 it
// states is the pin.
var MMLUPro = Source{
	Name:   "mmlu-pro",
	URL:    "https://raw.githubusercontent.com/local-inference-lab/llm-inference-bench/main/data/mmlu_pro_1000.jsonl",
	SHA256: "a229ed37f28bea012bf08e81d8ae3358dda17ef7370dca360f632952e3bdcaca",
	File:   "mmlu_pro_1000.jsonl",
}

// GPQADiamond is GPQA Diamond's 198 questions (CC BY 4.0) in the seed
// tool's JSONL, which llm-inference-bench 0.4.29 builds on first use
// (llm_decode_bench.py, BENCH_DATASETS["gpqa_diamond"] and
// _build_gpqa_diamond_jsonl): it downloads idavidrein/gpqa's
// password-protected dataset.zip (main branch, sha256 461ae732…08dc),
// reads dataset/gpqa_diamond.csv and shuffles each item's four options
// with Python's random.Random seeded by "gpqa-diamond-<record id>". The
// GPQA authors ask that the plaintext never be republished, so it is
// published nowhere as such; RigBench does not build it, and takes the
// seed tool's file, checked against the sha256 the seed tool states for it.
var GPQADiamond = Source{
	Name:   "gpqa-diamond",
	SHA256: "a8472c5a82ea2df8f209c17713aba1a6d409120c609ec0582dae0cb940c7e28c",
	File:   "gpqa_diamond.jsonl",
	BuiltFrom: "llm-inference-bench builds it from the password-protected https://github.com/idavidrein/gpqa/raw/main/dataset.zip " +
		"(run `python3 llm_decode_bench.py --test-profile gpqa-diamond` once; it keeps it at ~/.cache/llm_decode_bench/datasets/gpqa_diamond.jsonl)",
}

// maxDatasetBytes bounds a download: GSM8K's test split is 0.7 MB.
const maxDatasetBytes = 256 << 20

// Fetch returns the data set's bytes: from cacheDir when the cached file
// matches the pinned sha256, else downloaded with client, checked and then
// written to cacheDir atomically. Its errors are one sentence with what to
// do: offline (which file, where to put it), a truncated download, a file
// whose sha256 is not the pinned one.
func Fetch(ctx context.Context, client *http.Client, src Source, cacheDir string) ([]byte, error) {
	path := filepath.Join(cacheDir, src.File)
	state := "is not cached"
	if data, err := os.ReadFile(path); err == nil {
		if hexSHA(data) == src.SHA256 {
			return data, nil
		}
		// A damaged or foreign file is replaced by a good download below.
		state = "in the cache does not match its pinned sha256"
	}
	if src.BuiltFrom != "" {
		return nil, fmt.Errorf("%s %s and is not published as a file: %s; copy that file (sha256 %s) to %s", src.Name, state, src.BuiltFrom, src.SHA256, path)
	}
	if client == nil {
		client = http.DefaultClient
	}
	data, err := download(ctx, client, src, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the sentence already
		}
		var ne net.Error
		var op *net.OpError
		if errors.As(err, &op) || errors.As(err, &ne) {
			return nil, fmt.Errorf("%s %s and %s cannot be reached (%v): download that file and put it at %s", src.Name, state, src.URL, err, path)
		}
		return nil, err
	}
	if sum := hexSHA(data); sum != src.SHA256 {
		return nil, fmt.Errorf("%s from %s has sha256 %s, not the pinned %s: the source changed or a proxy altered it; put the right file at %s", src.Name, src.URL, sum, src.SHA256, path)
	}
	if err := os.MkdirAll(cacheDir, 0o755); err != nil {
		return nil, fmt.Errorf("cannot make the data set folder %s (%v): check its permissions", cacheDir, err)
	}
	if err := safefile.WriteBytes(path, data); err != nil {
		return nil, fmt.Errorf("cannot keep %s in %s (%v): check the folder's permissions", src.Name, cacheDir, err)
	}
	return data, nil
}

// download GETs src.URL whole; a body shorter than its Content-Length (a
// dropped connection) is a truncation error, never a short file. path is
// where the file belongs, for the messages.
func download(ctx context.Context, client *http.Client, src Source, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, src.URL, nil)
	if err != nil {
		return nil, fmt.Errorf("the address of %s (%s) is not a URL: %v", src.Name, src.URL, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s for %s: download the file yourself and put it at %s", src.URL, resp.Status, src.Name, path)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxDatasetBytes+1))
	want := resp.ContentLength
	if want <= 0 {
		want = src.Size
	}
	if err != nil || (want > 0 && int64(len(data)) < want) {
		of := ""
		if want > 0 {
			of = fmt.Sprintf(" of %d", want)
		}
		return nil, fmt.Errorf("the download of %s stopped after %d%s bytes: run the probe again, or download %s yourself and put it at %s", src.Name, len(data), of, src.URL, path)
	}
	if len(data) > maxDatasetBytes {
		return nil, fmt.Errorf("%s sent more than %d MiB for %s, far more than the data set: check the URL", src.URL, maxDatasetBytes>>20, src.Name)
	}
	return data, nil
}

func hexSHA(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

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
	// Archive, when set, is where the file is built from (gpqa.go): URL is
	// then unused, and SHA256 is the built file's.
	Archive *Archive
	// Hint, when set, is how else to get the file, added to the offline
	// sentence.
	Hint string
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
// tool's JSONL, built the way llm-inference-bench 0.4.29 builds it on first
// use (llm_decode_bench.py, BENCH_DATASETS["gpqa_diamond"] and
// _build_gpqa_diamond_jsonl; gpqa.go): from idavidrein/gpqa's
// password-protected dataset.zip, its options shuffled per item, checked
// against the sha256 the seed tool states for the built file. The GPQA
// authors ask that the plaintext never be republished: it is published
// nowhere as such, and kept only in the cache.
var GPQADiamond = Source{
	Name:    "gpqa-diamond",
	SHA256:  "a8472c5a82ea2df8f209c17713aba1a6d409120c609ec0582dae0cb940c7e28c",
	File:    "gpqa_diamond.jsonl",
	Archive: gpqaArchive,
	Hint:    "or copy the file llm_decode_bench.py --test-profile gpqa-diamond builds into ~/.cache/llm_decode_bench/datasets/",
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
	if client == nil {
		client = http.DefaultClient
	}
	from := src.URL
	if src.Archive != nil {
		from = src.Archive.URL
	}
	data, err := download(ctx, client, src, from, path)
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in the sentence already
		}
		if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
			return nil, fmt.Errorf("%s closed the connection before answering for %s: run the probe again, or %s", from, src.Name, src.yourself(from, path))
		}
		var ne net.Error
		var op *net.OpError
		if errors.As(err, &op) || errors.As(err, &ne) {
			what := "download that file and put it at " + path
			if src.Archive != nil {
				what = fmt.Sprintf("build %s from it (sha256 %s) and put it at %s", src.File, src.SHA256, path)
			}
			if src.Hint != "" {
				what += ", " + src.Hint
			}
			return nil, fmt.Errorf("%s %s and %s cannot be reached (%v): %s", src.Name, state, from, err, what)
		}
		return nil, err
	}
	if a := src.Archive; a != nil {
		if sum := hexSHA(data); sum != a.SHA256 {
			return nil, fmt.Errorf("the archive of %s from %s has sha256 %s, not the pinned %s: the source changed or a proxy altered it; build %s yourself and put it at %s", src.Name, from, sum, a.SHA256, src.File, path)
		}
		member, err := readZipMember(data, a.Member, a.Password)
		if err == nil {
			data, err = a.Build(member)
		}
		if err != nil {
			return nil, fmt.Errorf("cannot build %s from %s (%v): build it yourself and put it at %s", src.File, from, err, path)
		}
		if sum := hexSHA(data); sum != src.SHA256 {
			return nil, fmt.Errorf("%s built from %s has sha256 %s, not the pinned %s: put the seed tool's file at %s", src.File, from, sum, src.SHA256, path)
		}
	} else if sum := hexSHA(data); sum != src.SHA256 {
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

// yourself is what to do by hand when from cannot be had: download it to
// path, or, for an archive, build the file from it.
func (src Source) yourself(from, path string) string {
	if src.Archive != nil {
		return fmt.Sprintf("build %s from %s yourself and put it at %s", src.File, from, path)
	}
	return fmt.Sprintf("download %s yourself and put it at %s", from, path)
}

// download GETs from (src's file or archive) whole; a body shorter than
// its Content-Length (a dropped connection) is a truncation error, never a
// short file. path is where the file belongs, for the messages.
func download(ctx context.Context, client *http.Client, src Source, from, path string) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, from, nil)
	if err != nil {
		return nil, fmt.Errorf("the address of %s (%s) is not a URL: %v", src.Name, from, err)
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s answered %s for %s: %s", from, resp.Status, src.Name, src.yourself(from, path))
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
		return nil, fmt.Errorf("the download of %s stopped after %d%s bytes: run the probe again, or %s", src.Name, len(data), of, src.yourself(from, path))
	}
	if len(data) > maxDatasetBytes {
		return nil, fmt.Errorf("%s sent more than %d MiB for %s, far more than the data set: check the URL", from, maxDatasetBytes>>20, src.Name)
	}
	return data, nil
}

func hexSHA(data []byte) string {
	sum := sha256.Sum256(data)
	return hex.EncodeToString(sum[:])
}

package report

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/quality"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// runFileKinds names what OpenRun accepts, for its error sentences.
const runFileKinds = "a run exported as JSON, a measurements CSV (the reference format) or llm_decode_bench's benchmark_results.json"

// reportKinds are the exports RigBench writes for reading, by extension,
// which OpenRun names rather than parse as CSV.
var reportKinds = map[string]string{
	".md": "Markdown report", ".markdown": "Markdown report", ".html": "HTML report", ".htm": "HTML report",
	".png": "PNG chart", ".svg": "SVG chart", ".pdf": "PDF",
}

// RunFileExtensions are the file extensions OpenRun reads, for a file
// dialog's filter.
var RunFileExtensions = []string{".json", ".csv"}

// schemaFamily is the part of rundoc.Schema every version of a RigBench run
// file shares ("rigbench.run/"), which tells another version's file from a
// file that is no run at all.
var schemaFamily = rundoc.Schema[:strings.LastIndex(rundoc.Schema, "/")+1]

// OpenRun reads a run file, the one reader behind the app's import, the
// CLI's import and compare: a run document (JSON, as exported) or a
// measurements CSV in the reference format. The kind is told from the
// content: after an optional UTF-8 byte-order mark and blanks, '{' or '['
// is JSON and anything else CSV, unless the file is named .json. Both are bounded by
// rundoc.MaxRunJSONBytes. A CSV carries no start time, so its run is dated
// now (its Origin says it was imported). Reading stops when ctx is done.
//
// Errors are one sentence naming the file by its base name ("the file
// x.json is cut short: …"), with what to do next; a front end adds nothing
// but its own prefix.
func OpenRun(ctx context.Context, path string) (*rundoc.Run, error) {
	name := filepath.Base(path)
	if fi, err := os.Stat(path); err == nil && fi.IsDir() {
		return nil, fmt.Errorf("%s is a folder, not a file: give the files in it instead, e.g. %s", name, filepath.Join(path, "*.json"))
	}
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("the file %s could not be opened (%v): check that it exists and that you may read it", name, reason(err))
	}
	defer f.Close()
	data, err := io.ReadAll(io.LimitReader(ctxReader{ctx, f}, rundoc.MaxRunJSONBytes+1))
	if err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		return nil, fmt.Errorf("the file %s could not be read (%v): copy it somewhere local and try again", name, reason(err))
	}
	if len(data) > rundoc.MaxRunJSONBytes {
		return nil, fmt.Errorf("the file %s is larger than %d MiB, more than any RigBench run: it is not a run file", name, rundoc.MaxRunJSONBytes>>20)
	}
	// Decoding a large file takes a second or more and reads no context:
	// a Ctrl-C answers at once, and the decode is left to finish unseen
	// (issue 36 item 10: SIGINT during import took 1.03–1.22 s).
	type result struct {
		r   *rundoc.Run
		err error
	}
	done := make(chan result, 1)
	go func() {
		r, err := ReadRunData(data, name)
		done <- result{r, err}
	}()
	select {
	case <-ctx.Done():
		return nil, ctx.Err()
	case res := <-done:
		return res.r, res.err
	}
}

// ReadRunData is OpenRun on a file's content already in memory; name is
// the file's base name, for the error sentences.
func ReadRunData(data []byte, name string) (*rundoc.Run, error) {
	data = bytes.TrimPrefix(data, []byte("\xef\xbb\xbf"))
	head := bytes.TrimLeft(data, " \t\r\n")
	if len(head) == 0 {
		return nil, fmt.Errorf("the file %s is empty: export the run again; RigBench reads %s", name, runFileKinds)
	}
	if kind, ok := reportKinds[strings.ToLower(filepath.Ext(name))]; ok {
		// RigBench's own exports for people to read: said so, instead of
		// a CSV parser's complaint about their first line.
		return nil, fmt.Errorf("the file %s is a %s, written for people to read, and holds no run to import: pick %s", name, kind, runFileKinds)
	}
	if bytes.HasPrefix(data, []byte("SQLite format 3\x00")) {
		// A history (the CSV reader said "no phase column").
		return nil, fmt.Errorf("the file %s is an SQLite database, such as a RigBench history, not a run file: to see its runs open it as the history (rigbench-cli runs --db %s, or RIGBENCH_DB for the app), or export a run from it and import that", name, name)
	}
	isJSON := head[0] == '{' || head[0] == '['
	if !isJSON && strings.EqualFold(filepath.Ext(name), ".json") {
		return nil, fmt.Errorf("the file %s is not a RigBench run file (it is not a JSON document): pick %s", name, runFileKinds)
	}
	if !isJSON {
		r, err := ReadReferenceCSVNamed(bytes.NewReader(data), name)
		if err != nil {
			return nil, fmt.Errorf("the file %s could not be read as a measurements CSV: %w", name, err)
		}
		if r.CreatedAt.IsZero() {
			r.CreatedAt = time.Now().UTC().Truncate(time.Second)
		}
		return r, nil
	}
	// Python writes a figure it could not compute as NaN or Infinity,
	// which JSON has no spelling for: said with its field, rather than as
	// a file that is not JSON.
	if !json.Valid(head) {
		if field, spelled, ok := nonFiniteField(head); ok {
			return nil, fmt.Errorf("the file %s holds %s in %s, which is not a number: the tool that wrote it had no figure there; remove that entry or measure again", name, spelled, field)
		}
	}
	if head[0] == '{' && isLDBJSON(head) {
		r, err := ReadLDBJSON(head)
		if err != nil {
			return nil, fmt.Errorf("the file %s could not be read as an llm_decode_bench result: %w", name, err)
		}
		if r.CreatedAt.IsZero() {
			r.CreatedAt = time.Now().UTC().Truncate(time.Second)
		}
		return r, nil
	}
	if err := checkRunJSON(head); err != nil {
		return nil, fmt.Errorf("the file %s %w", name, err)
	}
	r, err := rundoc.ReadRun(bytes.NewReader(data))
	if err != nil {
		return nil, fmt.Errorf("the file %s could not be imported: %w", name, err)
	}
	if err := blankCell(r); err != nil {
		return nil, fmt.Errorf("the file %s could not be imported: %w", name, err)
	}
	if _, err := quality.FromRun(r.Quality); err != nil {
		return nil, fmt.Errorf("the file %s could not be imported: %w", name, err)
	}
	return r, nil
}

// blankCell refuses a cell that says it ran (Valid, Requests queued)
// without its rate, which would show as a Valid cell with no figure: a
// file edited by hand or damaged, since RigBench never writes one.
func blankCell(r *rundoc.Run) error {
	for i := range r.Cells {
		c := &r.Cells[i]
		if !c.Status.Ran() {
			continue
		}
		switch {
		case c.Phase == rundoc.PhasePrefill && c.PromptTokS == 0:
			return fmt.Errorf("cells[%d] (%s) is %s but has no prompt_tok_s: give the rate it measured, or the status it ended with", i, c.Label(), c.Status)
		case c.Phase == rundoc.PhaseDecode && c.TotalTokS == 0:
			return fmt.Errorf("cells[%d] (%s) is %s but has no total_tok_s: give the rate it measured, or the status it ended with", i, c.Label(), c.Status)
		}
	}
	return nil
}

// checkRunJSON tells, before rundoc.ReadRun reads the document, the cases
// a user can act on: a file cut short, a list, one that is no RigBench run,
// and one from another version of RigBench. Its errors finish the sentence
// "the file NAME …".
func checkRunJSON(data []byte) error {
	if data[0] == '[' {
		return fmt.Errorf("holds a list, not one run: export the runs one by one; RigBench reads %s", runFileKinds)
	}
	var probe struct {
		Schema *string `json:"schema"`
	}
	if err := json.NewDecoder(bytes.NewReader(data)).Decode(&probe); err != nil {
		if errors.Is(err, io.ErrUnexpectedEOF) {
			return errors.New("is cut short: export the run again, or copy the whole file")
		}
		return fmt.Errorf("is not a RigBench run file (it is not a JSON document): pick %s", runFileKinds)
	}
	switch {
	case probe.Schema == nil:
		return fmt.Errorf(`is not a RigBench run file (it has no "schema" field): pick %s`, runFileKinds)
	case *probe.Schema == rundoc.Schema:
		return nil
	case strings.HasPrefix(*probe.Schema, schemaFamily):
		return fmt.Errorf("comes from another version of RigBench (%q; this one reads %q): update RigBench, or export the run again with this version", *probe.Schema, rundoc.Schema)
	}
	return fmt.Errorf("is not a RigBench run file (its schema is %q): pick %s", *probe.Schema, runFileKinds)
}

// reason is an OS error without the path it repeats ("permission denied").
func reason(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	return err
}

// ctxReader stops a read when its context is done, so Ctrl-C ends a long
// import.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

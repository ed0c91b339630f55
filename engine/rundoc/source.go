package rundoc

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
)

// Version is RigBench's version, as FyneApp.toml gives it to the app's
// package (a test in engine/report checks the two agree). Files RigBench
// writes in another tool's layout name it (WrittenBy), so a reader knows
// RigBench, not that tool, measured the run.
const Version = "0.1.0"

// WrittenBy is how a file RigBench writes names its writer: "RigBench 0.1.0".
const WrittenBy = "RigBench " + Version

// Source is what an imported run's file said about itself beyond the
// fields of the run (docs/run-json.md: source). It is nil for a run
// measured here and for a run imported from RigBench's own JSON, whose
// document says everything.
type Source struct {
	// Format is the file's layout: SourceLDB or SourceCSV.
	Format string `json:"format"`
	// WrittenBy names the tool that wrote the file as the file names it
	// ("llm_decode_bench 0.4.29", "RigBench 0.1.0"); "" when it does not.
	WrittenBy string `json:"written_by,omitempty"`
	// ServerKnown is true when the file says whether its server was real
	// or simulated (Run.Simulated then says which). When it is false,
	// nothing in the file says so, and RigBench calls the server "not
	// known" rather than real.
	ServerKnown bool `json:"server_known,omitempty"`
	// File is the imported JSON file itself, compacted: the fields RigBench
	// reads into the run and every other one (an llm_decode_bench file's
	// event log, diagnostics, per-request samples), so an export in its
	// layout gives back every field it came with. Absent for a CSV, whose
	// columns RigBench reads whole.
	File json.RawMessage `json:"file,omitempty"`
}

// Formats of Source.Format.
const (
	// SourceLDB: llm-inference-bench's llm_decode_bench.py result file
	// (benchmark_results.json).
	SourceLDB = "llm-decode-bench"
	// SourceCSV: a measurements CSV (the published reference format).
	SourceCSV = "csv"
)

// ServerLabel says what served the run, for people: "simulated", "real",
// or "not known" for an imported file that does not say (Source). A run
// measured here knows.
func (r *Run) ServerLabel() string {
	switch {
	case r.Simulated:
		return "simulated"
	case r.Source != nil && !r.Source.ServerKnown:
		return ServerNotKnown
	}
	return "real"
}

// ServerNotKnown is ServerLabel of an imported run whose file does not say
// what served it.
const ServerNotKnown = "not known"

// Physical bounds on what a file may claim, far above any card and any
// server RigBench can measure, so an absurd figure (a typo, a hostile
// file, a tool's overflow) is refused with its field's name rather than
// shown (docs/run-json.md: Bounds).
const (
	// MaxTokS bounds every rate in tokens per second: 10 million. The
	// fastest decode of one server today is of the order of 10^5 tok/s
	// (many streams on several accelerators) and prefill 10^6; a file
	// beyond 10^7 holds an error, not a measurement.
	MaxTokS = 1e7
)

// source checks an imported file's record: a known format, a
// writer of sane length, and a file that is one JSON object.
func (v *validator) source(s *Source) {
	switch s.Format {
	case SourceLDB, SourceCSV:
	default:
		v.fail("source.format %q is not one of %s, %s", s.Format, SourceLDB, SourceCSV)
	}
	v.text("source.written_by", s.WrittenBy, MaxNameLen)
	if len(s.File) > 0 {
		if t := bytes.TrimLeft(s.File, " \t\r\n"); len(t) == 0 || t[0] != '{' || !json.Valid(s.File) {
			v.fail("source.file is not a JSON object")
		}
	}
}

// rate requires a rate in tokens per second within MaxTokS.
func (v *validator) rate(field string, f float64) {
	if math.IsNaN(f) || f < 0 || f > MaxTokS {
		v.fail("%s is %v, want a rate from 0 to %s tok/s", field, f, fmt.Sprintf("%g", MaxTokS))
	}
}

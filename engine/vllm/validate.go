package vllm

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"
)

// Severity of a validation finding.
type Severity string

// Severities: an error blocks the launch, a warning is shown beside it.
const (
	SeverityError   Severity = "error"
	SeverityWarning Severity = "warning"
)

// FieldError is one validation finding. Field is a flag name ("--max-num-seqs")
// or a config field ("model", "image", "gpus", "port", "hf_cache"); Message is
// one sentence a user can act on.
type FieldError struct {
	Field    string   `json:"field"`
	Message  string   `json:"message"`
	Severity Severity `json:"severity"`
}

func (e FieldError) Error() string { return e.Message }

// Errors returns only the findings that block a launch.
func Errors(findings []FieldError) []FieldError {
	return slices.DeleteFunc(slices.Clone(findings), func(f FieldError) bool { return f.Severity != SeverityError })
}

// Validate checks the config and returns every finding, errors first in
// field order. An empty result means the launch can go ahead.
func (c LaunchConfig) Validate() []FieldError {
	var out []FieldError
	add := func(sev Severity, field, format string, a ...any) {
		out = append(out, FieldError{Field: field, Message: fmt.Sprintf(format, a...), Severity: sev})
	}
	if strings.TrimSpace(c.Model) == "" {
		add(SeverityError, "model", "Choose a model: enter its Hugging Face id, such as Qwen/Qwen2.5-1.5B-Instruct.")
	} else if strings.ContainsAny(c.Model, " \t\n") {
		add(SeverityError, "model", "The model id %q contains spaces: a Hugging Face id looks like owner/name.", c.Model)
	} else if hasControl(c.Model) {
		add(SeverityError, "model", "The model id %s contains a control character: retype it.", strconv.QuoteToASCII(c.Model))
	}
	if strings.ContainsAny(c.Image, " \t\n:@") {
		add(SeverityError, "image", "The image name %q is not valid: use a name like vllm/vllm-openai and put the tag in the tag field.", c.Image)
	}
	if strings.ContainsAny(c.Tag, " \t\n/") {
		add(SeverityError, "tag", "The image tag %q is not valid: use a tag like v0.11.0 or latest.", c.Tag)
	}
	if !validGPUs(c.GPUs) {
		add(SeverityError, "gpus", "GPUs %q is not understood: use all, a list of GPU numbers like 0,1, or leave it empty.", c.GPUs)
	}
	if c.Port < 0 || c.Port > 65535 {
		add(SeverityError, "port", "Port %d is not a port number: use 1 to 65535, or 0 to pick a free one.", c.Port)
	}
	if c.TokenSource == TokenInline && strings.TrimSpace(c.HFToken) == "" {
		add(SeverityError, "hf_token", "The Hugging Face token is empty: paste it, or choose another token source.")
	}
	img, known := c.ImageVersion()
	for _, fv := range c.Flags {
		out = append(out, validateFlag(fv, img, known)...)
		if hasControl(fv.Value) {
			add(SeverityError, fv.Name, "The value of %s contains a control character (%s): retype it.", fv.Name, strconv.QuoteToASCII(fv.Value))
		}
	}
	for _, a := range c.Extra {
		if hasControl(a) {
			add(SeverityError, "extra", "The argument %s contains a control character: retype it.", strconv.QuoteToASCII(a))
		}
	}
	out = append(out, c.crossChecks()...)
	slices.SortStableFunc(out, func(a, b FieldError) int {
		if a.Severity == b.Severity {
			return 0
		}
		if a.Severity == SeverityError {
			return -1
		}
		return 1
	})
	return out
}

// hasControl reports a C0 control (other than tab), DEL or C1 control in
// s: typed by mistake (ESC, BEL), it would act on a terminal that shows
// the command and mean nothing to vLLM.
func hasControl(s string) bool {
	return strings.ContainsFunc(s, func(r rune) bool { return r < 0x20 && r != '\t' || r >= 0x7f && r <= 0x9f })
}

var gpuList = regexp.MustCompile(`^(\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+)(,(\d+|GPU-[0-9a-fA-F-]+|MIG-[0-9a-zA-Z/-]+))*$`)

func validGPUs(g string) bool {
	if g == "" || g == "all" {
		return true
	}
	if n, ok := strings.CutPrefix(g, "count="); ok {
		v, err := strconv.Atoi(n)
		return err == nil && v > 0
	}
	return gpuList.MatchString(g)
}

// validateFlag checks one flag's value against its catalog entry and the
// image's vLLM version.
func validateFlag(fv FlagValue, img Version, known bool) []FieldError {
	f, _, ok := Lookup(fv.Name)
	if !ok {
		return []FieldError{{Field: fv.Name, Severity: SeverityError,
			Message: fmt.Sprintf("%s is not a flag RigBench knows: put it in the extra arguments instead.", fv.Name)}}
	}
	one := func(sev Severity, format string, a ...any) []FieldError {
		return []FieldError{{Field: f.Name, Message: fmt.Sprintf(format, a...), Severity: sev}}
	}
	if f.Managed {
		return one(SeverityWarning, "RigBench sets %s itself for every launch: your value is replaced.", f.Name)
	}
	if before(img, known, f.Since) {
		return one(SeverityError, "%s needs vLLM %s or newer, and image tag %s is older: pick a newer tag or remove the flag.", f.Name, f.Since, img)
	}
	if f.Until != "" && !before(img, known, f.Until) && known {
		return one(SeverityError, "%s was removed in vLLM %s, and image tag %s is newer: remove the flag or pick an older tag.", f.Name, f.Until, img)
	}
	v := strings.TrimSpace(fv.Value)
	if since := f.ValueSince[v]; before(img, known, since) {
		return one(SeverityError, "%s %s needs vLLM %s or newer, and image tag %s is older: pick a newer tag or another value.", f.Name, v, since, img)
	}
	switch f.Type {
	case KindBool:
		if _, err := strconv.ParseBool(v); err != nil {
			return one(SeverityError, "%s is a switch: set it on or off (true or false), not %q.", f.Name, v)
		}
	case KindInt, KindFloat:
		return checkNumber(f, v)
	case KindEnum:
		if !slices.Contains(f.Allowed, v) {
			if f.Open && v != "" {
				return one(SeverityWarning, "%s %s is not in RigBench's list (%s): it works only if this vLLM version knows it.", f.Name, v, strings.Join(f.Allowed, ", "))
			}
			return one(SeverityError, "%s %q is not one of %s: pick one of those.", f.Name, v, strings.Join(f.Allowed, ", "))
		}
	case KindJSON:
		if !json.Valid([]byte(v)) {
			return one(SeverityError, "%s must be JSON, such as {\"key\": 1}: check the braces and quotes.", f.Name)
		}
	case KindString:
		if v == "" {
			return one(SeverityError, "%s is empty: enter a value or remove the flag.", f.Name)
		}
	}
	return nil
}

// checkNumber checks a numeric flag's type and range.
func checkNumber(f Flag, v string) []FieldError {
	one := func(format string, a ...any) []FieldError {
		return []FieldError{{Field: f.Name, Message: fmt.Sprintf(format, a...), Severity: SeverityError}}
	}
	if slices.Contains(f.Specials, v) {
		return nil
	}
	var x float64
	if f.Type == KindInt {
		n, ok := ParseInt(v, f.Suffixes)
		if !ok {
			return one("%s must be a whole number, not %q.", f.Name, v)
		}
		x = float64(n)
	} else {
		y, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(y) || math.IsInf(y, 0) {
			return one("%s must be a number such as %s, not %q.", f.Name, exampleValue(f), v)
		}
		x = y
	}
	if !f.HasRange {
		return nil
	}
	low := x < f.Min || f.MinExclusive && x == f.Min
	if low || x > f.Max {
		lower := "at least " + fmtNum(f.Min)
		if f.MinExclusive {
			lower = "above " + fmtNum(f.Min)
		}
		return one("%s must be %s and at most %s; %s is out of range.", f.Name, lower, fmtNum(f.Max), v)
	}
	return nil
}

func exampleValue(f Flag) string {
	if f.Default != "" {
		return f.Default
	}
	return fmtNum(f.Max)
}

func fmtNum(x float64) string { return strconv.FormatFloat(x, 'f', -1, 64) }

// ParseInt reads an integer flag value. With suffixes, vLLM's human-readable
// forms count too: k/m/g are powers of 1000, K/M/G powers of 1024
// ("32k" = 32000, "32K" = 32768).
func ParseInt(v string, suffixes bool) (int64, bool) {
	mult := int64(1)
	if suffixes && len(v) > 1 {
		if m, ok := suffixMult[v[len(v)-1]]; ok {
			mult, v = m, v[:len(v)-1]
		}
	}
	n, err := strconv.ParseInt(v, 10, 64)
	if err != nil || n > math.MaxInt64/mult || n < math.MinInt64/mult {
		return 0, false
	}
	return n * mult, true
}

var suffixMult = map[byte]int64{'k': 1e3, 'm': 1e6, 'g': 1e9, 'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30}

// crossChecks are rules between flags.
func (c LaunchConfig) crossChecks() []FieldError {
	var out []FieldError
	seqs, okS := c.intFlag("--max-num-seqs")
	batched, okB := c.intFlag("--max-num-batched-tokens")
	if okS && okB && batched < seqs {
		out = append(out, FieldError{Field: "--max-num-batched-tokens", Severity: SeverityError,
			Message: fmt.Sprintf("--max-num-batched-tokens (%d) must be at least --max-num-seqs (%d): raise it or lower --max-num-seqs.", batched, seqs)})
	}
	mml, okM := c.intFlag("--max-model-len")
	if okB && okM && mml > 0 && batched < mml && c.flagOff("--enable-chunked-prefill") {
		out = append(out, FieldError{Field: "--max-num-batched-tokens", Severity: SeverityError,
			Message: fmt.Sprintf("Without chunked prefill, --max-num-batched-tokens (%d) must be at least --max-model-len (%d): raise it or turn chunked prefill on.", batched, mml)})
	}
	if n, w := c.PickedGPUs(), c.WorldSize(); n > 0 && w > n {
		tp, _ := c.intFlag("--tensor-parallel-size")
		pp, _ := c.intFlag("--pipeline-parallel-size")
		if pp <= 1 {
			out = append(out, FieldError{Field: "--tensor-parallel-size", Severity: SeverityError,
				Message: fmt.Sprintf("--tensor-parallel-size %d needs %d GPUs, but the launch gives the container %d: choose more GPUs or lower it.", tp, w, n)})
		} else {
			out = append(out, FieldError{Field: "--pipeline-parallel-size", Severity: SeverityError,
				Message: fmt.Sprintf("--tensor-parallel-size %d × --pipeline-parallel-size %d needs %d GPUs, but the launch gives the container %d: choose more GPUs or lower them.", max(tp, 1), pp, w, n)})
		}
	}
	return out
}

// WorldSize is how many GPUs the launch's vLLM uses: --tensor-parallel-size
// × --pipeline-parallel-size, the tensor size being the pick's count when
// neither is set (parallelArgs), 1 when unset otherwise.
func (c LaunchConfig) WorldSize() int {
	if a := c.parallelArgs(); a != nil {
		return c.PickedGPUs()
	}
	tp, ok := c.intFlag("--tensor-parallel-size")
	if !ok || tp < 1 {
		tp = 1
	}
	pp, ok := c.intFlag("--pipeline-parallel-size")
	if !ok || pp < 1 {
		pp = 1
	}
	return int(min(tp, 1<<10) * min(pp, 1<<10)) // the catalog allows 16 each
}

func (c LaunchConfig) intFlag(name string) (int64, bool) {
	v, ok := c.Get(name)
	if !ok {
		return 0, false
	}
	f, _, _ := Lookup(name)
	return ParseInt(strings.TrimSpace(v), f.Suffixes)
}

func (c LaunchConfig) flagOff(name string) bool {
	v, ok := c.Get(name)
	if !ok {
		return false
	}
	b, err := strconv.ParseBool(v)
	return err == nil && !b
}

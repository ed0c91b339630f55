package sim

import (
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"

	"github.com/rigbench/rigbench/engine/vllm"
)

// argv0 is the program name vLLM's argparse errors start with.
const argv0 = "api_server.py"

// DefaultConfig is what `vllm serve` with no flags would run on the default
// profile: prefix caching on (vLLM V1), everything else from the profile in
// New, listening on 0.0.0.0:8000, real-time speed.
func DefaultConfig() Config {
	return Config{
		Profile:             DefaultProfile(),
		EnablePrefixCaching: true,
		Host:                "0.0.0.0",
		Port:                8000,
		Speed:               1,
		KVCacheDtype:        "auto",
	}
}

// flagKind says how a flag's value is read.
type flagKind int

const (
	flagBool flagKind = iota
	flagValue
)

// simFlag is one accepted flag; set is nil for vLLM flags the simulator
// accepts but does not model (so real command lines still start).
type simFlag struct {
	kind flagKind
	set  func(c *Config, v string) error
}

// ArgError is a command-line error worded like vLLM's argparse; cmd exits
// with status 2 for it, as argparse does.
type ArgError struct{ Msg string }

func (e *ArgError) Error() string { return argv0 + ": error: " + e.Msg }

func argErr(format string, a ...any) error { return &ArgError{Msg: fmt.Sprintf(format, a...)} }

// simFlags is the flag table. Names use dashes; ParseArgs also accepts
// underscores, as vLLM's FlexibleArgumentParser does.
var simFlags = map[string]simFlag{
	"--model":                  {flagValue, func(c *Config, v string) error { c.Model = v; return nil }},
	"--served-model-name":      {flagValue, func(c *Config, v string) error { c.Model = v; return nil }},
	"--max-model-len":          {flagValue, intFlag("--max-model-len", true, func(c *Config, n int) { c.MaxModelLen = n })},
	"--max-num-seqs":           {flagValue, intFlag("--max-num-seqs", false, func(c *Config, n int) { c.MaxNumSeqs = n })},
	"--tensor-parallel-size":   {flagValue, intFlag("--tensor-parallel-size", false, func(c *Config, n int) { c.TensorParallelSize = n })},
	"-tp":                      {flagValue, intFlag("--tensor-parallel-size", false, func(c *Config, n int) { c.TensorParallelSize = n })},
	"--pipeline-parallel-size": {flagValue, intFlag("--pipeline-parallel-size", false, func(c *Config, n int) { c.PipelineParallelSize = n })},
	"-pp":                      {flagValue, intFlag("--pipeline-parallel-size", false, func(c *Config, n int) { c.PipelineParallelSize = n })},
	"--max-num-batched-tokens": {flagValue, intFlag("--max-num-batched-tokens", true, func(c *Config, n int) { c.MaxNumBatchedTokens = n })},
	"--gpu-memory-utilization": {flagValue, floatFlag("--gpu-memory-utilization", func(c *Config, f float64) { c.GPUMemoryUtilization = f })},
	"--kv-cache-dtype": {flagValue, func(c *Config, v string) error {
		if _, ok := kvDtypeRatio(v); !ok {
			return argErr("argument --kv-cache-dtype: invalid choice: '%s' (choose from %s)", v, kvDtypeChoices())
		}
		c.KVCacheDtype = v
		return nil
	}},
	"--speculative-config": {flagValue, func(c *Config, v string) error {
		sp, err := parseSpeculativeConfig(v)
		c.Speculative = sp
		return err
	}},
	"--enable-prefix-caching":    {flagBool, func(c *Config, _ string) error { c.EnablePrefixCaching = true; return nil }},
	"--no-enable-prefix-caching": {flagBool, func(c *Config, _ string) error { c.EnablePrefixCaching = false; return nil }},
	"--api-key":                  {flagValue, func(c *Config, v string) error { c.APIKey = v; return nil }},
	"--quantization":             {flagValue, func(c *Config, v string) error { c.Quantization = v; return nil }},
	"--host":                     {flagValue, func(c *Config, v string) error { c.Host = v; return nil }},
	"--port":                     {flagValue, intFlag("--port", false, func(c *Config, n int) { c.Port = n })},
	"--seed":                     {flagValue, intFlag("--seed", false, func(c *Config, n int) { c.Seed = int64(n) })},

	"--distributed-executor-backend": {flagValue, func(c *Config, v string) error {
		switch v {
		case "ray", "mp", "uni", "external_launcher":
			c.DistributedExecutorBackend = v
			return nil
		}
		return argErr("argument --distributed-executor-backend: invalid choice: '%s' (choose from ray, mp, uni, external_launcher)", v)
	}},

	// The simulator's own flags.
	"--network-gbps":       {flagValue, floatFlag("--network-gbps", func(c *Config, f float64) { c.Network.Gbps = f })},
	"--network-latency-us": {flagValue, floatFlag("--network-latency-us", func(c *Config, f float64) { c.Network.LatencyUS = f })},
	"--profile": {flagValue, func(c *Config, v string) error {
		p, err := ProfileByName(v)
		if err != nil {
			return argErr("argument --profile: invalid choice: '%s' (choose from %s)", v, strings.Join(ProfileNames(), ", "))
		}
		c.Profile = p
		return nil
	}},
	"--speed": {flagValue, func(c *Config, v string) error {
		if v == "max" {
			v = "inf"
		}
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || f < 1 {
			return argErr("argument --speed: invalid value: '%s' (a factor of 1 or more, or inf)", v)
		}
		c.Speed = f
		return nil
	}},
	"--startup-delay":               {flagValue, durationFlag("--startup-delay", func(c *Config, d time.Duration) { c.StartupDelay = d })},
	"--fault-exit-after":            {flagValue, durationFlag("--fault-exit-after", func(c *Config, d time.Duration) { c.Faults.ExitAfter = d })},
	"--fault-stall-after-tokens":    {flagValue, intFlag("--fault-stall-after-tokens", false, func(c *Config, n int) { c.Faults.StallAfterTokens = n })},
	"--fault-malformed-chunk-after": {flagValue, intFlag("--fault-malformed-chunk-after", false, func(c *Config, n int) { c.Faults.MalformedChunkAfter = n })},
	"--personality": {flagValue, func(c *Config, v string) error {
		p, err := ParsePersonality(v)
		if err != nil {
			return argErr("argument --personality: %s", err)
		}
		c.Personality = p
		return nil
	}},
	// llama-server's sizing flags, for --personality llama-server.
	"--ctx-size":   {flagValue, intFlag("--ctx-size", true, func(c *Config, n int) { c.Llama.CtxSize = n })},
	"--parallel":   {flagValue, intFlag("--parallel", false, func(c *Config, n int) { c.Llama.Slots = n })},
	"--kv-unified": {flagBool, func(c *Config, _ string) error { c.Llama.KVUnified = true; return nil }},
	"--fault-close-idle": {flagValue, func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return argErr("argument --fault-close-idle: invalid value: '%s' (a fraction from 0 to 1)", v)
		}
		c.Faults.CloseIdleRate = f
		return nil
	}},
	"--fault-error-rate": {flagValue, func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || !(f >= 0 && f <= 1) {
			return argErr("argument --fault-error-rate: invalid value: '%s' (a fraction from 0 to 1)", v)
		}
		c.Faults.ErrorRate = f
		return nil
	}},
}

// ignoredValueFlags and ignoredBoolFlags are real vLLM flags the simulator
// accepts and does not model, so a command line written for vLLM starts.
var ignoredValueFlags = []string{
	"--dtype",
	"--data-parallel-size", "--tokenizer", "--revision", "--download-dir", "--load-format",
	"--swap-space", "--cpu-offload-gb", "--block-size", "--attention-backend",
	"--compilation-config", "--limit-mm-per-prompt", "--chat-template",
	"--tool-call-parser", "--reasoning-parser", "--uvicorn-log-level", "--max-logprobs",
	"--generation-config", "--override-generation-config",
	"--root-path", "--hf-overrides", "--max-num-partial-prefills", "--long-prefill-token-threshold",
	"--tokenizer-mode", "--scheduling-policy", "--kv-transfer-config", "--mm-processor-kwargs",
}

var ignoredBoolFlags = []string{
	"--trust-remote-code", "--enforce-eager", "--disable-log-requests", "--disable-log-stats",
	"--enable-chunked-prefill", "--no-enable-chunked-prefill", "--async-scheduling",
	"--language-model-only", "--enable-auto-tool-choice", "--disable-custom-all-reduce",
	"--disable-frontend-multiprocessing", "--enable-log-requests", "--enable-prompt-tokens-details",
}

func init() {
	for _, f := range ignoredValueFlags {
		simFlags[f] = simFlag{kind: flagValue}
	}
	for _, f := range ignoredBoolFlags {
		simFlags[f] = simFlag{kind: flagBool}
	}
}

// ParseArgs reads a vLLM-style command line (`--model M --max-model-len 32k
// …`) plus the simulator's flags (--profile, --speed, --seed,
// --startup-delay, --fault-*). The words are split by engine/vllm's
// SplitOptions, as the launch form splits them: values may follow the flag
// or an "="; underscores in names work like dashes. A bare positional
// argument is the model, as in `vllm serve MODEL`. Unknown flags fail with
// vLLM's argparse wording ("api_server.py: error: unrecognized arguments:
// --foo"), returned as *ArgError. Numeric fields left zero take the
// profile's defaults in New.
func ParseArgs(args []string) (Config, error) {
	c := DefaultConfig()
	if len(args) > 0 && args[0] == "serve" {
		args = args[1:] // `vllm serve …` pasted whole
	}
	var unknown []string
	positional, rest := 0, false
	for _, o := range vllm.SplitOptions(args, simArity) {
		switch {
		case rest || o.Name == "--":
			rest = true // argparse leaves "--" and what follows unrecognised here
			unknown = append(unknown, o.Name+o.Value)
			continue
		case o.Name == "":
			if positional++; positional > 1 {
				unknown = append(unknown, o.Value)
			} else {
				c.Model = o.Value
			}
			continue
		case isOptLevel(o.Name): // -O3 compilation level
			continue
		case !o.Known:
			// argparse does not know the flag's arity, so a following value
			// is unrecognized too.
			unknown = append(unknown, o.Name)
			if o.Eq {
				unknown[len(unknown)-1] += "=" + o.Value
			} else if o.HasValue {
				unknown = append(unknown, o.Value)
			}
			continue
		}
		if err := setSimFlag(&c, o); err != nil {
			return Config{}, err
		}
	}
	if len(unknown) > 0 {
		return Config{}, argErr("unrecognized arguments: %s", strings.Join(unknown, " "))
	}
	return c, nil
}

// setSimFlag applies one known flag, with argparse's errors for a switch
// given a value and a value flag given none.
func setSimFlag(c *Config, o vllm.Option) error {
	name := flagName(o.Name)
	f := simFlags[name]
	if f.kind == flagBool && o.HasValue {
		return argErr("argument %s: ignored explicit argument '%s'", name, o.Value)
	}
	if f.kind == flagValue && !o.HasValue {
		return argErr("argument %s: expected one argument", name)
	}
	if f.set == nil {
		return nil
	}
	return f.set(c, o.Value)
}

// simArity is the simulator's flag table as a vllm.Arity.
func simArity(name string) (takesValue, known bool) {
	if isOptLevel(name) {
		return false, true
	}
	f, ok := simFlags[flagName(name)]
	return ok && f.kind == flagValue, ok
}

// flagName spells a flag as the table does: underscores as dashes, as
// vLLM's FlexibleArgumentParser reads them.
func flagName(name string) string {
	if !strings.HasPrefix(name, "--") {
		return name
	}
	return "--" + strings.ReplaceAll(name[2:], "_", "-")
}

// isOptLevel reports a -O compilation level (-O3), which the simulator
// accepts and ignores.
func isOptLevel(name string) bool { return len(name) >= 2 && name[0] == '-' && name[1] == 'O' }

// intFlag reads an integer; human accepts vLLM's human_readable_int forms:
// "32k" = 32,000 (decimal, decimals allowed: "25.6k"), "32K" = 32,768
// (binary, whole numbers only), and "auto" or -1 = the model's maximum
// (stored as 0).
func intFlag(name string, human bool, set func(*Config, int)) func(*Config, string) error {
	return func(c *Config, v string) error {
		var n int
		var err error
		if human {
			n, err = parseHumanInt(v)
		} else {
			n, err = strconv.Atoi(v)
			if err == nil && (n < 0 || n > math.MaxInt32) {
				err = fmt.Errorf("negative")
			}
		}
		if err != nil {
			return argErr("argument %s: invalid %s value: '%s'", name, map[bool]string{true: "human_readable_int", false: "int"}[human], v)
		}
		set(c, n)
		return nil
	}
}

// parseHumanInt implements vLLM's human_readable_int.
func parseHumanInt(v string) (int, error) {
	s := strings.TrimSpace(v)
	if s == "auto" || s == "-1" {
		return 0, nil
	}
	if s == "" {
		return 0, fmt.Errorf("empty")
	}
	dec := map[byte]float64{'k': 1e3, 'm': 1e6, 'g': 1e9, 't': 1e12}
	bin := map[byte]int{'K': 1 << 10, 'M': 1 << 20, 'G': 1 << 30, 'T': 1 << 40}
	last := s[len(s)-1]
	if m, ok := dec[last]; ok {
		f, err := strconv.ParseFloat(s[:len(s)-1], 64)
		if err != nil || f < 0 || math.IsInf(f, 0) || f*m > math.MaxInt32 {
			return 0, fmt.Errorf("bad number")
		}
		return int(f * m), nil
	}
	if m, ok := bin[last]; ok {
		n, err := strconv.Atoi(s[:len(s)-1])
		if err != nil || n < 0 || n > math.MaxInt32/m {
			return 0, fmt.Errorf("bad number")
		}
		return n * m, nil
	}
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 || n > math.MaxInt32 {
		return 0, fmt.Errorf("bad number")
	}
	return n, nil
}

func floatFlag(name string, set func(*Config, float64)) func(*Config, string) error {
	return func(c *Config, v string) error {
		f, err := strconv.ParseFloat(v, 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return argErr("argument %s: invalid float value: '%s'", name, v)
		}
		set(c, f)
		return nil
	}
}

// durationFlag reads a Go duration ("90s", "1m30s") or plain seconds ("90").
func durationFlag(name string, set func(*Config, time.Duration)) func(*Config, string) error {
	return func(c *Config, v string) error {
		d, err := time.ParseDuration(v)
		if err != nil {
			f, ferr := strconv.ParseFloat(v, 64)
			if ferr != nil || math.IsNaN(f) || f > 1e9 {
				return argErr("argument %s: invalid duration value: '%s' (e.g. 30s)", name, v)
			}
			d = time.Duration(f * float64(time.Second))
		}
		if d < 0 {
			return argErr("argument %s: invalid duration value: '%s' (e.g. 30s)", name, v)
		}
		set(c, d)
		return nil
	}
}

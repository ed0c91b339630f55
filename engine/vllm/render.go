package vllm

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	redactpkg "github.com/rigbench/rigbench/internal/redact"
)

// flagArgs renders the catalog flags. A true boolean is its bare name, a
// false one its negation (or nothing when vLLM has none: off is then the
// default). redact replaces secret values.
func (c LaunchConfig) flagArgs(redact, skipManaged bool) []string {
	out := make([]string, 0, 2*len(c.Flags))
	for _, fv := range c.Flags {
		f, _, known := Lookup(fv.Name)
		if skipManaged && f.Managed {
			continue
		}
		if known && f.Type == KindBool {
			switch {
			case isTrue(fv.Value):
				out = append(out, f.Name)
			case f.Negation != "":
				out = append(out, f.Negation)
			}
			continue
		}
		v := fv.Value
		if redact && f.Secret {
			v = redactpkg.Mask
		}
		out = append(out, optionArgs(fv.Name, v)...)
	}
	return append(out, c.parallelArgs()...)
}

// parallelArgs is `--tensor-parallel-size N` when the launch picks N > 1
// GPUs and sets neither tensor nor pipeline parallelism (in Flags or
// Extra): vLLM would otherwise serve from the first GPU and leave the
// others idle. Every rendering (the container's arguments, the recorded
// and shown commands) carries it, so what the user sees is what runs.
func (c LaunchConfig) parallelArgs() []string {
	n := c.PickedGPUs()
	if n < 2 {
		return nil
	}
	for _, name := range []string{"--tensor-parallel-size", "--pipeline-parallel-size"} {
		if _, ok := c.Get(name); ok {
			return nil
		}
	}
	for _, a := range c.Extra {
		name, _, _ := strings.Cut(a, "=")
		if f, _, ok := Lookup(name); ok && (f.Name == "--tensor-parallel-size" || f.Name == "--pipeline-parallel-size") {
			return nil
		}
	}
	return []string{"--tensor-parallel-size", strconv.Itoa(n)}
}

// optionArgs renders an option and its value as two words, or as one
// "name=value" word when the value would read as an option of its own
// (argparse, and SplitOptions, would not take "-x" as the value).
func optionArgs(name, value string) []string {
	if IsOption(value) {
		return []string{name + "=" + value}
	}
	return []string{name, value}
}

// extraArgs renders Extra, hiding the values of secret-carrying options
// when redact is set.
func (c LaunchConfig) extraArgs(redact bool) []string {
	if !redact {
		return slices.Clone(c.Extra)
	}
	return RedactArgs(c.Extra)
}

// secretArg is one secret option found in an argument list: args[at] is
// its name, with its value after "=" (joined) or in args[at+1] (at+1 <
// len(args)), or none (the list ends with the name).
type secretArg struct {
	at     int
	name   string
	value  string
	joined bool
	bare   bool // no value follows
}

// secretArgs is the one walk of an argument list for secret options
// (SecretOption), in either spelling ("--hf-token X" or "--hf-token=X"):
// RedactArgs, SecretValues and WithoutSecretArgs read its answer.
func secretArgs(args []string) []secretArg {
	var out []secretArg
	for i := 0; i < len(args); i++ {
		name, value, joined := strings.Cut(args[i], "=")
		if !SecretOption(name) {
			continue
		}
		s := secretArg{at: i, name: name, value: value, joined: joined}
		switch {
		case joined:
		case i+1 < len(args):
			s.value = args[i+1]
			i++
		default:
			s.bare = true
		}
		out = append(out, s)
	}
	return out
}

// RedactArgs returns a copy of args with the value of every secret option
// (SecretOption) replaced by internal/redact's Mask, whether it is the next
// word or follows "=". It is the one redaction of argument lists: every
// rendering meant for people, the run record and the sweep's kept spec use
// it.
func RedactArgs(args []string) []string {
	out := slices.Clone(args)
	for _, s := range secretArgs(args) {
		switch {
		case s.joined:
			out[s.at] = s.name + "=" + redactpkg.Mask
		case !s.bare:
			out[s.at+1] = redactpkg.Mask
		}
	}
	return out
}

// SecretValues returns the values of args' secret options (SecretOption),
// in either spelling ("--hf-token X" or "--hf-token=X"): what a redactor of
// the server's own output must hide, since vLLM echoes an argument it
// refuses ("unrecognized arguments: --hf-token hf_…").
func SecretValues(args []string) []string {
	var vals []string
	for _, s := range secretArgs(args) {
		if s.value != "" {
			vals = append(vals, s.value)
		}
	}
	return vals
}

// WithoutSecretArgs returns args without its secret options and their
// values: what a kept copy of a launch (a sweep's spec) holds, where a
// redacted value would be sent to the server as the key on resume.
func WithoutSecretArgs(args []string) []string {
	var out []string
	next := 0
	for _, s := range secretArgs(args) {
		out = append(out, args[next:s.at]...)
		next = s.at + 1
		if !s.joined && !s.bare {
			next++
		}
	}
	return append(out, args[next:]...)
}

// WithoutSecrets is c with no secret in it: no inline token, no secret
// catalog flag, no secret option among the extra arguments. A launch kept
// to be run again (a sweep's spec) is this; the launcher sets its own API
// key, and the token comes from where it came before (the environment or
// the form).
func (c LaunchConfig) WithoutSecrets() LaunchConfig {
	c.HFToken = ""
	c.Flags = slices.DeleteFunc(slices.Clone(c.Flags), func(fv FlagValue) bool {
		f, _, ok := Lookup(fv.Name)
		return ok && f.Secret
	})
	c.Extra = WithoutSecretArgs(c.Extra)
	return c
}

// SecretOption reports whether the option spelled name carries a secret:
// a catalog flag marked Secret, or --api-key, --hf-token or --token. The
// name is normalised first as vLLM's argparse reads it (and the simulator
// does): "--api_key" is "--api-key", so no spelling slips past. argparse
// also takes any unambiguous prefix of a long option ("--hf-tok",
// "--api-k"), so a name of at least two letters that begins a secret
// option is one too; an ambiguous prefix (argparse refuses it) is hidden
// all the same, which costs nothing.
func SecretOption(name string) bool {
	if !strings.HasPrefix(name, "-") {
		return false
	}
	n := "--" + strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-")
	if f, _, ok := Lookup(n); ok && f.Secret {
		return true
	}
	if secretOption[n] {
		return true
	}
	if len(n) < len("--xx") || !strings.HasPrefix(name, "--") {
		return false
	}
	for full := range secretOption {
		if strings.HasPrefix(full, n) {
			return true
		}
	}
	for _, f := range Catalog() {
		if f.Secret && strings.HasPrefix(f.Name, n) {
			return true
		}
	}
	return false
}

// secretOption names options outside the catalog whose value is a secret,
// in their dashed spelling.
var secretOption = map[string]bool{"--api-key": true, "--hf-token": true, "--token": true}

// SecretEnvName reports whether an environment variable probably holds a
// secret, judged by the words vendors use in such names: every shown
// command line gives such a variable by name only.
func SecretEnvName(name string) bool {
	u := strings.ToUpper(name)
	for _, w := range []string{"TOKEN", "KEY", "SECRET", "PASSWORD"} {
		if strings.Contains(u, w) {
			return true
		}
	}
	return false
}

func isTrue(v string) bool {
	b, err := strconv.ParseBool(v)
	return err == nil && b
}

// ServeArgs is the argument list for the image's entrypoint: `--model ID`
// first (old images ignore a positional model), then the flags in order, then
// the extra arguments. Secrets are included: this is what runs.
func (c LaunchConfig) ServeArgs() []string {
	args := append(optionArgs("--model", c.Model), c.flagArgs(false, false)...)
	return append(args, c.extraArgs(false)...)
}

// LaunchArgs is ServeArgs without the flags RigBench manages (port, host,
// API key), which the launcher then appends with its own values.
func (c LaunchConfig) LaunchArgs() []string {
	args := append(optionArgs("--model", c.Model), c.flagArgs(false, true)...)
	return append(args, c.extraArgs(false)...)
}

// ServeCommand is the `vllm serve MODEL …` line for running vLLM without
// Docker, with secrets redacted.
func (c LaunchConfig) ServeCommand() string {
	args := []string{"vllm", "serve", c.Model}
	if c.Model == "" || strings.HasPrefix(c.Model, "-") {
		// Not readable as a positional: name it.
		args = append([]string{"vllm", "serve"}, optionArgs("--model", c.Model)...)
	}
	args = append(args, c.flagArgs(true, false)...)
	return JoinArgs(append(args, c.extraArgs(true)...))
}

// DockerCommand is the copy-pasteable `docker run …` line. With redact set,
// the Hugging Face token becomes `-e HF_TOKEN` (docker copies it from the
// caller's environment) and secret flag values become placeholders.
func (c LaunchConfig) DockerCommand(redact bool) string {
	return JoinArgs(c.dockerArgs(redact))
}

func (c LaunchConfig) dockerArgs(redact bool) []string {
	a := append([]string{"docker", "run", "--rm"}, GPUsArgs(c.GPUs)...)
	a = append(a, "--ipc=host")
	if c.Port > 0 {
		a = append(a, "-p", "127.0.0.1:"+strconv.Itoa(c.Port)+":"+strconv.Itoa(ContainerPort))
	}
	if c.HFCache != "" {
		a = append(a, "-v", c.HFCache+":"+ContainerHFCache)
	}
	if c.CompileCache != "" {
		a = append(a, "-v", c.CompileCache+":"+ContainerCompileCache)
	}
	for _, v := range c.Volumes {
		a = append(a, "-v", v)
	}
	switch {
	case c.TokenSource == TokenInline && !redact:
		a = append(a, "-e", "HF_TOKEN="+c.HFToken, "-e", "HUGGING_FACE_HUB_TOKEN="+c.HFToken)
	case c.TokenSource == TokenInline || c.TokenSource == TokenEnv:
		a = append(a, "-e", "HF_TOKEN", "-e", "HUGGING_FACE_HUB_TOKEN")
	}
	for _, e := range c.Env {
		if name, _, _ := strings.Cut(e, "="); redact && SecretEnvName(name) {
			e = name // docker copies it from the caller's environment
		}
		a = append(a, "-e", e)
	}
	a = append(append(a, c.ImageRef()), optionArgs("--model", c.Model)...)
	a = append(a, c.flagArgs(redact, false)...)
	return append(a, c.extraArgs(redact)...)
}

// GPUsArgs is a GPU request ("all", "count=N", device ids, "" for none)
// as docker run's --gpus takes it: every shown `docker run` line writes
// it so.
func GPUsArgs(gpus string) []string {
	switch {
	case gpus == "all":
		return []string{"--gpus", "all"}
	case strings.HasPrefix(gpus, "count="):
		return []string{"--gpus", strings.TrimPrefix(gpus, "count=")}
	case gpus != "":
		// Docker's --gpus reads a CSV field: a list needs its own quotes.
		return []string{"--gpus", `"device=` + gpus + `"`}
	}
	return nil
}

// Record is the launch as the run document keeps it: no token, no API key.
func (c LaunchConfig) Record() rundoc.Launch {
	return rundoc.Launch{
		Image:         c.ImageRef(),
		Model:         c.Model,
		Args:          append(c.flagArgs(true, false), c.extraArgs(true)...),
		ServeCommand:  c.ServeCommand(),
		DockerCommand: c.DockerCommand(true),
		GPUs:          c.GPUs,
		CompileCache:  c.CompileCache,
	}
}

// FromRecord reads a run's launch record back into a configuration, the
// inverse of Record: the flags of its Args (ParseArgs), and its image,
// model, GPUs and compile cache. A record keeps no secret, so neither does
// the configuration. Every reader of a recorded launch (the plan check's
// slots, the roofline's parallel size, the advice, a sweep built from a
// run's advice) reads it here, rather than each parsing Args again.
func FromRecord(l rundoc.Launch) (LaunchConfig, error) {
	c, err := ParseArgs(l.Args)
	if err != nil {
		return LaunchConfig{}, err
	}
	if l.Image != "" { // a demo's record names no image
		if c.Image, c.Tag, err = SplitImageRef(l.Image); err != nil {
			return LaunchConfig{}, err
		}
	}
	c.Model, c.GPUs, c.CompileCache = l.Model, l.GPUs, l.CompileCache
	return c, nil
}

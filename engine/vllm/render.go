package vllm

import (
	"slices"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
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
			v = Redacted
		}
		out = append(out, optionArgs(fv.Name, v)...)
	}
	return out
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

// RedactArgs returns a copy of args with the value of every secret option
// (SecretOption) replaced by Redacted, whether it is the next word or
// follows "=". It is the one redaction of argument lists: every rendering
// meant for people, the run record and the sweep's kept spec use it.
func RedactArgs(args []string) []string {
	out := slices.Clone(args)
	for i := 0; i < len(out); i++ {
		name, _, hasValue := strings.Cut(out[i], "=")
		if !SecretOption(name) {
			continue
		}
		if hasValue {
			out[i] = name + "=" + Redacted
		} else if i+1 < len(out) {
			out[i+1] = Redacted
			i++
		}
	}
	return out
}

// SecretOption reports whether the option spelled name carries a secret:
// a catalog flag marked Secret, or --api-key, --hf-token or --token. The
// name is normalised first as vLLM's argparse reads it (and the simulator
// does): "--api_key" is "--api-key", so no spelling slips past.
func SecretOption(name string) bool {
	if !strings.HasPrefix(name, "-") {
		return false
	}
	n := "--" + strings.ReplaceAll(strings.TrimLeft(name, "-"), "_", "-")
	if f, _, ok := Lookup(n); ok && f.Secret {
		return true
	}
	return secretOption[n]
}

// secretOption names options outside the catalog whose value is a secret,
// in their dashed spelling.
var secretOption = map[string]bool{"--api-key": true, "--hf-token": true, "--token": true}

// secretEnvName reports whether an environment variable probably holds a
// secret, judged by the words vendors use in such names.
func secretEnvName(name string) bool {
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
	a := []string{"docker", "run", "--rm"}
	switch {
	case c.GPUs == "all":
		a = append(a, "--gpus", "all")
	case strings.HasPrefix(c.GPUs, "count="):
		a = append(a, "--gpus", strings.TrimPrefix(c.GPUs, "count="))
	case c.GPUs != "":
		// Docker's --gpus reads a CSV field: a list needs its own quotes.
		a = append(a, "--gpus", `"device=`+c.GPUs+`"`)
	}
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
		if name, _, _ := strings.Cut(e, "="); redact && secretEnvName(name) {
			e = name // docker copies it from the caller's environment
		}
		a = append(a, "-e", e)
	}
	a = append(append(a, c.ImageRef()), optionArgs("--model", c.Model)...)
	a = append(a, c.flagArgs(redact, false)...)
	return append(a, c.extraArgs(redact)...)
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

package vllm

import (
	"errors"
	"fmt"
	"path"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/mattn/go-shellwords"
)

// ParseReport lists what a pasted command held that a RigBench launch does
// not carry over, so the form can say so instead of dropping it silently.
type ParseReport struct {
	// Ignored are docker options and trailing shell text left out.
	Ignored []string
}

// ParseCommand reads a pasted `docker run … IMAGE …`, `vllm serve …` or
// `python -m vllm.entrypoints.openai.api_server …` line (line continuations
// allowed) into a launch config. A bare argument list ("--max-model-len
// 8192 …") is read as vLLM flags.
func ParseCommand(line string) (LaunchConfig, error) {
	c, _, err := ParseCommandReport(line)
	return c, err
}

// ParseCommandReport is ParseCommand that also reports what was left out.
func ParseCommandReport(line string) (LaunchConfig, ParseReport, error) {
	var rep ParseReport
	words, rest, err := splitWords(line)
	if err != nil {
		return LaunchConfig{}, rep, err
	}
	if rest != "" {
		rep.Ignored = append(rep.Ignored, rest)
	}
	// Leading `sudo` and VAR=value assignments only set up the shell.
	for len(words) > 0 && (words[0] == "sudo" || isAssignment(words[0])) {
		words = words[1:]
	}
	if len(words) == 0 {
		return LaunchConfig{}, rep, errors.New("the command is empty: paste a `docker run …` or `vllm serve …` line")
	}
	var c LaunchConfig
	switch {
	case path.Base(words[0]) == "docker":
		err = parseDocker(&c, &rep, words[1:])
	case serveEntrypointLen(words) > 0:
		err = parseServeArgs(&c, words[serveEntrypointLen(words):])
	case strings.HasPrefix(words[0], "-"):
		err = parseServeArgs(&c, words)
	default:
		err = fmt.Errorf("%q is neither docker nor vllm: paste a `docker run …` or `vllm serve …` line", words[0])
	}
	if err != nil {
		return LaunchConfig{}, rep, err
	}
	return compact(c), rep, nil
}

// ParseArgs reads a vLLM argument list, as it follows `vllm serve` (already
// split into words, e.g. a command's arguments after "--"), into a config.
func ParseArgs(args []string) (LaunchConfig, error) {
	var c LaunchConfig
	if err := parseServeArgs(&c, args); err != nil {
		return LaunchConfig{}, err
	}
	return compact(c), nil
}

// SplitImageRef splits an image reference into Image and Tag as ParseCommand
// does: "vllm/vllm-openai:v0.11.0" → "vllm/vllm-openai", "v0.11.0"; a
// missing tag is "latest".
func SplitImageRef(ref string) (image, tag string, err error) { return splitImageRef(ref) }

// splitWords removes line continuations and splits with go-shellwords (no
// variable or command substitution). Text after an unquoted ; & | < or >
// is returned as rest: it belongs to another command.
func splitWords(line string) (words []string, rest string, err error) {
	if !utf8.ValidString(line) {
		return nil, "", errors.New("the command contains bytes that are not text: copy it again from the terminal")
	}
	line = joinContinuations(line)
	p := shellwords.NewParser()
	words, err = p.Parse(line)
	if err != nil {
		return nil, "", errors.New("the command has an unclosed quote or a stray bracket: check the quoting and paste it again")
	}
	if p.Position >= 0 {
		rest = strings.TrimSpace(line[p.Position:])
	}
	return words, rest, nil
}

// joinContinuations deletes backslash-newline pairs outside single quotes,
// as a POSIX shell does, so multi-line pasted commands split like one line.
func joinContinuations(s string) string {
	if !strings.Contains(s, "\\\n") && !strings.Contains(s, "\\\r\n") {
		return s
	}
	var b strings.Builder
	single, escaped := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case escaped:
			escaped = false
		case single:
			single = ch != '\''
		case ch == '\'':
			single = true
		case ch == '\\':
			if strings.HasPrefix(s[i:], "\\\n") {
				i++
				continue
			}
			if strings.HasPrefix(s[i:], "\\\r\n") {
				i += 2
				continue
			}
			escaped = true
		}
		b.WriteByte(ch)
	}
	return b.String()
}

func isAssignment(w string) bool {
	name, _, ok := strings.Cut(w, "=")
	if !ok || name == "" {
		return false
	}
	for i, r := range name {
		if !(r == '_' || r >= 'A' && r <= 'Z' || r >= 'a' && r <= 'z' || i > 0 && r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// serveEntrypointLen is the number of leading words that start vLLM's API
// server ("vllm serve", "python3 -m vllm.entrypoints.openai.api_server"), or 0.
func serveEntrypointLen(w []string) int {
	if len(w) >= 2 && path.Base(w[0]) == "vllm" && w[1] == "serve" {
		return 2
	}
	if len(w) >= 3 && strings.HasPrefix(path.Base(w[0]), "python") && w[1] == "-m" &&
		w[2] == "vllm.entrypoints.openai.api_server" {
		return 3
	}
	return 0
}

// parseServeArgs reads vLLM arguments, split by SplitOptions. Catalog
// flags go to Flags (last one wins, as with argparse), `--model` and the
// first bare word to Model, and everything else to Extra in order. A bare
// word right after an unknown option is that option's value, never the
// model.
func parseServeArgs(c *LaunchConfig, args []string) error {
	positional := -1 // index in c.Extra of the first bare word
	modelNamed, rest := c.Model != "", false
	for _, o := range SplitOptions(args, CatalogArity) {
		switch {
		case rest || o.Name == "--":
			// "--" and the words after it are kept as they are, never
			// taken for the model.
			rest = true
			c.Extra = append(c.Extra, o.Name+o.Value)
			continue
		case o.Name == "":
			if positional < 0 {
				positional = len(c.Extra)
			}
			c.Extra = append(c.Extra, o.Value)
			continue
		case !o.Known:
			c.Extra = append(c.Extra, o.Name)
			if o.Eq {
				c.Extra[len(c.Extra)-1] += "=" + o.Value
			} else if o.HasValue {
				c.Extra = append(c.Extra, o.Value)
			}
			continue
		case o.Name == "--model":
			if !o.HasValue {
				return errors.New("--model needs a model id after it")
			}
			c.Model, modelNamed = o.Value, true
			continue
		}
		if err := setFlag(c, o); err != nil {
			return err
		}
	}
	if !modelNamed && positional >= 0 {
		c.Model = c.Extra[positional]
		c.Extra = append(c.Extra[:positional:positional], c.Extra[positional+1:]...)
	}
	return nil
}

// setFlag sets a catalog flag from its option: a switch is on unless
// negated or given =false, and a switch vLLM has no negation for is left
// unset when off (its default).
func setFlag(c *LaunchConfig, o Option) error {
	f, negated, _ := Lookup(o.Name)
	if f.Type != KindBool {
		if !o.HasValue {
			return fmt.Errorf("%s needs a value after it", o.Name)
		}
		c.Set(f.Name, o.Value)
		return nil
	}
	on := !negated
	if o.HasValue {
		b, err := strconv.ParseBool(o.Value)
		if err != nil || negated {
			return fmt.Errorf("%s is a switch and takes no value: remove %q", o.Name, "="+o.Value)
		}
		on = b
	}
	if !on && f.Negation == "" {
		c.Unset(f.Name) // off is the default when vLLM has no negation
		return nil
	}
	c.Set(f.Name, strconv.FormatBool(on))
	return nil
}

// compact makes empty lists nil, so equal configs compare equal.
func compact(c LaunchConfig) LaunchConfig {
	if len(c.Flags) == 0 {
		c.Flags = nil
	}
	if len(c.Extra) == 0 {
		c.Extra = nil
	}
	if len(c.Volumes) == 0 {
		c.Volumes = nil
	}
	if len(c.Env) == 0 {
		c.Env = nil
	}
	return c
}

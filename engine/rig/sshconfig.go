package rig

import (
	"bufio"
	"io"
	"path"
	"strconv"
	"strings"
)

// hostConfig is what ~/.ssh/config says about one host: the settings
// RigBench honours, as OpenSSH reads them (the first value obtained for a
// setting wins; IdentityFile accumulates).
type hostConfig struct {
	HostName           string
	User               string
	Port               int
	IdentityFiles      []string
	UserKnownHostsFile []string
	// IdentityAgent is "none" when the config turns the agent off.
	IdentityAgent string
}

// parseSSHConfig reads an OpenSSH client config and returns what applies
// to alias. It understands Host blocks (patterns with * and ?, negation
// with !), HostName, User, Port, IdentityFile, UserKnownHostsFile and
// IdentityAgent; other keywords, Match blocks and Include are skipped, so
// a config written for OpenSSH never stops RigBench from connecting. The
// config is outside input: nothing in it makes the parser fail.
func parseSSHConfig(r io.Reader, alias string) hostConfig {
	var c hostConfig
	applies := true // settings before the first Host apply to every host
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 1<<20)
	for sc.Scan() {
		key, args := configLine(sc.Text())
		if key == "" {
			continue
		}
		switch key {
		case "host":
			applies = hostMatches(args, alias)
			continue
		case "match":
			applies = false // Match conditions are not evaluated
			continue
		}
		if !applies || len(args) == 0 {
			continue
		}
		v := args[0]
		switch key {
		case "hostname":
			if c.HostName == "" {
				c.HostName = v
			}
		case "user":
			if c.User == "" {
				c.User = v
			}
		case "port":
			if n, err := strconv.Atoi(v); err == nil && n > 0 && n < 65536 && c.Port == 0 {
				c.Port = n
			}
		case "identityfile":
			c.IdentityFiles = append(c.IdentityFiles, v)
		case "userknownhostsfile":
			if c.UserKnownHostsFile == nil {
				c.UserKnownHostsFile = args
			}
		case "identityagent":
			if c.IdentityAgent == "" {
				c.IdentityAgent = v
			}
		}
	}
	return c
}

// configLine splits one config line into its lower-cased keyword and its
// arguments ("Key value", "Key=value", double-quoted arguments); "" for
// blanks and comments.
func configLine(line string) (string, []string) {
	line = strings.TrimSpace(line)
	if line == "" || line[0] == '#' {
		return "", nil
	}
	i := strings.IndexAny(line, " \t=")
	if i < 0 {
		return strings.ToLower(line), nil
	}
	key := strings.ToLower(line[:i])
	rest := strings.TrimLeft(line[i:], " \t")
	rest = strings.TrimLeft(strings.TrimPrefix(rest, "="), " \t")
	var args []string
	for rest != "" {
		if rest[0] == '"' {
			end := strings.IndexByte(rest[1:], '"')
			if end < 0 {
				args = append(args, rest[1:])
				break
			}
			args = append(args, rest[1:end+1])
			rest = strings.TrimLeft(rest[end+2:], " \t")
			continue
		}
		j := strings.IndexAny(rest, " \t")
		if j < 0 {
			args = append(args, rest)
			break
		}
		args = append(args, rest[:j])
		rest = strings.TrimLeft(rest[j:], " \t")
	}
	return key, args
}

// hostMatches applies a Host line's patterns as OpenSSH does: some
// pattern matches and no negated one does.
func hostMatches(patterns []string, host string) bool {
	matched := false
	for _, p := range patterns {
		neg := strings.HasPrefix(p, "!")
		p = strings.TrimPrefix(p, "!")
		// path.Match treats [ and \ specially; OpenSSH does not.
		p = strings.NewReplacer(`[`, `\[`, `]`, `\]`, `\`, `\\`).Replace(p)
		if ok, _ := path.Match(p, host); ok {
			if neg {
				return false
			}
			matched = true
		}
	}
	return matched
}

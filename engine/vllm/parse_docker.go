package vllm

import (
	"errors"

	"fmt"
	"github.com/distribution/reference"
	"strconv"
	"strings"
)

// dockerSwitches are `docker run` options that take no value; every other
// option does. Short switches may be clustered ("-it").
var dockerSwitches = map[string]bool{
	"--rm": true, "--detach": true, "--interactive": true, "--tty": true, "--privileged": true,
	"--init": true, "--read-only": true, "--publish-all": true, "--no-healthcheck": true,
	"--oom-kill-disable": true, "--quiet": true, "--sig-proxy": true, "--disable-content-trust": true,
	"--use-api-socket": true, "--help": true,
}

const dockerShortSwitches = "ditPq"

// dockerSilent are options a RigBench launch always sets its own way, so
// dropping them loses nothing.
var dockerSilent = map[string]bool{
	"--rm": true, "-d": true, "--detach": true, "-i": true, "--interactive": true, "-t": true,
	"--tty": true, "--ipc": true, "--name": true, "--init": true,
}

// parseDocker reads `docker run [options] IMAGE [args]` (words after "docker").
func parseDocker(c *LaunchConfig, rep *ParseReport, w []string) error {
	switch {
	case len(w) >= 1 && w[0] == "run":
		w = w[1:]
	case len(w) >= 2 && w[0] == "container" && w[1] == "run":
		w = w[2:]
	default:
		return errors.New("only `docker run …` commands can be read: paste the line that starts the server")
	}
	for i := 0; i < len(w); i++ {
		a := w[i]
		if !strings.HasPrefix(a, "-") || a == "-" {
			if a == "" || a == "-" {
				return errors.New("the docker command's image name is empty: use vllm/vllm-openai:TAG")
			}
			img, tag, err := splitImageRef(a)
			if err != nil {
				return err
			}
			c.Image, c.Tag = img, tag
			args := w[i+1:]
			args = args[serveEntrypointLen(args):]
			return parseServeArgs(c, args)
		}
		name, val, hasValue := dockerOption(a)
		if !hasValue && !isDockerSwitch(name) {
			if i+1 >= len(w) {
				return fmt.Errorf("docker option %s needs a value after it", name)
			}
			i++
			val, hasValue = w[i], true
		}
		if err := applyDockerOption(c, rep, name, val, hasValue); err != nil {
			return err
		}
	}
	return errors.New("the docker command names no image: add vllm/vllm-openai:TAG before the vLLM flags")
}

// dockerOption splits "--name=value" and "-pVALUE" forms.
func dockerOption(a string) (name, val string, hasValue bool) {
	if strings.HasPrefix(a, "--") {
		return strings.Cut(a, "=")
	}
	if len(a) > 2 && !isDockerSwitch(a) {
		return a[:2], strings.TrimPrefix(a[2:], "="), true
	}
	return a, "", false
}

func isDockerSwitch(name string) bool {
	if strings.HasPrefix(name, "--") {
		return dockerSwitches[name]
	}
	if len(name) < 2 {
		return false
	}
	for _, ch := range name[1:] {
		if !strings.ContainsRune(dockerShortSwitches, ch) {
			return false
		}
	}
	return true
}

func applyDockerOption(c *LaunchConfig, rep *ParseReport, name, val string, hasValue bool) error {
	switch name {
	case "--gpus":
		g, err := parseGPUs(val)
		if err != nil {
			return err
		}
		c.GPUs = g
	case "-p", "--publish":
		if !applyPublish(c, val) {
			rep.Ignored = append(rep.Ignored, name+" "+val)
		}
	case "-v", "--volume":
		src, rest, ok := strings.Cut(val, ":")
		switch dst := strings.TrimSuffix(strings.Split(rest, ":")[0], "/"); {
		case ok && src != "" && dst == ContainerHFCache:
			c.HFCache = src
		case ok && (strings.HasPrefix(src, "/") || strings.HasPrefix(src, "~")) && dst == ContainerCompileCache:
			// A host folder; a named volume stays one of Volumes.
			c.CompileCache = src
		default:
			c.Volumes = append(c.Volumes, val)
		}
	case "-e", "--env":
		applyEnv(c, val)
	default:
		if dockerSilent[name] || isDockerSwitch(name) && !strings.HasPrefix(name, "--") {
			return nil
		}
		if hasValue {
			name += " " + val
		}
		rep.Ignored = append(rep.Ignored, name)
	}
	return nil
}

// parseGPUs reads docker's --gpus value: all, a count, or device=LIST
// (the CSV quotes around it are optional).
func parseGPUs(v string) (string, error) {
	v = strings.Trim(v, `"`)
	switch {
	case v == "all":
		return "all", nil
	case strings.HasPrefix(v, "device="):
		if d := strings.TrimPrefix(v, "device="); d != "" && !strings.ContainsAny(d, `"=`) {
			return d, nil
		}
	case strings.HasPrefix(v, "count="):
		v = strings.TrimPrefix(v, "count=")
		fallthrough
	default:
		if n, err := strconv.Atoi(v); err == nil && n > 0 {
			return "count=" + strconv.Itoa(n), nil
		}
	}
	return "", fmt.Errorf("--gpus %q is not understood: use all, a count, or \"device=0,1\"", v)
}

// applyPublish reads a -p mapping to vLLM's port. Other ports are not ours.
func applyPublish(c *LaunchConfig, v string) bool {
	v = strings.TrimSuffix(v, "/tcp")
	parts := strings.Split(v, ":")
	if parts[len(parts)-1] != strconv.Itoa(ContainerPort) {
		return false
	}
	host := ""
	if len(parts) >= 2 {
		host = parts[len(parts)-2]
	}
	if host == "" {
		c.Port = 0
		return true
	}
	p, err := strconv.Atoi(host)
	if err != nil || p <= 0 || p > 65535 {
		return false
	}
	c.Port = p
	return true
}

// applyEnv reads -e. The Hugging Face token under either name sets the token
// source; a name alone means "copy from the caller's environment".
func applyEnv(c *LaunchConfig, v string) {
	name, val, hasVal := strings.Cut(v, "=")
	if name != "HF_TOKEN" && name != "HUGGING_FACE_HUB_TOKEN" {
		c.Env = append(c.Env, v)
		return
	}
	switch {
	case hasVal && (c.TokenSource != TokenInline || name == "HF_TOKEN"):
		c.TokenSource, c.HFToken = TokenInline, val
	case !hasVal && c.TokenSource != TokenInline:
		c.TokenSource = TokenEnv
	}
}

// splitImageRef splits "repo[:tag]" or "repo@digest" with Docker's own
// reference grammar; a missing tag is "latest", as docker reads it.
func splitImageRef(ref string) (image, tag string, err error) {
	r, err := reference.Parse(ref)
	named, isNamed := r.(reference.Named)
	if err != nil || !isNamed {
		return "", "", fmt.Errorf("%q is not an image name docker accepts: use a name like vllm/vllm-openai:v0.11.0", ref)
	}
	image, tag = named.Name(), DefaultTag
	if d, ok := r.(reference.Digested); ok {
		tag = d.Digest().String()
	} else if t, ok := r.(reference.Tagged); ok {
		tag = t.Tag()
	}
	return image, tag, nil
}

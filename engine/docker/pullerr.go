package docker

import (
	"errors"
	"fmt"
	"strings"
)

// Why a pull failed, as far as the daemon's error tells.
const (
	pullNoNetwork = iota
	pullNameUnknown
	pullAuth
	pullOther
)

// pullCause sorts a daemon's pull error by what the user can do about it.
// The daemon's words differ between registries and versions, so each
// cause is a list of the phrases seen for it.
func pullCause(msg string) int {
	m := strings.ToLower(msg)
	has := func(subs ...string) bool {
		for _, s := range subs {
			if strings.Contains(m, s) {
				return true
			}
		}
		return false
	}
	switch {
	case has("unauthorized", "authentication required", "denied: requested access", "no basic auth credentials", "incorrect username or password"):
		return pullAuth
	case has("manifest unknown", "manifest for", "repository does not exist", "pull access denied", "name unknown", "not found: manifest", "invalid reference format"):
		return pullNameUnknown
	case has("no such host", "dial tcp", "i/o timeout", "tls handshake timeout", "network is unreachable", "connection refused",
		"connection reset", "temporary failure in name resolution", "server misbehaving", "proxyconnect", "client.timeout exceeded", "eof"):
		return pullNoNetwork
	}
	return pullOther
}

// registryOf is the registry host of an image reference: the first part
// when it looks like a host (has a dot or a port, or is localhost), else
// Docker Hub.
func registryOf(ref string) string {
	first, _, found := strings.Cut(ref, "/")
	if found && (strings.ContainsAny(first, ".:") || first == "localhost") {
		return first
	}
	return "Docker Hub"
}

// pullError explains a failed pull in one sentence: that the image could
// not be downloaded, why (no network, a name the registry does not know,
// a login it wants), and the fix. The daemon's own words stay in Err for
// whoever wants the details.
func pullError(ref string, err error) error {
	var de *Error
	if errors.As(err, &de) {
		return err
	}
	e := &Error{Kind: ErrPull, Err: err}
	switch pullCause(err.Error()) {
	case pullNoNetwork:
		e.Message = fmt.Sprintf("the image %s could not be downloaded because this computer cannot reach %s", ref, registryOf(ref))
		e.Hint = fmt.Sprintf("check the network connection (and any proxy), or run `docker pull %s` on a computer that can and copy it over with `docker save` and `docker load`", ref)
	case pullNameUnknown:
		e.Message = fmt.Sprintf("the image %s could not be downloaded because %s has no image of that name and tag", ref, registryOf(ref))
		e.Hint = "check the image name and tag (vLLM's is vllm/vllm-openai with a tag such as latest or v0.11.0)"
	case pullAuth:
		e.Message = fmt.Sprintf("the image %s could not be downloaded because %s wants a login for it", ref, registryOf(ref))
		e.Hint = "run `docker login` for that registry, then start again"
	default:
		e.Message = fmt.Sprintf("the image %s could not be downloaded (%v)", ref, err)
		e.Hint = fmt.Sprintf("run `docker pull %s` to see why", ref)
	}
	return e
}

package rig

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
)

// DockerContext is a Docker context the user has (docker context ls).
type DockerContext struct {
	// Name is the context's name, what --rig takes.
	Name string
	// Host is its Docker endpoint ("ssh://me@box", "unix:///…",
	// "tcp://…"); "" for the default context (the environment's daemon).
	Host string
	// Description is the user's description of it.
	Description string
}

// Contexts lists the Docker contexts in $DOCKER_CONFIG (or
// $HOME/.docker), the default one first, as `docker context ls` does.
func Contexts(o Options) ([]DockerContext, error) {
	dir := o.getenv("DOCKER_CONFIG")
	if dir == "" {
		dir = filepath.Join(o.home(), ".docker")
	}
	out := []DockerContext{{Name: "default", Description: "the daemon DOCKER_HOST or the default socket names"}}
	metas, err := filepath.Glob(filepath.Join(dir, "contexts", "meta", "*", "meta.json"))
	if err != nil {
		return out, err
	}
	var found []DockerContext
	for _, m := range metas {
		b, err := os.ReadFile(m)
		if err != nil {
			if errors.Is(err, fs.ErrNotExist) {
				continue
			}
			return out, fmt.Errorf("reading Docker context %s: %w", m, err)
		}
		dc, err := parseContextMeta(b)
		if err != nil {
			return out, fmt.Errorf("reading Docker context %s: %w", m, err)
		}
		found = append(found, dc)
	}
	sort.Slice(found, func(i, j int) bool { return found[i].Name < found[j].Name })
	return append(out, found...), nil
}

// parseContextMeta reads one context's meta.json (Docker's own file: outside
// input).
func parseContextMeta(b []byte) (DockerContext, error) {
	var m struct {
		Name     string
		Metadata struct {
			Description string
		}
		Endpoints map[string]struct {
			Host string
		}
	}
	if err := json.Unmarshal(b, &m); err != nil {
		return DockerContext{}, err
	}
	if m.Name == "" {
		return DockerContext{}, errors.New("it has no name")
	}
	return DockerContext{Name: m.Name, Host: m.Endpoints["docker"].Host, Description: m.Metadata.Description}, nil
}

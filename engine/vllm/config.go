package vllm

import (
	"slices"
	"strconv"
	"strings"
)

// Defaults of a launch.
const (
	DefaultImage = "vllm/vllm-openai"
	DefaultTag   = "latest"
	// ContainerPort is the port vLLM listens on inside the container.
	ContainerPort = 8000
	// ContainerHFCache is where the Hugging Face cache is mounted inside the
	// container (the image runs as root).
	ContainerHFCache = "/root/.cache/huggingface"
	// DefaultHFCache is the host folder both front ends mount there unless
	// the user names one: the Hugging Face cache of the daemon's machine's
	// user ("~" is the rig user's home on a remote rig), so weights
	// downloaded once stay between launches and are shared with the
	// user's own tools.
	DefaultHFCache = "~/.cache/huggingface"
	// ContainerCompileCache is vLLM's cache root inside the container
	// (~/.cache/vllm, VLLM_CACHE_ROOT's default): its torch_compile_cache
	// folder holds the compiled graphs, keyed by the configuration, so a
	// start that finds them skips most of torch.compile.
	ContainerCompileCache = "/root/.cache/vllm"
)

// TokenSource says where the Hugging Face token of a launch comes from. The
// token itself is never stored with the configuration.
type TokenSource string

// Token sources.
const (
	// TokenNone: no token (public models).
	TokenNone TokenSource = ""
	// TokenEnv: HF_TOKEN (or HUGGING_FACE_HUB_TOKEN) of RigBench's own
	// environment; rendered as `-e HF_TOKEN`, which docker fills the same way.
	TokenEnv TokenSource = "env"
	// TokenInline: the token the user typed, held in HFToken for this
	// session only.
	TokenInline TokenSource = "inline"
	// TokenCacheFile: the token file `huggingface-cli login` wrote into the
	// mounted cache; the Hugging Face library in the container finds it.
	TokenCacheFile TokenSource = "cache_file"
)

// FlagValue is one catalog flag set on the command line. Value is the text as
// typed; booleans are "true" or "false".
type FlagValue struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// LaunchConfig is everything needed to start one vLLM server: what the launch
// form edits, what ParseCommand fills and what the render methods print.
type LaunchConfig struct {
	// Image is the repository ("vllm/vllm-openai"), Tag its tag ("v0.11.0",
	// "latest") or a digest ("sha256:…").
	Image string `json:"image"`
	Tag   string `json:"tag"`
	// Model is the Hugging Face id (or a path inside the container).
	Model string `json:"model"`
	// Flags are catalog flags in command-line order, each at most once.
	Flags []FlagValue `json:"flags,omitempty"`
	// Extra holds the arguments the catalog does not know, verbatim.
	Extra []string `json:"extra,omitempty"`
	// GPUs: "all", device indices or UUIDs ("0,1"), "count=N", or "" for no
	// GPU request.
	GPUs string `json:"gpus"`
	// Port is the host port on 127.0.0.1; 0 lets the launcher pick a free one
	// (and leaves -p out of the docker line).
	Port int `json:"port,omitempty"`
	// HFCache is the host folder mounted as the Hugging Face cache.
	HFCache string `json:"hf_cache,omitempty"`
	// CompileCache is the host folder mounted as vLLM's cache root
	// (ContainerCompileCache), "" for none: every start then compiles
	// afresh in the container's own layer.
	CompileCache string `json:"compile_cache,omitempty"`
	// Volumes are other `-v` mounts ("name:/root/.cache/vllm").
	Volumes []string `json:"volumes,omitempty"`
	// Env are other environment variables ("VLLM_LOGGING_LEVEL=DEBUG"); a
	// bare name is copied from RigBench's own environment.
	Env         []string    `json:"env,omitempty"`
	TokenSource TokenSource `json:"token_source,omitempty"`
	// HFToken is the typed token of TokenInline. It never leaves memory:
	// JSON skips it and every redacted rendering hides it.
	HFToken string `json:"-"`
}

// PickedGPUs is how many GPUs the launch names: the length of a device
// list ("0,1" is 2), N of "count=N"; 0 for "all" (the rig's count, not
// known from the configuration) and for no GPU request.
func (c LaunchConfig) PickedGPUs() int {
	g := strings.TrimSpace(c.GPUs)
	switch {
	case g == "" || g == "all":
		return 0
	case strings.HasPrefix(g, "count="):
		n, err := strconv.Atoi(strings.TrimPrefix(g, "count="))
		if err != nil || n < 0 {
			return 0
		}
		return n
	}
	n := 0
	for _, id := range strings.Split(g, ",") {
		if strings.TrimSpace(id) != "" {
			n++
		}
	}
	return n
}

// ImageRef is the full image reference, with defaults filled in.
func (c LaunchConfig) ImageRef() string {
	img, tag := c.Image, c.Tag
	if img == "" {
		img = DefaultImage
	}
	if tag == "" {
		tag = DefaultTag
	}
	if strings.Contains(tag, ":") { // a digest
		return img + "@" + tag
	}
	return img + ":" + tag
}

// Get returns the value of a flag given by any spelling, and whether it is set.
func (c LaunchConfig) Get(name string) (string, bool) {
	name = canonicalName(name)
	for _, fv := range c.Flags {
		if fv.Name == name {
			return fv.Value, true
		}
	}
	return "", false
}

// Set sets a flag by any spelling, keeping its place when already set. It
// copies the flag list, so configs that share a backing array stay apart.
func (c *LaunchConfig) Set(name, value string) {
	name = canonicalName(name)
	c.Flags = slices.Clone(c.Flags)
	for i := range c.Flags {
		if c.Flags[i].Name == name {
			c.Flags[i].Value = value
			return
		}
	}
	c.Flags = append(c.Flags, FlagValue{Name: name, Value: value})
}

// Unset removes a flag.
func (c *LaunchConfig) Unset(name string) {
	name = canonicalName(name)
	c.Flags = slices.DeleteFunc(slices.Clone(c.Flags), func(fv FlagValue) bool { return fv.Name == name })
}

// canonicalName maps an alias or negation to the flag's long name.
func canonicalName(name string) string {
	if f, _, ok := Lookup(name); ok {
		return f.Name
	}
	return name
}

// Token returns the Hugging Face token to give the container, reading the
// environment through getenv for TokenEnv.
func (c LaunchConfig) Token(getenv func(string) string) string {
	switch c.TokenSource {
	case TokenInline:
		return c.HFToken
	case TokenEnv:
		if t := getenv("HF_TOKEN"); t != "" {
			return t
		}
		return getenv("HUGGING_FACE_HUB_TOKEN")
	}
	return ""
}

// ServedModelName is the name the server lists in /v1/models: the
// --served-model-name when set, else the model id. The value is one word
// of the command line (RigBench passes it to the container as one
// argument), and vLLM serves that whole word, spaces and all: "a b; c" is
// listed as "a b; c", never as "a".
func (c LaunchConfig) ServedModelName() string {
	if v, ok := c.Get("--served-model-name"); ok && strings.TrimSpace(v) != "" {
		return v
	}
	return c.Model
}

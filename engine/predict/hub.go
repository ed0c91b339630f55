package predict

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/rigbench/rigbench/internal/safefile"
)

// DefaultHubURL is the Hugging Face Hub a Lookup asks when neither its
// HubURL nor $HF_ENDPOINT names another (a mirror).
const DefaultHubURL = "https://huggingface.co"

// hubTimeout bounds a whole Hub request when the Lookup brings no client:
// the two answers are a few KB, so a Hub that takes longer is as good as
// unreachable, and the user is better told what to do by hand.
const hubTimeout = 20 * time.Second

// Limits on what the Hub's answers may be. A model's file list with sizes
// is tens of KB even for repos of thousands of files; config.json is
// maxConfig. A larger answer is not the Hub's and is not read on.
const (
	maxModelInfo = 8 << 20
	maxCacheFile = 2 * maxConfig
)

// What a failed Lookup is, for errors.Is; each error's own text is the
// sentence to show.
var (
	// ErrNotOnHub: the Hub knows no model of that id (or it is private
	// and the token may not see it).
	ErrNotOnHub = errors.New("model not found on the Hugging Face Hub")
	// ErrGated: the model is gated and the request had no token, or one
	// whose account has not accepted the licence.
	ErrGated = errors.New("gated model")
	// ErrNoFacts: nothing on this machine knows the model and the Hub
	// could not be asked (offline, unreachable, a bad answer) or has no
	// config.json for it; the user gives the facts by hand.
	ErrNoFacts = errors.New("model facts not available")
)

// lookupError is a sentence for the user that errors.Is also knows as one
// of the Err values above.
type lookupError struct {
	msg  string
	kind error
}

func (e *lookupError) Error() string { return e.msg }
func (e *lookupError) Unwrap() error { return e.kind }

// Lookup finds a model's facts, asking the network last and at most once
// per model. In order: the simulator's own models (BuiltinModel); this
// machine's Hugging Face cache (HFSnapshot: the config.json and
// safetensors a server that ran the model downloaded); the facts an
// earlier lookup fetched (CacheDir); then the Hub's file list with sizes
// (GET /api/models/ID?blobs=true, the call huggingface_hub's model_info
// makes with files_metadata) and its config.json (GET
// /ID/resolve/main/config.json, hf_hub_url's form), which are then kept in
// CacheDir. Facts kept are not refreshed: a model's shape does not change,
// and deleting the file asks again.
type Lookup struct {
	// HubURL is the Hub's address; "" means $HF_ENDPOINT (the Hugging
	// Face libraries' mirror setting), else DefaultHubURL.
	HubURL string
	// CacheDir is the folder fetched facts are kept in, one file per model
	// (the front ends pass a "models" folder beside the history file); ""
	// keeps nothing.
	CacheDir string
	// Getenv reads the environment: the Hugging Face cache's location
	// (HF_HUB_CACHE, HF_HOME, HOME), HF_TOKEN (sent to the Hub, so a gated
	// model the user has accepted can be read), HF_HUB_OFFLINE and
	// HF_ENDPOINT. nil means os.Getenv.
	Getenv func(string) string
	// Client makes the Hub requests; nil means a client with a 20 s
	// timeout. Its redirect rule is kept, with HF_TOKEN's header dropped
	// on any hop that leaves the Hub's own scheme, host and port.
	Client *http.Client
	// Offline never touches the network (also when HF_HUB_OFFLINE is 1,
	// as the Hugging Face libraries do).
	Offline bool
}

// Model is the facts of model id, from the first source that has them
// (see Lookup). Its errors are one sentence saying what the user can do,
// and errors.Is knows them as ErrNotOnHub, ErrGated or ErrNoFacts.
func (l Lookup) Model(ctx context.Context, id string) (Model, error) {
	if m, ok := BuiltinModel(id); ok {
		return m, nil
	}
	if err := CheckID(id); err != nil {
		return Model{}, err
	}
	getenv := l.getenv()
	if snap := HFSnapshot(id, getenv); snap != "" {
		if c, err := SnapshotConfig(snap); err == nil {
			return ModelFromConfig(id, c, SnapshotSafetensorsBytes(snap)), nil
		}
	}
	if m, ok := l.cached(id); ok {
		return m, nil
	}
	if l.Offline || getenv("HF_HUB_OFFLINE") == "1" {
		return Model{}, l.noFacts(id, "RigBench is offline and has nothing cached about the model "+id)
	}
	config, safetensors, err := l.fetch(ctx, id)
	if err != nil {
		return Model{}, err
	}
	c, err := ParseConfig(config)
	if err != nil {
		return Model{}, &lookupError{kind: ErrNoFacts, msg: fmt.Sprintf(
			"the config.json of the model %s on the Hugging Face Hub cannot be used (%v): give the weights' size and KV bytes per token by hand", id, err)}
	}
	l.keep(id, config, safetensors)
	return ModelFromConfig(id, c, safetensors), nil
}

// getenv is Getenv, os.Getenv when nil.
func (l Lookup) getenv() func(string) string {
	if l.Getenv == nil {
		return os.Getenv
	}
	return l.Getenv
}

// noFacts is ErrNoFacts for id, why first, then where the facts can go.
func (l Lookup) noFacts(id, why string) error {
	hub := HFCacheDir(l.getenv())
	if hub == "" {
		hub = filepath.Join("~", ".cache", "huggingface", "hub")
	}
	where := filepath.Join(hub, HFModelFolder(id), "snapshots", "main", "config.json")
	return &lookupError{kind: ErrNoFacts, msg: fmt.Sprintf(
		"%s: put the model's config.json in the Hugging Face cache (%s), or give the weights' size and KV bytes per token by hand", why, where)}
}

// cacheEntry is one model's file in CacheDir: the config.json as the Hub
// served it (parsed again on reading, so a better parser reads old
// entries better) and the safetensors total.
type cacheEntry struct {
	ID               string          `json:"id"`
	Config           json.RawMessage `json:"config"`
	SafetensorsBytes int64           `json:"safetensors_bytes"`
}

// cacheFile is id's file in CacheDir: the Hugging Face cache's folder name
// (CheckID keeps it one file name, one-to-one), lower case since the Hub's
// ids are not case-sensitive.
func (l Lookup) cacheFile(id string) string {
	return filepath.Join(l.CacheDir, strings.ToLower(HFModelFolder(id))+".json")
}

// cached is id's facts from CacheDir; an entry that cannot be read is no
// entry, and the next fetch replaces it.
func (l Lookup) cached(id string) (Model, bool) {
	if l.CacheDir == "" {
		return Model{}, false
	}
	f, err := os.Open(l.cacheFile(id))
	if err != nil {
		return Model{}, false
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxCacheFile+1))
	if err != nil || len(b) > maxCacheFile {
		return Model{}, false
	}
	var e cacheEntry
	if json.Unmarshal(b, &e) != nil || !strings.EqualFold(e.ID, id) || e.SafetensorsBytes < 0 {
		return Model{}, false
	}
	c, err := ParseConfig(e.Config)
	if err != nil {
		return Model{}, false
	}
	return ModelFromConfig(id, c, e.SafetensorsBytes), true
}

// keep writes id's fetched facts to CacheDir, replacing the file at once
// (safefile), so a crash or a second RigBench never leaves half an entry.
// A cache that cannot be written only costs the next lookup a fetch, so
// its error is not the user's concern.
func (l Lookup) keep(id string, config []byte, safetensors int64) {
	if l.CacheDir == "" {
		return
	}
	b, err := json.Marshal(cacheEntry{ID: id, Config: config, SafetensorsBytes: safetensors})
	if err != nil || os.MkdirAll(l.CacheDir, 0o755) != nil {
		return
	}
	_ = safefile.WriteBytes(l.cacheFile(id), b)
}

// modelInfo is the part of the Hub's /api/models answer read: with
// blobs=true each file's size (the LFS object's for a large file, also
// given under lfs).
type modelInfo struct {
	Siblings []struct {
		Name string `json:"rfilename"`
		Size int64  `json:"size"`
		LFS  *struct {
			Size int64 `json:"size"`
		} `json:"lfs"`
	} `json:"siblings"`
}

// safetensorsBytes sums the top-level *.safetensors files, the ones vLLM
// loads (as SnapshotSafetensorsBytes does in the cache).
func (m modelInfo) safetensorsBytes() int64 {
	var n int64
	for _, s := range m.Siblings {
		if strings.Contains(s.Name, "/") || !strings.HasSuffix(s.Name, ".safetensors") {
			continue
		}
		size := s.Size
		if size <= 0 && s.LFS != nil {
			size = s.LFS.Size
		}
		if size > 0 && size < 1<<50 { // a petabyte bounds the sum
			n += size
		}
	}
	return n
}

// fetch asks the Hub for id's file sizes and config.json.
func (l Lookup) fetch(ctx context.Context, id string) ([]byte, int64, error) {
	getenv := l.getenv()
	base := l.HubURL
	if base == "" {
		base = getenv("HF_ENDPOINT")
	}
	if base == "" {
		base = DefaultHubURL
	}
	base = strings.TrimRight(base, "/")
	hub, err := url.Parse(base)
	if err != nil || (hub.Scheme != "http" && hub.Scheme != "https") || hub.Host == "" {
		return nil, 0, l.noFacts(id, "the Hugging Face Hub address (HF_ENDPOINT, or the one RigBench was given) is not an http(s) URL")
	}
	h := hubClient{hub: hub, token: strings.TrimSpace(getenv("HF_TOKEN")), client: l.Client}
	info, err := h.get(ctx, base+"/api/models/"+id+"?blobs=true", maxModelInfo)
	if err != nil {
		return nil, 0, l.hubError(ctx, id, h, err)
	}
	var mi modelInfo
	if err := json.Unmarshal(info, &mi); err != nil {
		return nil, 0, l.noFacts(id, "the Hugging Face Hub's answer about the model "+id+" is not the JSON it gives")
	}
	config, err := h.get(ctx, base+"/"+id+"/resolve/main/config.json", maxConfig)
	var st *statusError
	if errors.As(err, &st) && st.code == http.StatusNotFound && st.errorCode != "RepoNotFound" {
		return nil, 0, &lookupError{kind: ErrNoFacts, msg: fmt.Sprintf(
			"the model %s has no config.json on the Hugging Face Hub, so its shape is unknown: give the weights' size and KV bytes per token by hand", id)}
	}
	if err != nil {
		return nil, 0, l.hubError(ctx, id, h, err)
	}
	return config, mi.safetensorsBytes(), nil
}

// hubError words a failed Hub request. The Hub answers 401 both for a
// gated model without a token and for a missing or private one (it does
// not say which exists); its X-Error-Code header tells them apart, as
// huggingface_hub reads it.
func (l Lookup) hubError(ctx context.Context, id string, h hubClient, err error) error {
	if ctx.Err() != nil {
		return ctx.Err()
	}
	if errors.Is(err, errTooLarge) {
		return l.noFacts(id, "the Hugging Face Hub's answer about the model "+id+" is larger than any it gives, so it was not read")
	}
	var st *statusError
	if !errors.As(err, &st) {
		return l.noFacts(id, fmt.Sprintf("could not reach the Hugging Face Hub for the model %s (%v), and nothing about it is cached", id, err))
	}
	shown := *h.hub
	shown.User = nil // a mirror's address may hold a password
	page := shown.JoinPath(id).String()
	switch {
	case st.errorCode == "RepoNotFound" || st.code == http.StatusNotFound:
		return &lookupError{kind: ErrNotOnHub, msg: fmt.Sprintf(
			"the model %s was not found on the Hugging Face Hub: check its id (a private model also needs HF_TOKEN set to a token that may read it)", id)}
	case st.errorCode == "GatedRepo" || st.code == http.StatusUnauthorized || st.code == http.StatusForbidden:
		if h.token == "" {
			return &lookupError{kind: ErrGated, msg: fmt.Sprintf(
				"the model %s is gated on the Hugging Face Hub: accept its licence at %s, then set HF_TOKEN to a token of that account", id, page)}
		}
		return &lookupError{kind: ErrGated, msg: fmt.Sprintf(
			"the model %s is gated on the Hugging Face Hub and the token in HF_TOKEN may not read it: accept its licence at %s with that token's account, or set HF_TOKEN to one that has", id, page)}
	}
	return l.noFacts(id, fmt.Sprintf("the Hugging Face Hub answered HTTP %d about the model %s, and nothing about it is cached", st.code, id))
}

// statusError is a Hub answer other than 200.
type statusError struct {
	code      int
	errorCode string // the Hub's X-Error-Code
}

func (e *statusError) Error() string { return fmt.Sprintf("HTTP %d", e.code) }

// errTooLarge is an answer over its limit.
var errTooLarge = errors.New("the answer is larger than any the Hub gives")

// hubClient makes GET requests to one Hub with its token.
type hubClient struct {
	hub    *url.URL
	token  string
	client *http.Client
}

// get is the body of a 200 answer to GET u, at most limit bytes; the
// token goes only to the Hub's own origin, on the first request and on
// any redirect (see sameOrigin).
func (h hubClient) get(ctx context.Context, u string, limit int64) ([]byte, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "rigbench")
	if h.token != "" && sameOrigin(req.URL, h.hub) {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	c := &http.Client{Timeout: hubTimeout}
	if h.client != nil {
		cc := *h.client // the caller's client is not changed
		c = &cc
	}
	c.CheckRedirect = h.checkRedirect(c.CheckRedirect)
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the sentence names the Hub and the model already
		}
		return nil, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		_, _ = io.Copy(io.Discard, io.LimitReader(resp.Body, 64<<10)) // lets the connection be reused
		return nil, &statusError{code: resp.StatusCode, errorCode: resp.Header.Get("X-Error-Code")}
	}
	b, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, errTooLarge
	}
	return b, nil
}

// checkRedirect sets or drops the token on each redirect: Go's own rule
// keeps an Authorization header for the same host name on any port (and
// for subdomains), which would hand the token to another server on the
// Hub's machine (curl's CVE-2022-27776), so only the Hub's exact scheme,
// host and port get it. The caller's rule, if any, then has its say;
// without one, ten redirects are the most followed, as Go's default.
func (h hubClient) checkRedirect(prev func(*http.Request, []*http.Request) error) func(*http.Request, []*http.Request) error {
	return func(req *http.Request, via []*http.Request) error {
		if h.token != "" && sameOrigin(req.URL, h.hub) {
			req.Header.Set("Authorization", "Bearer "+h.token)
		} else {
			req.Header.Del("Authorization")
		}
		if prev != nil {
			return prev(req, via)
		}
		if len(via) >= 10 {
			return errors.New("stopped after 10 redirects")
		}
		return nil
	}
}

// sameOrigin says u is on hub's scheme, host and port (the scheme's
// default port when none is written).
func sameOrigin(u, hub *url.URL) bool {
	return strings.EqualFold(u.Scheme, hub.Scheme) && strings.EqualFold(u.Hostname(), hub.Hostname()) && port(u) == port(hub)
}

// port is u's port, the scheme's default when none is written.
func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}

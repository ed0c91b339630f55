package predict

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/rigbench/rigbench/internal/homedir"
)

// maxIDPart is the longest org or name the Hub allows (its repo-id rule).
const maxIDPart = 96

// CheckID says whether id is a Hugging Face model id, "org/name", that is
// safe to put in a file name and a URL: both parts 1–96 letters, digits,
// '_', '-' or '.', starting and ending with a letter, digit or '_', and no
// ".." or "--" (the Hub refuses both, and "--" is the separator of the
// cache's folder names, so refusing it keeps those names one-to-one). The
// front ends check a typed model id with it before anything is looked up.
func CheckID(id string) error {
	org, name, ok := strings.Cut(id, "/")
	if !ok || !idPart(org) || !idPart(name) || strings.Contains(id, "..") || strings.Contains(id, "--") {
		return fmt.Errorf("%q is not a Hugging Face model id: give it as org/name, like meta-llama/Llama-3.1-8B-Instruct", id)
	}
	return nil
}

// idPart is one part of an id by CheckID's rule.
func idPart(s string) bool {
	if s == "" || len(s) > maxIDPart {
		return false
	}
	for i, r := range s {
		word := r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9'
		if !word && ((r != '-' && r != '.') || i == 0 || i == len(s)-1) {
			return false
		}
	}
	return true
}

// HFCacheDir is this machine's Hugging Face hub cache, where the Hugging
// Face libraries (and so vLLM) keep downloaded models: $HF_HUB_CACHE,
// else $HF_HOME/hub, else ~/.cache/huggingface/hub (the home is
// %USERPROFILE% on Windows, where the libraries keep it too); "" when
// getenv knows none of them.
func HFCacheDir(getenv func(string) string) string {
	if hub := getenv("HF_HUB_CACHE"); hub != "" {
		return hub
	}
	home := getenv("HF_HOME")
	if home == "" {
		h := homedir.Lookup(getenv)
		if h == "" {
			return ""
		}
		home = filepath.Join(h, ".cache", "huggingface")
	}
	return filepath.Join(home, "hub")
}

// HFModelFolder is the folder name the Hugging Face cache gives a model:
// models--ORG--NAME.
func HFModelFolder(id string) string {
	return "models--" + strings.ReplaceAll(id, "/", "--")
}

// HFSnapshot is the newest snapshot folder of model in the Hugging Face
// cache (HFCacheDir/models--ORG--NAME/snapshots/REV, the most recently
// modified REV), "" when the model is not there or its id fails CheckID.
// A snapshot's files are links to the cache's blobs, so reading them
// reads the model as the server that downloaded it sees it.
func HFSnapshot(model string, getenv func(string) string) string {
	if CheckID(model) != nil {
		return ""
	}
	hub := HFCacheDir(getenv)
	if hub == "" {
		return ""
	}
	snaps := filepath.Join(hub, HFModelFolder(model), "snapshots")
	entries, err := os.ReadDir(snaps)
	if err != nil {
		return ""
	}
	var newest string
	var newestTime int64
	for _, s := range entries {
		info, err := s.Info()
		if err == nil && s.IsDir() && info.ModTime().UnixNano() >= newestTime {
			newest, newestTime = s.Name(), info.ModTime().UnixNano()
		}
	}
	if newest == "" {
		return ""
	}
	return filepath.Join(snaps, newest)
}

// SnapshotSafetensorsBytes is the total size of the *.safetensors files
// at the top of a snapshot folder (what vLLM loads onto the card; other
// formats and subfolders are not loaded), 0 when there are none. Each
// file's size is its blob's, the link followed.
func SnapshotSafetensorsBytes(snap string) int64 {
	files, _ := filepath.Glob(filepath.Join(snap, "*.safetensors"))
	var bytes int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil {
			bytes += info.Size()
		}
	}
	return bytes
}

// SnapshotConfig reads and parses the config.json of a snapshot folder
// (ParseConfig), reading no more than a config can be.
func SnapshotConfig(snap string) (Config, error) {
	f, err := os.Open(filepath.Join(snap, "config.json"))
	if err != nil {
		return Config{}, fmt.Errorf("the model's config.json is not in %s: download the model there, or give its facts by hand", snap)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxConfig+1))
	if err != nil {
		return Config{}, fmt.Errorf("cannot read the model's config.json in %s (%v): check the folder's permissions", snap, err)
	}
	return ParseConfig(b)
}

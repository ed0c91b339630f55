package session

import (
	"os"
	"path/filepath"
	"strings"
)

// HFCacheWeightsGiB is the size of model's weights in this machine's
// Hugging Face cache, in GiB: the *.safetensors files of its newest
// snapshot (hub/models--ORG--NAME/snapshots/REV/), whose bytes are what a
// server loads onto the card. 0 when the model is not there. The cache is
// where the Hugging Face libraries put it: $HF_HUB_CACHE, else
// $HF_HOME/hub, else ~/.cache/huggingface/hub. It gives an endpoint
// RigBench did not start its roofline figure when the server runs on this
// machine (METHOD.md: Roofline).
func HFCacheWeightsGiB(model string, getenv func(string) string) float64 {
	if model == "" || strings.HasPrefix(model, "/") || strings.Contains(model, "..") || strings.Count(model, "/") != 1 {
		return 0
	}
	hub := getenv("HF_HUB_CACHE")
	if hub == "" {
		home := getenv("HF_HOME")
		if home == "" {
			h := getenv("HOME")
			if h == "" {
				return 0
			}
			home = filepath.Join(h, ".cache", "huggingface")
		}
		hub = filepath.Join(home, "hub")
	}
	snaps, err := os.ReadDir(filepath.Join(hub, "models--"+strings.ReplaceAll(model, "/", "--"), "snapshots"))
	if err != nil {
		return 0
	}
	var newest string
	var newestTime int64
	for _, s := range snaps {
		info, err := s.Info()
		if err == nil && s.IsDir() && info.ModTime().UnixNano() >= newestTime {
			newest, newestTime = s.Name(), info.ModTime().UnixNano()
		}
	}
	if newest == "" {
		return 0
	}
	files, _ := filepath.Glob(filepath.Join(hub, "models--"+strings.ReplaceAll(model, "/", "--"), "snapshots", newest, "*.safetensors"))
	var bytes int64
	for _, f := range files {
		if info, err := os.Stat(f); err == nil { // follows the snapshot's link to its blob
			bytes += info.Size()
		}
	}
	return float64(bytes) / (1 << 30)
}

package cluster

import (
	"strings"
	"testing"
)

// A rig without the model fails the check when the launch is offline and
// is a note of its download otherwise; no cache folder is a note; a rig
// with the model says nothing.
func TestCheckModel(t *testing.T) {
	p, err := Propose(input(1, 1))
	if err != nil {
		t.Fatal(err)
	}
	p.Serve.HFCache = "/data/hf"
	found := []ModelFound{{Rig: "ssh://a", Cached: true}, {Rig: "ssh://b"}}
	probs, notes := CheckModel(p, found)
	if len(probs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "rig ssh://b does not have "+p.Serve.Model) ||
		!strings.Contains(notes[0], "downloads") {
		t.Errorf("online: problems %v, notes %q; want one note of ssh://b's download", probs, notes)
	}
	p.Serve.Env = append(p.Serve.Env, "HF_HUB_OFFLINE=true")
	probs, notes = CheckModel(p, found)
	if len(probs) != 1 || probs[0].Rig != "ssh://b" || probs[0].Check != "model" || len(notes) != 0 ||
		!strings.Contains(probs[0].Sentence, "/data/hf") || !strings.Contains(probs[0].Sentence, "hf download "+p.Serve.Model) {
		t.Errorf("offline: problems %v, notes %q; want ssh://b's problem with the download to make", probs, notes)
	}
	found[1].Cached = true
	if probs, notes = CheckModel(p, found); len(probs)+len(notes) != 0 {
		t.Errorf("every rig has it: problems %v, notes %q", probs, notes)
	}
	p.Serve.HFCache = ""
	if probs, notes = CheckModel(p, nil); len(probs) != 0 || len(notes) != 1 || !strings.Contains(notes[0], "--hf-cache") {
		t.Errorf("no cache folder: problems %v, notes %q; want the note", probs, notes)
	}
}

func TestOffline(t *testing.T) {
	for env, want := range map[string]bool{
		"HF_HUB_OFFLINE=1": true, "HF_HUB_OFFLINE=yes": true, "HF_HUB_OFFLINE=On": true, "HF_HUB_OFFLINE= TRUE": true,
		"HF_HUB_OFFLINE=0": false, "HF_HUB_OFFLINE": false, "HF_HUB_OFFLINE=": false, "XHF_HUB_OFFLINE=1": false,
	} {
		if got := Offline([]string{"A=B", env}); got != want {
			t.Errorf("Offline(%q) = %v, want %v", env, got, want)
		}
	}
}

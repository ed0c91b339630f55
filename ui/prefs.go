package ui

import (
	"encoding/json"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// Preference keys. Secrets (the HF token, API keys) never get one.
const (
	prefWidth        = "window.width"
	prefHeight       = "window.height"
	prefTarget       = "target.kind"
	prefEndpoint     = "target.url"
	prefLaunch       = "launch.config"
	prefRecentModels = "launch.recent_models"
	prefPresets      = "launch.user_presets"
	prefPlan         = "run.plan"
	prefDemoSpeed    = "demo.speed"
	prefTheme        = "view.theme"
	// prefRig is the picked rig's name (rig.Parse); prefRigsAdded the SSH
	// rigs added with "Add rig" (addresses, no secrets: RigBench never
	// takes a password).
	prefRig       = "rig.name"
	prefRigsAdded = "rig.added"
)

// maxRecentModels bounds the model drop-down.
const maxRecentModels = 10

// saveLaunch stores the launch form (model, image, flags) without the
// token: LaunchConfig's JSON skips HFToken, and the source is cleared.
func saveLaunch(p fyne.Preferences, c vllm.LaunchConfig) {
	c.HFToken, c.TokenSource = "", vllm.TokenNone
	// The port is chosen afresh each session (8000, or a free one when
	// 8000 is taken then), so a port picked once does not stick for ever.
	c.Port = 0
	if b, err := json.Marshal(c); err == nil {
		p.SetString(prefLaunch, string(b))
	}
}

func loadLaunch(p fyne.Preferences) (vllm.LaunchConfig, bool) {
	var c vllm.LaunchConfig
	s := p.String(prefLaunch)
	if s == "" || json.Unmarshal([]byte(s), &c) != nil {
		return c, false
	}
	return c, true
}

// rememberModel puts id first in the recent-models list.
func rememberModel(p fyne.Preferences, id string) []string {
	list := p.StringList(prefRecentModels)
	if id == "" {
		return list
	}
	out := []string{id}
	for _, m := range list {
		if m != id && len(out) < maxRecentModels {
			out = append(out, m)
		}
	}
	p.SetStringList(prefRecentModels, out)
	return out
}

func savePlan(p fyne.Preferences, plan rundoc.Plan) {
	if b, err := json.Marshal(plan); err == nil {
		p.SetString(prefPlan, string(b))
	}
}

func loadPlan(p fyne.Preferences) (rundoc.Plan, bool) {
	var plan rundoc.Plan
	s := p.String(prefPlan)
	if s == "" || json.Unmarshal([]byte(s), &plan) != nil || len(plan.Contexts) == 0 || len(plan.Concurrency) == 0 {
		return plan, false
	}
	return plan, true
}

func savePresets(p fyne.Preferences, m map[string][]vllm.FlagValue) {
	if b, err := json.Marshal(m); err == nil {
		p.SetString(prefPresets, string(b))
	}
}

func loadPresets(p fyne.Preferences) map[string][]vllm.FlagValue {
	m := map[string][]vllm.FlagValue{}
	_ = json.Unmarshal([]byte(p.String(prefPresets)), &m)
	return m
}

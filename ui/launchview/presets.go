package launchview

// Flag presets: the built-in ones and the user's own, applied and saved.

import (
	"sort"
	"strings"

	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// SetUserPresets loads presets saved earlier.
func (v *View) SetUserPresets(p map[string][]vllm.FlagValue) {
	if p == nil {
		p = map[string][]vllm.FlagValue{}
	}
	v.user = p
	v.refreshPresets()
}

func (v *View) refreshPresets() {
	var names []string
	for _, p := range vllm.Presets() {
		names = append(names, p.Name)
	}
	var mine []string
	for n := range v.user {
		mine = append(mine, n)
	}
	sort.Strings(mine)
	v.presets.Options = append(names, mine...)
	v.presets.Refresh()
}

// ApplyPreset loads a built-in or saved preset by name into the form.
func (v *View) ApplyPreset(name string) { v.applyPreset(name) }

func (v *View) applyPreset(name string) {
	if name == "" {
		return
	}
	c := v.Form.Config()
	for _, p := range vllm.Presets() {
		if p.Name == name {
			v.Form.SetConfig(p.Apply(c))
			return
		}
	}
	if flags, ok := v.user[name]; ok {
		c.Flags = append([]vllm.FlagValue(nil), flags...)
		v.Form.SetConfig(c)
	}
}

func (v *View) savePreset() {
	name := dialogkeys.NewField()
	name.SetPlaceHolder("e.g. 3060 fp8 32K")
	dialogkeys.ShowForm("Save the flags as a preset", "Save", "Cancel", []*widget.FormItem{widget.NewFormItem("Name", name)}, func(ok bool) {
		n := strings.TrimSpace(name.Text)
		if !ok || n == "" {
			return
		}
		v.SavePreset(n)
	}, v.win, name)
}

// SavePreset stores the form's flags under name.
func (v *View) SavePreset(name string) {
	v.user[name] = append([]vllm.FlagValue(nil), v.Form.Config().Flags...)
	v.refreshPresets()
	if v.OnUserPresets != nil {
		v.OnUserPresets(v.user)
	}
}

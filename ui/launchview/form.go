package launchview

import (
	"os"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/store"
)

// Form is the launch configuration editor: model, image, GPUs, the catalog
// flags and extra arguments, with the two command previews. Its methods
// must be called on the Fyne goroutine.
type Form struct {
	cfg     vllm.LaunchConfig
	filling bool

	model            *widget.SelectEntry
	image, tag, gpus *widget.Entry
	extra            *widget.Entry
	// compileCache is the folder mounted as vLLM's compile cache; empty
	// mounts none (the CLI's --compile-cache off).
	compileCache *widget.Entry
	// cacheDefault is the compile cache folder the picked rig mounts
	// unless the user names one (SetCompileCacheDefault).
	cacheDefault  string
	rows          []*flagRow
	byName        map[string]*flagRow
	general       *widget.Label
	serve, docker *widget.Label
	groups        *widget.Accordion
	findings      []vllm.FieldError
	onChanged     func(vllm.LaunchConfig)
	// demo hides the findings about the launch's own fields (model,
	// image, GPUs, token), which the demo does not use.
	demo bool
}

// launchOnly are the fields only a launch uses.
var launchOnly = map[string]bool{"model": true, "image": true, "tag": true, "gpus": true, "port": true, "hf_token": true}

// setDemo says whether the form edits the demo's flags.
func (f *Form) setDemo(on bool) {
	if f.demo != on {
		f.demo = on
		f.edited()
	}
}

// NewForm builds the form from vllm.Catalog(). onChanged (may be nil) is
// called after every edit with the new configuration.
func NewForm(onChanged func(vllm.LaunchConfig)) *Form {
	f := &Form{byName: map[string]*flagRow{}, onChanged: onChanged}
	// The port and the Hugging Face cache are those of `rigbench-cli launch
	// --print-docker`: the preview is the command Start runs, and a user
	// who copies it gets the same server (weights kept between launches).
	f.cfg = vllm.LaunchConfig{Image: vllm.DefaultImage, Tag: vllm.DefaultTag, GPUs: "all",
		Port: vllm.ContainerPort, HFCache: vllm.DefaultHFCache}
	// The compile cache folder too is the CLI's default, so later starts
	// of a configuration skip most of torch.compile (docs/launch.md).
	f.cfg.CompileCache, _ = store.CompileCacheDir(os.Getenv)
	f.cacheDefault = f.cfg.CompileCache
	f.model = widget.NewSelectEntry(nil)
	f.model.SetPlaceHolder("Hugging Face id, e.g. Qwen/Qwen2.5-1.5B-Instruct")
	f.image, f.tag, f.gpus = widget.NewEntry(), widget.NewEntry(), widget.NewEntry()
	f.image.SetText(f.cfg.Image)
	f.tag.SetText(f.cfg.Tag)
	f.gpus.SetText(f.cfg.GPUs)
	f.extra = widget.NewEntry()
	f.extra.SetPlaceHolder("other vLLM arguments, as on a command line")
	f.compileCache = widget.NewEntry()
	f.compileCache.SetText(f.cfg.CompileCache)
	f.compileCache.SetPlaceHolder("none: every start compiles afresh")
	for _, e := range []*widget.Entry{&f.model.Entry, f.image, f.tag, f.gpus, f.extra, f.compileCache} {
		e.OnChanged = func(string) { f.edited() }
	}
	f.general = widget.NewLabel("")
	f.general.Importance = widget.DangerImportance
	f.general.Wrapping = fyne.TextWrapWord
	f.general.Hide()
	f.serve, f.docker = mono(), mono()

	var order []string
	content := map[string]*fyne.Container{}
	for _, fl := range vllm.Catalog() {
		if fl.Managed {
			continue
		}
		r := newFlagRow(fl, f.edited)
		f.rows = append(f.rows, r)
		f.byName[fl.Name] = r
		if content[fl.Group] == nil {
			order = append(order, fl.Group)
			content[fl.Group] = container.NewVBox()
		}
		content[fl.Group].Add(r.obj)
	}
	f.groups = widget.NewAccordion()
	f.groups.MultiOpen = true
	for _, g := range order {
		f.groups.Append(widget.NewAccordionItem(g, content[g]))
	}
	if len(order) > 0 {
		f.groups.Open(0)
	}
	f.edited()
	return f
}

func mono() *widget.Label {
	l := widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Monospace: true})
	l.Wrapping = fyne.TextWrapBreak
	l.Selectable = true
	return l
}

// Basics is the model/image/GPU part of the form.
func (f *Form) Basics() fyne.CanvasObject {
	return widget.NewForm(
		widget.NewFormItem("Model", f.model),
		widget.NewFormItem("Image", container.NewBorder(nil, nil, nil, container.NewGridWrap(fyne.NewSize(140, f.tag.MinSize().Height), f.tag), f.image)),
		widget.NewFormItem("GPUs", f.gpus),
		widget.NewFormItem("Extra arguments", f.extra),
		widget.NewFormItem("Compile cache", f.compileCache),
	)
}

// Flags is the grouped flag form.
func (f *Form) Flags() fyne.CanvasObject { return container.NewVBox(f.general, f.groups) }

// Config returns the configuration the form shows, the one the previews
// are rendered from and Start launches: one value, so the `docker run`
// line shown is the command that runs.
func (f *Form) Config() vllm.LaunchConfig { return f.cfg }

// SetPort changes the host port the server is published on.
func (f *Form) SetPort(port int) {
	f.cfg.Port = port
	f.edited()
}

// Findings returns the validation findings of the current configuration.
func (f *Form) Findings() []vllm.FieldError { return f.findings }

// ServePreview and DockerPreview return the command lines shown.
func (f *Form) ServePreview() string { return f.serve.Text }

// DockerPreview returns the `docker run …` line shown (secrets redacted).
func (f *Form) DockerPreview() string { return f.docker.Text }

// FlagError returns the inline message under a flag ("" when none).
func (f *Form) FlagError(name string) string {
	if r, ok := f.byName[name]; ok && r.err.Visible() {
		return r.err.Text
	}
	return ""
}

// GeneralMessage is the message above the flag groups ("" when hidden):
// findings that belong to no single flag.
func (f *Form) GeneralMessage() string {
	if f.general.Visible() {
		return f.general.Text
	}
	return ""
}

// SetFlagText types v into a flag's text field, as a user would (only for
// numeric and text flags); it reports whether the flag has such a field.
func (f *Form) SetFlagText(name, v string) bool {
	r, ok := f.byName[name]
	if !ok || r.entry == nil {
		return false
	}
	r.entry.SetText(v)
	return true
}

// SetModel types a model id.
func (f *Form) SetModel(id string) { f.model.SetText(id) }

// SetCompileCache types the compile cache folder ("" for none).
func (f *Form) SetCompileCache(dir string) { f.compileCache.SetText(dir) }

// SetCompileCacheDefault is the picked rig's default compile cache folder
// (session.DefaultCompileCache): the field takes it where it still holds
// the previous rig's default, so a folder the user typed, or an emptied
// field (none), stays as they left it.
func (f *Form) SetCompileCacheDefault(dir string) {
	if strings.TrimSpace(f.compileCache.Text) == f.cacheDefault {
		f.compileCache.SetText(dir)
	}
	f.cacheDefault = dir
}

// SetRecentModels fills the model drop-down.
func (f *Form) SetRecentModels(ids []string) { f.model.SetOptions(ids) }

// SetConfig shows c in every control, then reports one change. A config
// without a port or cache folders (saved by an older RigBench, pasted
// without -p or -v) keeps the form's.
func (f *Form) SetConfig(c vllm.LaunchConfig) {
	if c.Port == 0 {
		c.Port = f.cfg.Port
	}
	if c.HFCache == "" {
		c.HFCache = f.cfg.HFCache
	}
	if c.CompileCache == "" {
		c.CompileCache = f.cfg.CompileCache
	}
	f.filling = true
	f.compileCache.SetText(c.CompileCache)
	f.model.SetText(c.Model)
	f.image.SetText(c.Image)
	f.tag.SetText(c.Tag)
	f.gpus.SetText(c.GPUs)
	f.extra.SetText(vllm.JoinArgs(c.Extra))
	for _, r := range f.rows {
		v, set := c.Get(r.flag.Name)
		r.show(v, set)
	}
	f.filling = false
	token, src := f.cfg.HFToken, f.cfg.TokenSource
	f.cfg = c
	f.cfg.HFToken, f.cfg.TokenSource = token, src
	f.edited()
}

// setToken records the token choice; it never reaches preferences.
func (f *Form) setToken(src vllm.TokenSource, token string) {
	f.cfg.TokenSource, f.cfg.HFToken = src, token
	f.edited()
}

// edited reads every control into the configuration, validates it and
// refreshes the previews and inline messages.
func (f *Form) edited() {
	if f.filling {
		return
	}
	c := f.cfg
	c.Model = strings.TrimSpace(f.model.Text)
	c.Image = strings.TrimSpace(f.image.Text)
	c.Tag = strings.TrimSpace(f.tag.Text)
	c.GPUs = strings.TrimSpace(f.gpus.Text)
	c.CompileCache = strings.TrimSpace(f.compileCache.Text)
	c.Extra = nil
	var extraMsgs []string
	if strings.TrimSpace(f.extra.Text) != "" {
		if parsed, err := vllm.ParseCommand(f.extra.Text); err != nil {
			extraMsgs = append(extraMsgs, "Extra arguments: "+err.Error())
		} else {
			c.Extra = append(parsed.Extra, flagArgs(parsed.Flags)...)
			if u := unknownFlags(parsed.Extra); len(u) > 0 {
				extraMsgs = append(extraMsgs, unknownFlagsWarning(u))
			}
		}
	}
	c.Flags = nil
	for _, r := range f.rows {
		if v, set := r.value(); set {
			c.Set(r.flag.Name, v)
		}
	}
	f.cfg = c
	f.findings = c.Validate()
	f.showFindings(extraMsgs)
	shown := withoutInvalid(c, f.findings)
	f.serve.SetText(shown.ServeCommand())
	f.docker.SetText(shown.DockerCommand(true))
	if f.onChanged != nil {
		f.onChanged(c)
	}
}

// flagArgs turns catalog flags found in the extra-arguments field back into
// arguments, so typing a known flag there still reaches the command line.
func flagArgs(fvs []vllm.FlagValue) []string {
	var out []string
	for _, fv := range fvs {
		fl, _, ok := vllm.Lookup(fv.Name)
		switch {
		case ok && !fl.TakesValue() && fv.Value == "false" && fl.Negation != "":
			out = append(out, fl.Negation)
		case ok && !fl.TakesValue():
			out = append(out, fv.Name)
		default:
			out = append(out, fv.Name, fv.Value)
		}
	}
	return out
}

// withoutInvalid is c without the catalog flags that have an error: the
// previews show only a command that can run (Start refuses until the form
// is fixed, and a copied line with 1.7 for a fraction would fail later).
func withoutInvalid(c vllm.LaunchConfig, findings []vllm.FieldError) vllm.LaunchConfig {
	bad := map[string]bool{}
	for _, e := range vllm.Errors(findings) {
		bad[e.Field] = true
	}
	out := c
	out.Flags = nil
	for _, fv := range c.Flags {
		if !bad[fv.Name] {
			out.Flags = append(out.Flags, fv)
		}
	}
	return out
}

// unknownFlags are the option names among extra arguments (the catalog's
// own flags were taken out by the parser, so these are not in it).
func unknownFlags(extra []string) []string {
	var out []string
	for _, a := range extra {
		if strings.HasPrefix(a, "--") && len(a) > 2 {
			name, _, _ := strings.Cut(a, "=")
			out = append(out, name)
		}
	}
	return out
}

// unknownFlagsWarning says that extra flags are passed on unchecked.
func unknownFlagsWarning(names []string) string {
	return "Warning: " + strings.Join(names, ", ") + " " + map[bool]string{true: "is", false: "are"}[len(names) == 1] +
		" not in RigBench's catalog of vLLM flags, so RigBench cannot check " + map[bool]string{true: "it", false: "them"}[len(names) == 1] +
		": check the spelling against `vllm serve --help` of your image (vLLM refuses a flag it does not know)."
}

// invalidLeftOut ends the message under a flag whose value is an error.
const invalidLeftOut = " Left out of the command until fixed."

func (f *Form) showFindings(extra []string) {
	perFlag := map[string][]string{}
	general := append([]string(nil), extra...)
	for _, e := range f.findings {
		msg := e.Message
		if e.Severity == vllm.SeverityWarning {
			msg = "Warning: " + msg
		} else if _, ok := f.byName[e.Field]; ok {
			msg += invalidLeftOut
		}
		if _, ok := f.byName[e.Field]; ok {
			perFlag[e.Field] = append(perFlag[e.Field], msg)
		} else if !f.demo || !launchOnly[e.Field] {
			general = append(general, msg)
		}
	}
	for name, r := range f.byName {
		if msgs := perFlag[name]; len(msgs) > 0 {
			r.err.SetText(strings.Join(msgs, "\n"))
			r.err.Show()
		} else {
			r.err.Hide()
		}
	}
	if len(general) > 0 {
		f.general.SetText(strings.Join(general, "\n"))
		f.general.Show()
	} else {
		f.general.Hide()
	}
}

// Paste fills the form from a pasted `docker run …` or `vllm serve …`
// line. It returns what the line held that RigBench does not carry over,
// or the reason the line could not be read.
func (f *Form) Paste(line string) (ignored []string, err error) {
	c, rep, err := vllm.ParseCommandReport(line)
	if err != nil {
		return nil, err
	}
	cur := f.cfg
	if c.Image == "" {
		c.Image, c.Tag = cur.Image, cur.Tag
	}
	if c.GPUs == "" {
		c.GPUs = cur.GPUs
	}
	f.SetConfig(c)
	return rep.Ignored, nil
}

// Package tuneview is the app's Tune view: pick the launch flags to vary
// and what "faster" means, see how many variants and how long before
// starting, watch the sweep, then read the verdict, the table and the chart
// of the objective per variant, apply the winner to the Launch form and
// export the sweep. It is a front end of engine/tune, like
// `rigbench-cli tune`; the app supplies the target through Backend.
package tuneview

import (
	"fmt"
	"image/color"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/canvas"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/job"
	"github.com/rigbench/rigbench/ui/progress"
	"github.com/rigbench/rigbench/ui/qualityview"
	"github.com/rigbench/rigbench/ui/wording"
)

// Backend is what the view asks of the app; the view builds no engine
// object itself. Unavailable, Sweep and Resume are called on the Fyne
// goroutine.
type Backend struct {
	// Unavailable says why Tune cannot run on the chosen target ("" when
	// it can).
	Unavailable func() string
	// Sweep builds the runner of a new sweep of the form's input (Input):
	// the app adds the chosen target (the Launch page's flags as the base)
	// and the history's recorder. Its error says what to fix; a
	// *rundoc.FieldError is worded with the form's labels.
	Sweep func(in tune.SpecInput) (*tune.Runner, error)
	// Resume rebuilds the runner of a sweep started before (its kept
	// spec), with the history's recorder and resume lookup set.
	Resume func(spec tune.Spec) (*tune.Runner, error)
	// Target words where the variants run ("on the simulated server"),
	// shown with the estimate (nil: nothing).
	Target func() string
	// GPUs is the number of GPUs detected: --tensor-parallel-size is
	// offered only with more than one, or over a cluster.
	GPUs func() int
	// Cluster words the cluster each variant launches over, in one line
	// shown under the title ("" on one rig, and nil: never a cluster).
	Cluster func() string
	// Suggest gives the values the form offers for a dimension the front
	// end knows better than the catalog (over a cluster: the splits its
	// rigs allow, its interface); nil, or a nil answer, takes the
	// catalog's.
	Suggest func(name string) []string
	// OnApply puts the winner's flag changes in the Launch form.
	OnApply func(changes []vllm.FlagValue)
	// OnApplyLink puts the winner's interface in the Launch page's
	// cluster, where the sweep varied it (nil: the status says to set it).
	OnApplyLink func(iface string)
	// OnExport exports the sweep document (nil: the Export button hides).
	OnExport func(*tune.Doc)
	// OnImport opens an exported sweep document and shows it with Show
	// (nil: the Open button hides).
	OnImport func()
	// OnFinished is told when a sweep ends (the app reloads History).
	OnFinished func(*tune.Result, error)
	// LastSweep returns the sweep started last with this history (nil when
	// none), judged from the variants the history holds, and whether it
	// finished (ran to its end, or all its variants were found): the view
	// reopens on it, with its verdict when finished (and Resume for the
	// variants deleted from History since), with Resume when RigBench
	// crashed or closed during it.
	LastSweep func() (spec *tune.Spec, res *tune.Result, finished bool)
}

// View is the Tune view. Its methods must be called on the Fyne goroutine.
type View struct {
	b Backend

	unavailable                *widget.Label
	cluster                    *widget.Label
	flag                       *widget.Select
	values                     *widget.Entry
	dimsBox                    *fyne.Container
	mode                       *widget.RadioGroup
	contexts, concurrency, dur *widget.Entry
	constraint                 *widget.Entry
	// quality is the quality check each variant is asked (Spec.Quality),
	// paired with the base launch's: the verdict never recommends a
	// variant that lost quality.
	quality *qualityview.Picker
	// objective offers tune.ObjectiveChoices and takes any objective typed.
	objective                            *widget.SelectEntry
	objectiveChoices                     []string
	summary, status, verdict             *widget.Label
	progress                             *progress.Bar
	addBtn, startBtn, stopBtn, resumeBtn *widget.Button
	applyBtn, exportBtn, openBtn         *widget.Button
	table                                *widget.Table
	chart                                *fyne.Container
	// left holds the form and results the chart and the table: each is
	// laid out again when what it holds changes size, or the chart was
	// drawn over the table and the estimate over the Constraint row.
	left, results *fyne.Container
	content       fyne.CanvasObject

	dims []tune.Dimension
	// advised is the sweep "Tune this" put in the form (Prefill), nil
	// otherwise: its flags are the base, and its predictions are checked.
	advised *tune.Spec
	spec    *tune.Spec // the spec of the last sweep started (Resume reuses it)
	doc     *tune.Doc  // the sweep shown
	rows    [][]string

	// job is the sweep in progress, if any.
	job job.Job
}

// Mode labels of the radio group.
const (
	gridLabel = "Grid (every combination)"
	oneLabel  = "One at a time (from your flags)"
)

// New builds the view.
func New(b Backend) *View {
	v := &View{b: b}
	v.buildInputs()
	v.buildControls()
	v.buildResults()
	v.content = v.layout()
	v.Refresh()
	if b.LastSweep != nil {
		if s, res, complete := b.LastSweep(); s != nil {
			v.reopen(s, res, complete)
		}
	}
	return v
}

// Rejudge shows the sweep on screen again as the history now holds it,
// when it is the last sweep and none runs: History deleted runs, and a
// verdict that still counted them would read as if they were kept.
func (v *View) Rejudge() {
	if v.Running() || v.b.LastSweep == nil || v.doc == nil {
		return
	}
	if s, res, finished := v.b.LastSweep(); s != nil && s.ID == v.doc.SweepID {
		v.reopen(s, res, finished)
	}
}

// reopen shows the last sweep as RigBench left it: its form, and its
// verdict when every variant is in the history, else Resume.
func (v *View) reopen(s *tune.Spec, res *tune.Result, finished bool) {
	v.fill(*s)
	v.spec = s
	if finished && res != nil {
		v.Show(res.Document())
		gone := 0
		for _, vr := range res.Variants {
			if vr.Status == tune.NotRun {
				gone++
			}
		}
		if gone == 0 {
			v.status.SetText(fmt.Sprintf("Sweep %s: all %s are in History (tag %s). Start runs the form again as a new sweep.",
				s.ID, wording.Count(len(res.Variants), "variant"), tune.Tag(s.ID)))
			return
		}
		// A finished sweep keeps its verdict when runs of it are deleted:
		// judged from the rest, with Resume to measure them again.
		v.resumeBtn.Enable()
		was, it := "were", "them"
		if gone == 1 {
			was, it = "was", "it"
		}
		v.status.SetText(fmt.Sprintf("Sweep %s finished; %d of its %s %s deleted from History since, so the verdict above is judged without %s. Resume measures %s again.",
			s.ID, gone, wording.Count(len(res.Variants), "variant"), was, it, it))
		return
	}
	v.resumeBtn.Enable()
	v.status.SetText(fmt.Sprintf("Sweep %s (%s) stopped before its %s were measured: Resume measures the rest; those in History are kept.",
		s.ID, dimsText(s.Dimensions), wording.Count(len(s.Variants()), "variant")))
}

// buildControls makes the buttons, the progress, status and verdict.
func (v *View) buildControls() {
	b := v.b
	v.status = widget.NewLabel("Add a flag to vary, then Start.")
	v.status.Wrapping = fyne.TextWrapWord
	v.progress = progress.NewBar()
	v.verdict = widget.NewLabelWithStyle("", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	v.verdict.Wrapping = fyne.TextWrapWord
	v.startBtn = widget.NewButtonWithIcon("Start sweep", theme.MediaPlayIcon(), v.Start)
	v.startBtn.Importance = widget.HighImportance
	v.stopBtn = widget.NewButtonWithIcon("Stop", theme.MediaStopIcon(), v.Stop)
	v.stopBtn.Disable()
	v.resumeBtn = widget.NewButtonWithIcon("Resume", theme.MediaReplayIcon(), v.Resume)
	v.resumeBtn.Disable()
	v.applyBtn = widget.NewButtonWithIcon("Apply to Launch", theme.ConfirmIcon(), v.Apply)
	v.applyBtn.Disable()
	v.exportBtn = widget.NewButtonWithIcon("Export…", theme.DocumentSaveIcon(), func() {
		if v.b.OnExport != nil && v.doc != nil {
			v.b.OnExport(v.doc)
		}
	})
	v.exportBtn.Disable()
	if b.OnExport == nil {
		v.exportBtn.Hide()
	}
	v.openBtn = widget.NewButtonWithIcon("Open sweep…", theme.FolderOpenIcon(), func() {
		if v.b.OnImport != nil {
			v.b.OnImport()
		}
	})
	if b.OnImport == nil {
		v.openBtn.Hide()
	}
}

// layout places the form on the left and the controls and results on the
// right.
func (v *View) layout() fyne.CanvasObject {
	form := widget.NewForm(
		// The values on their own row: beside the flag's drop-down they
		// had a few characters' room at 900 px.
		widget.NewFormItem("Vary", container.NewBorder(nil, nil, nil, v.addBtn, v.flag)),
		widget.NewFormItem("Values", v.values),
		widget.NewFormItem("", v.dimsBox),
		widget.NewFormItem("Variants", v.mode),
		widget.NewFormItem("Contexts", v.contexts),
		widget.NewFormItem("Concurrency", v.concurrency),
		widget.NewFormItem("Window", v.dur),
		widget.NewFormItem("Objective", v.objective),
		widget.NewFormItem("Constraint", v.constraint),
		// The probe and its items on two rows: on one they widened the
		// form past what a 900 px window leaves it.
		widget.NewFormItem("Quality", v.quality.Probe),
		widget.NewFormItem("Items", v.quality.Items),
	)
	title := widget.NewLabelWithStyle("Tune: which launch flags make this card fastest", fyne.TextAlignLeading, fyne.TextStyle{Bold: true})
	title.Wrapping = fyne.TextWrapWord
	v.left = container.NewVBox(title, v.unavailable, v.cluster, form, v.summary)
	controls := container.NewVBox(
		// Two rows: in one, the six buttons were wider than the right
		// pane of a 900 px window, which then scrolled sideways.
		container.NewHBox(v.startBtn, v.stopBtn, v.resumeBtn),
		container.NewHBox(v.applyBtn, v.exportBtn, v.openBtn),
		v.progress, v.status, v.verdict,
	)
	// The table takes the width there is and at least room for a few
	// variants' rows.
	tall := canvas.NewRectangle(color.Transparent)
	tall.SetMinSize(fyne.NewSize(10, 240))
	tableBox := container.NewStack(tall, v.table)
	v.results = container.NewVBox(v.chart, tableBox)
	right := container.NewBorder(controls, nil, nil, nil, container.NewVScroll(v.results))
	split := container.NewHSplit(container.NewVScroll(v.left), right)
	split.Offset = 0.36
	return split
}

// Content is the view's root.
func (v *View) Content() fyne.CanvasObject { return v.content }

// Refresh reads the target and the flag list again (the app calls it when
// the target or the detected GPUs change).
func (v *View) Refresh() {
	var opts []string
	gpus := 1
	if v.b.GPUs != nil {
		gpus = v.b.GPUs()
	}
	over := ""
	if v.b.Cluster != nil {
		over = v.b.Cluster()
	}
	showLine(v.cluster, over)
	for _, f := range vllm.Catalog() {
		if !vllm.Tunable(f.Name) || len(vllm.Suggestions(f.Name)) == 0 {
			continue
		}
		// A cluster's rigs are read at each launch: their GPUs are
		// not known here.
		if f.Name == "--tensor-parallel-size" && gpus < 2 && over == "" {
			continue
		}
		opts = append(opts, f.Name)
	}
	if over != "" {
		// Over a cluster the split (TP and PP together) and the link's
		// interface are varied too (tune.SplitDimension,
		// tune.InterfaceDimension), as the CLI's --vary takes them.
		opts = append(opts, tune.SplitDimension, tune.InterfaceDimension)
	}
	v.flag.SetOptions(opts)
	v.edited()
}

// Summary is the line under the form: the variant count and the estimated
// wall time, or what is wrong with the inputs.
func (v *View) Summary() string { return v.summary.Text }

// ClusterLine is the line naming the cluster the variants launch over,
// "" on one rig.
func (v *View) ClusterLine() string {
	if !v.cluster.Visible() {
		return ""
	}
	return v.cluster.Text
}

// Status is the progress or outcome line.
func (v *View) Status() string { return v.status.Text }

// Verdict is the verdict shown, "" before a sweep ends.
func (v *View) Verdict() string { return v.verdict.Text }

// Doc is the sweep shown (nil before one ends).
func (v *View) Doc() *tune.Doc { return v.doc }

// Rows are the table's rows, the header first.
func (v *View) Rows() [][]string { return v.rows }

// CanApply reports whether Apply to Launch is enabled.
func (v *View) CanApply() bool { return !v.applyBtn.Disabled() }

// CanResume reports whether Resume is enabled: a sweep cut off, or one
// whose runs were deleted from History since it finished.
func (v *View) CanResume() bool { return !v.resumeBtn.Disabled() }

// Running reports whether a sweep is going.
func (v *View) Running() bool { return v.job.Running() }

// Done is closed when the sweep started last has ended and its outcome is
// on screen (a closed channel when none runs).
func (v *View) Done() <-chan struct{} { return v.job.Done() }

// FormBox is the box of the title, the form and the estimate under it
// (tests check their layout).
func (v *View) FormBox() *fyne.Container { return v.left }

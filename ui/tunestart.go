package ui

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/cluster"
	"github.com/rigbench/rigbench/engine/rig"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/internal/safefile"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/dialogkeys"
	"github.com/rigbench/rigbench/ui/export"
	"github.com/rigbench/rigbench/ui/launchview"
	"github.com/rigbench/rigbench/ui/target"
	"github.com/rigbench/rigbench/ui/tuneview"
	"github.com/rigbench/rigbench/ui/wording"
)

// TabTune is the Tune view's tab title.
const TabTune = "Tune"

// tuneBackend connects the Tune view to the chosen target, the Launch
// form and the history.
func (u *UI) tuneBackend() tuneview.Backend {
	return tuneview.Backend{
		Unavailable: func() string {
			switch u.Target.Choice().Kind {
			case target.Endpoint:
				return tuneEndpointText
			case target.Launch:
				if u.Launch.Server() != nil || u.Launch.Starting() {
					return "Stop the server on the Launch page first: Tune starts the server again for each variant, on the same card."
				}
			}
			return ""
		},
		Sweep:  u.newSweep,
		Resume: u.resumeSweep,
		Target: func() string {
			if u.Target.Choice().Kind == target.Demo {
				return "on the simulated server (demo) at the Launch page's demo speed"
			}
			if _, on := u.tuneCluster(u.Launch.Form.Config()); on {
				return "each a new cluster of the Launch page's image and model"
			}
			return "each a new container of the Launch page's image and model"
		},
		Cluster: u.tuneClusterLine,
		Suggest: u.tuneSuggest,
		OnApplyLink: func(iface string) {
			in, _ := u.Launch.ClusterInput(u.Launch.Form.Config())
			u.Launch.SetClusterLink(iface, in.NodeIPs)
		},
		GPUs: func() int {
			if u.snapshot == nil {
				return 0
			}
			return len(u.snapshot.GPUs)
		},
		OnApply: func(changes []vllm.FlagValue) {
			cfg := u.Launch.Form.Config()
			for _, c := range changes {
				if c.Value == "" {
					cfg.Unset(c.Name) // a flag the winner leaves out
					continue
				}
				cfg.Set(c.Name, c.Value)
			}
			u.Launch.Form.SetConfig(cfg)
		},
		OnExport: u.exportSweep,
		OnImport: u.importSweep,
		OnFinished: func(*tune.Result, error) {
			u.History.Reload()
		},
		LastSweep: u.lastSweep,
	}
}

// tuneSpecDir is where sweeps keep their spec beside the history, "" when
// the history is not saved (nothing to resume after RigBench closes).
func (u *UI) tuneSpecDir() string {
	if u.unsavedWhy != "" {
		return ""
	}
	p, err := store.ResolvePath("", os.Getenv)
	if err != nil {
		return ""
	}
	return tune.SpecDir(p)
}

// lastSweep is the sweep started last with this history, judged from the
// variants the history holds, and whether it finished: it ran to its end
// (a run of it deleted from History since leaves it finished, judged from
// the rest), or every variant is there. The Tune view reopens on it: its
// verdict, or Resume after a crash or a close during it.
func (u *UI) lastSweep() (*tune.Spec, *tune.Result, bool) {
	dir := u.tuneSpecDir()
	if dir == "" {
		return nil, nil, false
	}
	spec, _, ok := tune.LatestSpec(dir)
	if !ok {
		return nil, nil, false
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	res, complete, err := tune.Recall(ctx, spec, u.tuneHistory)
	if err != nil {
		return &spec, nil, false
	}
	return &spec, res, complete || tune.Finished(dir, spec.ID)
}

// tuneEndpointText words tune.ErrEndpoint with the app's remedy.
var tuneEndpointText = wording.Sentence(tune.ErrEndpoint.Error()) + " Choose the demo or Launch as the target."

// newSweep is the Tune view's sweep of its form's input: the chosen
// target (the Launch page's flags as the base, the demo's speed, or the
// picked rig) filled in, read and built by Services.Sweep (the CLI's
// tune.SpecInput), with every variant recorded by the history.
func (u *UI) newSweep(in tune.SpecInput) (*tune.Runner, error) {
	if u.Target.Choice().Kind == target.Endpoint {
		return nil, errors.New(tuneEndpointText)
	}
	in.Target = u.targetInput()
	in.Target.Server = nil // a sweep starts its own servers
	var conn *rig.Conn
	if c, on := u.tuneCluster(in.Target.Launch); on {
		if c.Rigs == "" {
			return nil, errors.New(launchview.NoClusterRigs)
		}
		// The cluster's launcher connects to each of its rigs itself.
		in.Target.Cluster = c
	} else if in.Target.Kind == target.Launch {
		name, c, err := u.tuneRig("")
		if err != nil {
			return nil, err
		}
		if name != rig.LocalName {
			in.Target.Rig = name
		}
		conn = c
	}
	// Leftovers stay: another RigBench's server is not this sweep's to
	// remove.
	r, err := u.svc.Sweep(in, session.Launching{KeepLeftovers: true, Rig: conn})
	if err != nil {
		return nil, err
	}
	return u.withTuneHistory(r), nil
}

// tuneCluster is the cluster a launch sweep's variants launch over: the
// one the Launch page starts while its cluster box is ticked (its
// ClusterInput for cfg, the same input Start launches); on is false on
// one rig, and on another target.
func (u *UI) tuneCluster(cfg vllm.LaunchConfig) (in session.ClusterInput, on bool) {
	if u.Target.Choice().Kind != target.Launch {
		return session.ClusterInput{}, false
	}
	return u.Launch.ClusterInput(cfg)
}

// tuneClusterLine names the cluster the variants launch over, for the
// Tune form ("" on one rig, or while the rigs do not read: the sweep's
// error says why).
func (u *UI) tuneClusterLine() string {
	in, on := u.tuneCluster(u.Launch.Form.Config())
	if !on {
		return ""
	}
	specs, err := cluster.ParseRigs(in.Rigs)
	if err != nil {
		return ""
	}
	names := make([]string, len(specs))
	for i, s := range specs {
		names[i] = rigLabel(s.Name)
	}
	workers := "worker"
	if len(names) > 2 {
		workers += "s"
	}
	link := ""
	if iface := strings.TrimSpace(in.Interface); iface != "" {
		link = "; link " + iface
	}
	return fmt.Sprintf("Over %d rigs (head %s, %s %s%s). Vary split (TP×PP, P = %d) or --tensor-parallel-size for other splits, interface for another link.",
		len(specs), names[0], workers, strings.Join(names[1:], ", "), link, len(specs))
}

// tuneSuggest offers, over the Launch page's cluster, the splits its rigs
// allow (T from 1 to the GPUs each rig gives as last read, P the rigs:
// "1x2,2x2" over two 2-GPU rigs, "1x3" over three 1-GPU rigs) and its
// interface; nil elsewhere, for the catalog's values.
func (u *UI) tuneSuggest(name string) []string {
	in, on := u.tuneCluster(u.Launch.Form.Config())
	if !on {
		return nil
	}
	switch name {
	case tune.SplitDimension:
		split, ok := u.Launch.ClusterSplit()
		if !ok {
			return nil
		}
		var out []string
		for tp := 1; tp <= split.TP; tp++ {
			out = append(out, fmt.Sprintf("%dx%d", tp, split.PP))
		}
		return out
	case tune.InterfaceDimension:
		if iface := strings.TrimSpace(in.Interface); iface != "" {
			return []string{iface}
		}
	}
	return nil
}

// resumeSweep rebuilds a kept sweep's runner (Services.Resweep), on the
// target and rig it started on: a resumed sweep runs where it started,
// one over a cluster over the rigs its spec names (Spec.Cluster), whatever
// the Launch page's cluster is now.
func (u *UI) resumeSweep(spec tune.Spec) (*tune.Runner, error) {
	if kind := u.Target.Choice().Kind; spec.Target != kind {
		where := map[session.Kind]string{tune.TargetDemo: "the demo", tune.TargetLaunch: "Launch vLLM in Docker"}[spec.Target]
		return nil, fmt.Errorf("sweep %s ran on %s: choose that target on the Launch page to resume it", spec.ID, where)
	}
	var conn *rig.Conn
	// A cluster's launcher connects to each of its rigs itself: the rig
	// picked for one rig has no say.
	if spec.Target == tune.TargetLaunch && spec.Cluster == nil {
		var err error
		if _, conn, err = u.tuneRig(orLocal(spec.Rig)); err != nil {
			return nil, fmt.Errorf("sweep %s: %w", spec.ID, err)
		}
	}
	r, err := u.svc.Resweep(spec, session.Launching{KeepLeftovers: true, Rig: conn})
	if err != nil {
		return nil, err
	}
	return u.withTuneHistory(r), nil
}

// withTuneHistory has r record every variant in the history, and find
// there the finished ones of a resumed sweep.
func (u *UI) withTuneHistory(r *tune.Runner) *tune.Runner {
	r.Hardware, r.SpecDir, r.DatasetDir = u.snapshot, u.tuneSpecDir(), datasetDir
	if r.Spec.OnRig() {
		r.Hardware = nil // each variant's session reads the rig's
	}
	src := u.History.Source()
	r.Observers = func(tune.Variant) []rundoc.Observer {
		if rec := src.Recorder(); rec != nil {
			return []rundoc.Observer{rec, rundoc.ObserverFunc(func(e rundoc.Event) {
				if e.Kind == rundoc.EventRunDone {
					fyne.Do(u.History.Reload)
				}
			})}
		}
		// A session-only history keeps finished runs.
		return []rundoc.Observer{rundoc.ObserverFunc(func(e rundoc.Event) {
			if e.Kind == rundoc.EventRunDone && e.Run != nil && len(e.Run.Cells) > 0 {
				_ = src.Add(context.Background(), e.Run)
				fyne.Do(u.History.Reload)
			}
		})}
	}
	r.History = u.tuneHistory
	return r
}

// tuneHistory is the history's RunsTagged (store.DB's, or the session
// list's when the history cannot be opened): how a sweep finds its
// finished variants (tune.History).
func (u *UI) tuneHistory(ctx context.Context, tag string) ([]*rundoc.Run, error) {
	return u.History.Source().RunsTagged(ctx, tag)
}

// exportSweep saves the sweep document as HTML, Markdown or JSON, chosen by
// the file name's extension (JSON re-imports with Open sweep…).
func (u *UI) exportSweep(d *tune.Doc) {
	export.SaveAs(u.win, "sweep-"+d.SweepID+".html", []string{".html", ".md", ".json"},
		func(path string) error { return writeSweep(path, d) })
}

// writeSweep writes d to path in the format its extension names.
func writeSweep(path string, d *tune.Doc) error {
	write := d.HTML
	switch strings.ToLower(filepath.Ext(path)) {
	case ".md", ".markdown":
		write = d.Markdown
	case ".json":
		write = d.Write
	}
	return safefile.Write(path, func(w io.Writer) error { return write(w) })
}

// importSweep reads an exported sweep document and shows it in the view.
func (u *UI) importSweep() {
	dialogkeys.ShowFileOpen(u.win, []string{".json"}, func(path string) {
		d, err := readSweep(path)
		if err != nil {
			dialogkeys.ShowError(err, u.win)
			return
		}
		u.Tune.Show(d)
	})
}

// readSweep reads a sweep document from a file.
func readSweep(path string) (*tune.Doc, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	d, err := tune.ReadDoc(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", filepath.Base(path), err)
	}
	return d, nil
}

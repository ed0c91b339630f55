//go:build !race

package ui

import (
	"context"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/docker/simimage"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/tune"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/target"
)

// Issue 40, item 3 in the app: with the Launch page's cluster box ticked
// over two loopback rigs, the Tune view's sweep launches every variant
// over that cluster, the same session.ClusterInput as `tune --launch
// --rigs … --interface … --node-ips … --serve-port …` builds; the form
// names the cluster in one line; the sweep runs over the stand-in cluster
// with its measured variants in History, each recorded over both rigs and
// the interface variant over its own link; and Resume rebuilds it over
// the spec's rigs, whatever rig is picked for one-rig launches.
func TestTuneSweepsOverTheLaunchCluster(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 8*time.Minute)
	defer cancel()
	u, l, s1, s2 := twoRigApp(ctx, t)
	port, err := docker.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	img, tag, _ := strings.Cut(simimage.ClusterTag, ":")
	base := vllm.LaunchConfig{Image: img, Tag: tag, Model: vllm.ModelTiny, Port: port,
		Extra: []string{"--profile", "tiny", "--speed", "10"}}
	base.Set("--max-num-seqs", "8")
	var line, summary string
	var cfg vllm.LaunchConfig
	var app *tune.Runner
	fyne.DoAndWait(func() {
		u.Target.Set(target.Choice{Kind: target.Launch})
		u.Launch.Form.SetConfig(base)
		u.Launch.SetClusterRigs([]string{"local", s1.URL(), s2.URL()})
		u.Launch.SetClusterMode(true)
		u.Launch.Cluster().Tick(s1.URL(), s2.URL())
		u.Launch.SetClusterLink("lo", "127.0.0.1,127.0.0.2")
		cfg = u.Launch.Form.Config()
		u.SelectTab(TabTune)
		u.Tune.SetMode(tune.OneAtATime)
		for _, d := range [][2]string{{"--max-num-seqs", "2"}, {tune.InterfaceDimension, "lo,eth0"}} {
			if err := u.Tune.AddDimension(d[0], d[1]); err != nil {
				t.Fatal(err)
			}
		}
		u.Tune.SetWorkload("0", "2", "10s")
		line, summary = u.Tune.ClusterLine(), u.Tune.Summary()
		app, err = u.newSweep(u.Tune.Input())
	})
	if err != nil {
		t.Fatalf("the sweep over the cluster: %v", err)
	}
	wantLine := "Over 2 rigs (head " + s1.URL() + ", worker " + s2.URL() + "; link lo). Vary split (TP×PP, P = 2) or --tensor-parallel-size for other splits, interface for another link."
	if line != wantLine {
		t.Errorf("the form's cluster line %q, want %q", line, wantLine)
	}
	if !strings.HasPrefix(summary, "3 variants, about ") || !strings.HasSuffix(summary, "each a new cluster of the Launch page's image and model.") {
		t.Errorf("summary %q, want the base and two variants, each a new cluster", summary)
	}
	// The CLI's sweep of the same rigs and form.
	cli, err := tune.SpecInput{Vary: []string{"max-num-seqs=2", "interface=lo,eth0"}, Mode: tune.OneAtATime,
		Contexts: "0", Concurrency: "2", Window: "10s",
		Target: session.TargetInput{Kind: session.Launch, Launch: cfg, Cluster: session.ClusterInput{
			Rigs: "head=" + s1.URL() + "," + s2.URL(), Interface: "lo", NodeIPs: "127.0.0.1,127.0.0.2", ServePort: port}}}.Spec()
	if err != nil {
		t.Fatalf("the CLI's sweep: %v", err)
	}
	if app.Spec.Cluster == nil || *app.Spec.Cluster != *cli.Cluster || app.Spec.Rig != "" {
		t.Fatalf("the app's sweep runs over %+v (rig %q), the CLI's over %+v", app.Spec.Cluster, app.Spec.Rig, *cli.Cluster)
	}
	if d, ok := app.Target.(tune.Docker); !ok || d.Cluster == nil || *d.Cluster != *cli.Cluster {
		t.Fatalf("the app's variants launch on %+v, want over %+v", app.Target, *cli.Cluster)
	}

	var done <-chan struct{}
	fyne.DoAndWait(func() { u.Tune.Start(); done = u.Tune.Done() })
	select {
	case <-done:
	case <-ctx.Done():
		fyne.DoAndWait(u.Tune.Stop)
		t.Fatalf("the sweep did not end: %v", ctx.Err())
	}
	var doc *tune.Doc
	var status, verdict string
	fyne.DoAndWait(func() { doc, status, verdict = u.Tune.Doc(), u.Tune.Status(), u.Tune.Verdict() })
	if doc == nil {
		t.Fatalf("no sweep shown; status %q", status)
	}
	measured := 0
	for _, v := range doc.Variants {
		if v.Status == tune.Measured {
			measured++
		} else {
			t.Errorf("variant %q: %s: %s", v.Label, v.Status, v.Error)
		}
	}
	if measured != 3 {
		t.Errorf("%d variants measured, want the base, max-num-seqs 2 and the one over eth0; verdict %q", measured, verdict)
	}
	runs, err := u.tuneHistory(ctx, tune.Tag(doc.SweepID))
	if err != nil {
		t.Fatal(err)
	}
	if len(runs) != 3 {
		t.Errorf("%d runs of the sweep in History, want 3", len(runs))
	}
	for _, r := range runs {
		if r.Launch == nil || r.Launch.Cluster == nil || len(r.Launch.Cluster.Rigs) != 2 || r.Launch.Cluster.PP != 2 {
			t.Errorf("run %s was not recorded over the two rigs: %+v", r.UUID, r.Launch)
			continue
		}
		want := "lo"
		if strings.HasSuffix(r.Name, "over eth0") {
			want = "eth0"
		}
		if r.Launch.Cluster.Interface != want {
			t.Errorf("run %q was recorded over %q, want %q", r.Name, r.Launch.Cluster.Interface, want)
		}
	}
	if n := countManaged(ctx, t, l); n != 0 {
		t.Errorf("%d containers left after the sweep", n)
	}

	// Resume: the kept spec's cluster, not the rig picked for one rig
	// (here one not reached) nor the Launch page's box.
	spec, err := tune.LoadSpec(u.tuneSpecDir(), doc.SweepID)
	if err != nil {
		t.Fatalf("the sweep's spec: %v", err)
	}
	u.mu.Lock()
	u.rig = rigState{name: "ssh://me@elsewhere"}
	u.mu.Unlock()
	var again *tune.Runner
	fyne.DoAndWait(func() {
		u.Launch.SetClusterMode(false)
		again, err = u.resumeSweep(spec)
	})
	if err != nil {
		t.Fatalf("resuming the sweep: %v", err)
	}
	if d, ok := again.Target.(tune.Docker); !ok || d.Cluster == nil || *d.Cluster != *cli.Cluster {
		t.Errorf("the resumed sweep launches on %+v, want over %+v", again.Target, *cli.Cluster)
	}
	fyne.DoAndWait(func() { u.Launch.SetClusterMode(true) })
	shootTab(t, u, TabTune, "tune-cluster")
}

// launchOverTwoRigs sets the Launch page to a launch of a small model
// over a cluster of this computer (the head) and ssh://me@10.0.0.2 at
// 10.0.0.1 and 10.0.0.2, linked over iface, and returns the form's
// launch; nothing is reached. Call it on Fyne's thread.
func launchOverTwoRigs(u *UI, iface string) vllm.LaunchConfig {
	u.Target.Set(target.Choice{Kind: target.Launch})
	cfg := u.Launch.Form.Config()
	cfg.Model = "Qwen/Qwen2.5-1.5B-Instruct"
	u.Launch.Form.SetConfig(cfg)
	u.Launch.SetClusterRigs([]string{"local", "ssh://me@10.0.0.2"})
	u.Launch.SetClusterMode(true)
	u.Launch.Cluster().Tick("local", "ssh://me@10.0.0.2")
	u.Launch.SetClusterLink(iface, "10.0.0.1,10.0.0.2")
	return u.Launch.Form.Config()
}

// A sweep the cluster cannot run is refused before it starts, with
// engine/tune's sentence under the form: a --pipeline-parallel-size other
// than the rigs' count.
func TestTuneRefusesASplitTheClusterCannotRun(t *testing.T) {
	t.Setenv(store.EnvDB, t.TempDir()+"/history.db")
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	u := NewWithServices(test.NewTempApp(t), w, Services{Session: session.Run, SimSpeed: 20,
		Detect: func(context.Context) hardware.Snapshot { return hardware.Snapshot{GPUs: []hardware.GPU{}} }})
	<-u.Ready()
	var summary, line string
	var started bool
	var cfg vllm.LaunchConfig
	fyne.DoAndWait(func() {
		cfg = launchOverTwoRigs(u, "")
		u.SelectTab(TabTune)
		if err := u.Tune.AddDimension("--pipeline-parallel-size", "2,3"); err != nil {
			t.Fatal(err)
		}
		u.Tune.SetWorkload("1K", "8", "10s")
		summary, line = u.Tune.Summary(), u.Tune.ClusterLine()
		u.Tune.Start()
		started = u.Tune.Running()
	})
	_, want := tune.SpecInput{Vary: []string{"pipeline-parallel-size=2,3"}, Contexts: "1K", Concurrency: "8", Window: "10s",
		Target: session.TargetInput{Kind: session.Launch, Launch: cfg,
			Cluster: session.ClusterInput{Rigs: "head=local,ssh://me@10.0.0.2", NodeIPs: "10.0.0.1,10.0.0.2", ServePort: cfg.Port}}}.Spec()
	if want == nil || !strings.Contains(want.Error(), "PP 3 is refused") {
		t.Fatalf("engine/tune's refusal: %v", want)
	}
	if w := want.Error(); !strings.HasSuffix(summary, w[1:]) {
		t.Errorf("under the form %q, want engine/tune's sentence %q", summary, w)
	}
	if started {
		t.Error("Start started the refused sweep")
	}
	if want := "Over 2 rigs (head this computer, worker ssh://me@10.0.0.2). Vary split (TP×PP, P = 2) or --tensor-parallel-size for other splits, interface for another link."; line != want {
		t.Errorf("cluster line %q, want %q", line, want)
	}
}

// Over a cluster the form suggests the splits the rigs allow (T from 1 to
// the GPUs each gives, P the rigs) and the cluster's interface, and Apply
// of a winner that ran over another interface puts both its flags and its
// link on the Launch page.
func TestTuneOverAClusterSuggestsSplitsAndAppliesTheLink(t *testing.T) {
	t.Setenv(store.EnvDB, t.TempDir()+"/history.db")
	w := test.NewWindow(nil)
	t.Cleanup(w.Close)
	two := hardware.Snapshot{GPUs: []hardware.GPU{{Index: 0, Name: "Mock GPU"}, {Index: 1, Name: "Mock GPU"}}}
	u := NewWithServices(test.NewTempApp(t), w, Services{Session: session.Run, SimSpeed: 20,
		Detect: func(context.Context) hardware.Snapshot { return two }})
	<-u.Ready()
	var splits, links, seqs []string
	var status string
	var in session.ClusterInput
	var cfg vllm.LaunchConfig
	fyne.DoAndWait(func() {
		launchOverTwoRigs(u, "enp1s0")
		u.Launch.SetRigGPUs("ssh://me@10.0.0.2", 2)
		splits, links, seqs = u.tuneSuggest(tune.SplitDimension), u.tuneSuggest(tune.InterfaceDimension), u.tuneSuggest("--max-num-seqs")
		best := 1
		u.Tune.Show(&tune.Doc{Schema: tune.SchemaV1, SweepID: "0a1b2c3d", Objective: "total-tok-s", Best: &best,
			Variants: []tune.DocVariant{{Label: tune.BaseLabel, Flags: []string{}, Interface: "enp1s0", Status: tune.Measured},
				{Label: "--max-num-seqs 8 over enp65s0f0", Flags: []string{"--max-num-seqs", "8"}, Interface: "enp65s0f0", Status: tune.Measured}}})
		u.Tune.Apply()
		status = u.Tune.Status()
		in, _ = u.Launch.ClusterInput(u.Launch.Form.Config())
		cfg = u.Launch.Form.Config()
	})
	if strings.Join(splits, ",") != "1x2,2x2" || strings.Join(links, ",") != "enp1s0" || seqs != nil {
		t.Errorf("suggested splits %q, interfaces %q, max-num-seqs %q; want 1x2,2x2 over two 2-GPU rigs, enp1s0, and the catalog's", splits, links, seqs)
	}
	if n, _ := cfg.Get("--max-num-seqs"); in.Interface != "enp65s0f0" || in.NodeIPs != "10.0.0.1,10.0.0.2" || n != "8" {
		t.Errorf("after Apply the Launch page has --max-num-seqs %q over %q (nodes %q); want 8 over enp65s0f0, the nodes kept", n, in.Interface, in.NodeIPs)
	}
	if !strings.Contains(status, "Applied --max-num-seqs 8") || !strings.Contains(status, "interface to enp65s0f0") {
		t.Errorf("status %q", status)
	}
}

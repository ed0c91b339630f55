package export

import (
	"image/png"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
)

// ReferenceRun is the reference RTX 3060 run kept in engine/report, dated
// (the CSV carries no date; a run document needs one). A test helper, also
// for the package's external tests.
func ReferenceRun(t *testing.T) *rundoc.Run {
	t.Helper()
	m, _ := filepath.Glob("../../engine/report/testdata/ref_*.csv")
	if len(m) == 0 {
		t.Fatal("no reference CSV in engine/report/testdata")
	}
	f, err := os.Open(m[0])
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	r, err := report.ReadReferenceCSVNamed(f, filepath.Base(m[0]))
	if err != nil {
		t.Fatal(err)
	}
	r.CreatedAt = time.Date(2025, 6, 1, 12, 0, 0, 0, time.UTC)
	return r
}

// collect returns the texts of labels and buttons under o, and the
// buttons by text.
func collect(o fyne.CanvasObject, texts *[]string, buttons map[string]*widget.Button) {
	switch x := o.(type) {
	case *widget.Label:
		*texts = append(*texts, x.Text)
	case *widget.Button:
		buttons[x.Text] = x
	case fyne.Widget:
		for _, c := range test.WidgetRenderer(x).Objects() {
			collect(c, texts, buttons)
		}
	case *fyne.Container:
		for _, c := range x.Objects {
			collect(c, texts, buttons)
		}
	}
}

// TestExportEverythingToAFolder (issue 41): one pass writes every format
// and every chart, PNGs at 2× (1600×960), then says the folder in full
// and offers Open folder, which opens it as a file:// URL.
func TestExportEverythingToAFolder(t *testing.T) {
	test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1000, 700))
	var opened *url.URL
	openURL = func(u *url.URL) error { opened = u; return nil }
	t.Cleanup(func() { openURL = func(u *url.URL) error { return fyne.CurrentApp().OpenURL(u) } })
	dir := t.TempDir()
	runs := []*rundoc.Run{ReferenceRun(t)}
	done := make(chan struct{})
	exportEverything(win, dir, runs, PNGScale, func() { close(done) })
	<-done

	for _, f := range everyFormat {
		if _, err := os.Stat(filepath.Join(dir, report.FileName(runs, f))); err != nil {
			t.Errorf("%s not written: %v", f.Label(), err)
		}
	}
	for _, k := range chartKinds(runs) {
		for _, f := range []report.Format{report.PNG, report.SVG} {
			if _, err := os.Stat(filepath.Join(dir, ChartFileName(runs, f, k))); err != nil {
				t.Errorf("%s chart %s not written: %v", f.Label(), k, err)
			}
		}
	}
	pf, err := os.Open(filepath.Join(dir, ChartFileName(runs, report.PNG, chartKinds(runs)[0])))
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := png.DecodeConfig(pf)
	pf.Close()
	if err != nil || cfg.Width != 1600 || cfg.Height != 960 || PNGSize(PNGScale) != "1600×960 pixels" {
		t.Errorf("PNG is %d×%d (%v), said %q; want 1600×960", cfg.Width, cfg.Height, err, PNGSize(PNGScale))
	}

	top := win.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog after the export")
	}
	var texts []string
	buttons := map[string]*widget.Button{}
	collect(top, &texts, buttons)
	all := strings.Join(texts, "\n")
	entries, _ := os.ReadDir(dir)
	if want := "in " + dir + "."; !strings.Contains(all, want) || !strings.Contains(all, strconv.Itoa(len(entries))+" files") {
		t.Errorf("dialog does not name the folder and %d files:\n%s", len(entries), all)
	}
	b := buttons[OpenFolderLabel]
	if b == nil {
		t.Fatalf("no %q button:\n%s", OpenFolderLabel, all)
	}
	test.Tap(b)
	if opened == nil || opened.Scheme != "file" || opened.Path != dir {
		t.Errorf("Open folder opened %v, want file://%s", opened, dir)
	}
}

// TestSavedNamesTheFolder (issue 41 minor 13): a single export's outcome
// names its file and the folder in full, with Open folder, not "Saved
// <file>" alone.
func TestSavedNamesTheFolder(t *testing.T) {
	test.NewTempApp(t)
	win := test.NewTempWindow(t, nil)
	win.Resize(fyne.NewSize(1000, 700))
	dir := t.TempDir()
	showSaved(win, dir, []string{filepath.Join(dir, "run.html")})
	var texts []string
	buttons := map[string]*widget.Button{}
	collect(win.Canvas().Overlays().Top(), &texts, buttons)
	if all, want := strings.Join(texts, "\n"), "Saved run.html in "+dir+"."; !strings.Contains(all, want) {
		t.Errorf("outcome %q lacks %q", all, want)
	}
	if buttons[OpenFolderLabel] == nil {
		t.Errorf("no %q button", OpenFolderLabel)
	}
}

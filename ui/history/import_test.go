package history_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/test"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/engine/report"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
	"github.com/rigbench/rigbench/ui/history"
)

// texts collects what labels and rich texts under o say.
func texts(o fyne.CanvasObject) string {
	var b strings.Builder
	var walk func(fyne.CanvasObject)
	walk = func(o fyne.CanvasObject) {
		switch x := o.(type) {
		case *widget.Label:
			b.WriteString(x.Text + "\n")
			return
		case *widget.RichText:
			b.WriteString(x.String() + "\n")
			return
		case *fyne.Container:
			for _, c := range x.Objects {
				walk(c)
			}
			return
		}
		if w, ok := o.(fyne.Widget); ok {
			for _, c := range test.WidgetRenderer(w).Objects() {
				walk(c)
			}
		}
	}
	walk(o)
	return b.String()
}

// settledView is a view whose imports and loads signal when their outcome
// is on screen.
func settledView(t *testing.T, w fyne.Window, src history.Source) (*history.View, chan struct{}) {
	t.Helper()
	v := history.New(w, src, "")
	ch := make(chan struct{}, 4)
	history.SetSettledForTest(v, func() { ch <- struct{}{} })
	w.SetContent(v.Content())
	return v, ch
}

// dialogText waits for the outcome and returns the dialog's text, closing
// the dialog.
func dialogText(t *testing.T, w fyne.Window, settled chan struct{}) string {
	t.Helper()
	select {
	case <-settled:
	case <-time.After(10 * time.Second):
		t.Fatal("the import or load did not finish")
	}
	top := w.Canvas().Overlays().Top()
	if top == nil {
		t.Fatal("no dialog appeared")
	}
	s := texts(top)
	w.Canvas().Overlays().Remove(top)
	return s
}

func exported(t *testing.T, r *rundoc.Run) []byte {
	t.Helper()
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// Import errors are sentences that start with words (the error dialog
// capitalises the first letter, which turned truncated.json into
// "Truncated.json"), say what is wrong in plain words, and a run already in
// the history is said to be there instead of nothing happening.
func TestImportMessages(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	w := test.NewWindow(nil)
	defer w.Close()
	v, settled := settledView(t, w, history.NewDB(db))
	w.Resize(fyne.NewSize(1000, 700))

	r.Schema = rundoc.Schema
	good := exported(t, r)
	dir := t.TempDir()
	file := func(name string, data []byte) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	other := strings.Replace(string(good), rundoc.Schema, "something.else/v9", 1)
	newer := strings.Replace(string(good), rundoc.Schema, "rigbench.run/v9", 1)
	another := *r
	another.UUID = "7f1c2d3e-0000-4000-8000-000000000024"
	fresh := exported(t, &another)
	for _, c := range []struct {
		path      string
		want, not []string
	}{
		{file("truncated.json", good[:len(good)/2]), []string{"The file truncated.json is cut short", "export the run again"}, []string{"EOF", "Truncated.json"}},
		{file("wrongschema.json", []byte(other)), []string{"The file wrongschema.json is not a RigBench run file"}, []string{"update RigBench", "Wrongschema.json"}},
		{file("newer.json", []byte(newer)), []string{"another version of RigBench", "update RigBench"}, nil},
		{file("notes.json", []byte("hello")), []string{"is not a RigBench run file"}, nil},
		{file("dup.json", good), []string{"already in the history", "dup.json"}, nil},
		// Issue 24 item 11: a report is named as one, not parsed as CSV;
		// an import that worked says so.
		{file("run.md", []byte("## RigBench run\n\n| a | b |\n")), []string{"Markdown report", "holds no run to import"}, []string{"could not be read as a measurements CSV"}},
		// Issue 41 item 5: the list sorts by each run's own date, so the
		// dialog says where the run is (selected there), not "at the top".
		{file("fresh.json", fresh), []string{"Run imported", "fresh.json", "in the history now", "selected in the list", "own date"}, []string{"top of the list"}},
	} {
		v.Import(c.path, nil)
		got := dialogText(t, w, settled)
		for _, want := range c.want {
			if !strings.Contains(got, want) {
				t.Errorf("%s: dialog %q lacks %q", filepath.Base(c.path), got, want)
			}
		}
		for _, not := range c.not {
			if strings.Contains(got, not) {
				t.Errorf("%s: dialog %q says %q", filepath.Base(c.path), got, not)
			}
		}
	}
	if sel := v.Selected(); len(sel) != 1 || sel[0].UUID != another.UUID {
		t.Errorf("after importing fresh.json the selection is %d run(s), want the imported one alone", len(sel))
	}
	if _, err := history.ImportFile(context.Background(), history.NewDB(db), file("again.json", good)); err != history.ErrAlreadyInHistory {
		t.Errorf("a second import returned %v, want ErrAlreadyInHistory", err)
	}
	// A file over the run size limit is said to be too large, not cut
	// short (the reader stops at the limit). Sparse, so the test stays small
	// on disk.
	huge := file("huge.json", []byte("{"))
	if err := os.Truncate(huge, rundoc.MaxRunJSONBytes+10); err != nil {
		t.Fatal(err)
	}
	if _, err := history.ImportFile(context.Background(), history.NewDB(db), huge); err == nil ||
		!strings.Contains(err.Error(), "larger than") || strings.Contains(err.Error(), "cut short") {
		t.Errorf("importing a file over the limit: %v", err)
	}
}

// A run file that starts with a UTF-8 byte-order mark imports (issue 12:
// it was "not a JSON document").
func TestReadFileAcceptsBOM(t *testing.T) {
	_, r := savedRun(t)
	var buf bytes.Buffer
	if err := rundoc.WriteRun(&buf, r); err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "bom.json")
	if err := os.WriteFile(p, append([]byte("\xef\xbb\xbf"), buf.Bytes()...), 0o600); err != nil {
		t.Fatal(err)
	}
	got, err := report.OpenRun(context.Background(), p)
	if err != nil || got.UUID != r.UUID {
		t.Fatalf("OpenRun: %v", err)
	}
}

// Compare refuses a run that has no cells, saying which, instead of
// charting it like a measured run.
func TestCompareRefusesRunWithoutCells(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	failed := &rundoc.Run{Schema: rundoc.Schema, UUID: "d5c84cbc-0000-4000-8000-000000000000", Status: rundoc.RunFailed,
		Origin: rundoc.OriginMeasured, CreatedAt: r.CreatedAt, Error: "connection refused"}
	if err := db.SaveRun(context.Background(), failed); err != nil {
		t.Fatal(err)
	}
	w := test.NewWindow(nil)
	defer w.Close()
	v, settled := settledView(t, w, history.NewDB(db))
	loaded := make(chan struct{})
	v.ReloadThen(func() { close(loaded) })
	wait(t, loaded, "the first load")
	compared := false
	v.OnCompare = func([]*rundoc.Run) { compared = true }
	v.Toggle(r.UUID)
	v.Toggle(failed.UUID)
	test.Tap(button(v.Content(), "Compare"))
	got := dialogText(t, w, settled)
	if !strings.Contains(got, "Run d5c84cbc has no measurements") {
		t.Errorf("dialog %q does not name the run without cells", got)
	}
	if compared {
		t.Error("the runs were compared anyway")
	}
}

// Columns are as wide as what they show (up to a cap), so a short window
// does not cut the engine's version.
func TestColumnsFitTheirText(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	r2 := *r
	r2.UUID, r2.Server.Engine, r2.Server.Version = "0b7c6a52-8f7e-4b53-9d4e-2f1b3c4d5e6f", "simulated", "0.32.0-sim"
	if err := db.SaveRun(context.Background(), &r2); err != nil {
		t.Fatal(err)
	}
	v, _ := loadedView(t, db, fyne.NewSize(900, 600))
	const engine = 7
	need := fyne.MeasureText("simulated 0.32.0-sim", theme.TextSize(), fyne.TextStyle{}).Width + 2*theme.InnerPadding()
	if got := v.ColumnWidth(engine); got < need {
		t.Errorf("Engine column is %.0f wide, its text needs %.0f", got, need)
	}
}

// Issue 41 minor 16: a run that names no card (an imported file without
// one) reads "not reported" in the GPU column, as unknowns read in every
// front end, not a blank; a run with a card names it.
func TestUnknownGPUSaysNotReported(t *testing.T) {
	test.NewTempApp(t)
	db, r := savedRun(t)
	bare := *r
	bare.UUID, bare.Name, bare.Hardware = "6f1e2d3c-4b5a-4968-8776-655443322110", "imported", nil
	if err := db.SaveRun(context.Background(), &bare); err != nil {
		t.Fatal(err)
	}
	v, _ := loadedView(t, db, fyne.NewSize(1280, 800))
	const gpu = 3
	got := map[string]string{}
	for row := range v.Shown() {
		got[v.Cell(row, 2)] = v.Cell(row, gpu)
	}
	if got["imported"] != hardware.NotReported || !strings.Contains(got["baseline"], "RTX 3060") {
		t.Errorf("GPU column by run name: %q", got)
	}
}

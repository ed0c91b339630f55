//go:build !race

package ui_test

import (
	"context"
	"strings"
	"testing"

	"fyne.io/fyne/v2"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/ui"
	"github.com/rigbench/rigbench/ui/history"
)

// fits reports every tab, and the window's whole content, whose minimum
// size is over size: Fyne widens a window to its content's minimum, so
// one such view pushed the window past the screen.
func fits(t *testing.T, u *ui.UI, w fyne.Window, size fyne.Size, state string) {
	t.Helper()
	fyne.DoAndWait(func() {
		w.Resize(size)
		for _, it := range u.Tabs().Items {
			if m := it.Content.MinSize(); m.Width > size.Width || m.Height > size.Height-60 {
				t.Errorf("%s, %.0f×%.0f: the %s tab needs %.0f×%.0f", state, size.Width, size.Height, it.Text, m.Width, m.Height)
			}
		}
		if m := w.Content().MinSize(); m.Width > size.Width || m.Height > size.Height {
			t.Errorf("%s: the window's content needs %.0f×%.0f, more than %.0f×%.0f", state, m.Width, m.Height, size.Width, size.Height)
		}
		if s := w.Canvas().Size(); s.Width > size.Width || s.Height > size.Height {
			t.Errorf("%s: the window grew to %.0f×%.0f from %.0f×%.0f", state, s.Width, s.Height, size.Width, size.Height)
		}
	})
}

// Issue 24 item 1: no view's minimum size exceeds a 1280×800 or 900×600
// window, before and after a run with a long name and many flags is shown
// in Results, imported, listed in History and compared.
func TestNoViewWidensTheWindow(t *testing.T) {
	u, w := newUI(t)
	sizes := []fyne.Size{fyne.NewSize(1280, 800), fyne.NewSize(900, 600)}
	for _, s := range sizes {
		fits(t, u, w, s, "at start")
	}
	imported, err := history.ImportFile(context.Background(), u.History.Source(), referenceRun(t))
	if err != nil {
		t.Fatalf("import: %v", err)
	}
	reloaded(t, u)
	long := *imported
	long.UUID = "long"
	// A name as long as the limit allows, without spaces to wrap at.
	long.Name = strings.Repeat("n", rundoc.MaxNameLen)
	long.Launch = &rundoc.Launch{Model: "agents/a1-4b-fp8", Args: []string{"--max-model-len", "262144", "--gpu-memory-utilization", "0.95",
		"--kv-cache-dtype", "int4_per_token_head", "--attention-backend", "TRITON_ATTN", "--max-num-seqs", "128",
		"--limit-mm-per-prompt", `{"image":0,"video":0,"audio":0}`, "--language-model-only", "--trust-remote-code", "--enable-chunked-prefill"}}
	if err := u.History.Source().Add(context.Background(), &long); err != nil {
		t.Fatal(err)
	}
	reloaded(t, u)
	for _, tab := range []string{ui.TabResults, ui.TabHistory, ui.TabCompare, ui.TabTune, ui.TabRun} {
		fyne.DoAndWait(func() {
			u.Results.SetRun(&long, nil)
			u.Compare.SetRuns([]*rundoc.Run{imported, &long}, nil)
			u.SelectTab(tab)
			for _, it := range u.Results.Tabs().Items {
				u.Results.Tabs().Select(it)
			}
		})
		for _, s := range sizes {
			fits(t, u, w, s, "showing "+tab+" with a long-named run")
		}
	}
}

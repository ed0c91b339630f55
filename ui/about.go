package ui

import (
	"net/url"
	"os"
	"path/filepath"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/container"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/internal/version"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// AboutFacts are Help ▸ About's lines: the build, where the history and
// the preferences are kept (what a user backs up, moves or deletes), and
// the docs. A history that could not be opened says why instead of a path.
type AboutFacts struct {
	Version     string
	History     string
	Preferences string
	Links       []AboutLink
}

// AboutLink is one of About's links to the docs.
type AboutLink struct {
	Label string
	URL   string
}

// About is what Help ▸ About says.
func (u *UI) About() AboutFacts {
	f := AboutFacts{Version: version.Text()}
	switch p, err := store.ResolvePath("", os.Getenv); {
	case u.unsavedWhy != "":
		f.History = "not saved: " + u.unsavedWhy
	case err != nil:
		f.History = "unknown: " + userText(err)
	default:
		f.History = p
	}
	f.Preferences = "kept by Fyne for " + u.app.UniqueID()
	if root := u.app.Storage().RootURI(); root != nil && root.Scheme() == "file" {
		f.Preferences = filepath.Join(root.Path(), "preferences.json")
	}
	docs := version.Repository + "/blob/main/docs/"
	f.Links = []AboutLink{
		{"How RigBench measures (METHOD.md)", docs + "METHOD.md"},
		{"The app, view by view (app.md)", docs + "app.md"},
		{"Tune, rigs, reports and the rest (docs)", version.Repository + "/tree/main/docs"},
	}
	return f
}

// showAbout is Help ▸ About RigBench.
func (u *UI) showAbout() {
	f := u.About()
	line := func(label, text string) fyne.CanvasObject {
		l := widget.NewLabel(text)
		l.Wrapping = fyne.TextWrapBreak // paths have no spaces to wrap at
		l.Selectable = true             // to copy a path
		return container.NewBorder(nil, nil, widget.NewLabelWithStyle(label, fyne.TextAlignLeading, fyne.TextStyle{Bold: true}), nil, l)
	}
	box := container.NewVBox(
		line("Version", f.Version),
		line("History", f.History),
		widget.NewLabel("Set "+store.EnvDB+" to keep the history in another file."),
		line("Preferences", f.Preferences),
	)
	for _, l := range f.Links {
		if u, err := url.Parse(l.URL); err == nil {
			box.Add(widget.NewHyperlink(l.Label, u))
		}
	}
	d := dialog.NewCustom("About RigBench", "Close", box, u.win)
	d.Resize(fyne.NewSize(min(640, u.win.Canvas().Size().Width-40), 0))
	d.Show()
	dialogkeys.Bind(u.win, d, d.Hide)
}

package export

// Saving one file: a path to type, prefilled in a folder that can be
// written, with the file dialog one click away (issue 41: the file dialog
// alone offered no way to type a path, opened in the last folder even when
// it was read-only, and showed four rows at 1280×800).

import (
	"errors"
	"os"
	"path/filepath"
	"strings"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/dialog"
	"fyne.io/fyne/v2/storage"
	"fyne.io/fyne/v2/theme"
	"fyne.io/fyne/v2/widget"

	"github.com/rigbench/rigbench/ui/dialogkeys"
)

// prefLastDir is the preference that keeps the folder of the last export.
const prefLastDir = "export.last_dir"

// SaveAsTitle is the title of the dialog that asks where to save.
const SaveAsTitle = "Save as"

// SaveAs asks for a file, offering name in the folder of the last export
// (or, when that cannot be written, the home folder or the system's
// temporary one): the path can be typed, or picked with Browse… in the
// file dialog, which then offers only exts when given. It runs write on
// the chosen path off the UI goroutine and shows its error or what it
// saved where on win. Every single-file export of the app goes through it,
// so they all behave and word it alike.
//
// The chosen file is not touched before it passes the Guard of the app's
// history (see notruncate.go): an export can never replace the history,
// its -wal/-shm files or a sweep spec.
func SaveAs(win fyne.Window, name string, exts []string, write func(path string) error) {
	if !keepFilesUntilWritten() {
		dialogkeys.ShowError(errors.New("this system's file dialog would empty the chosen file before RigBench could check it; export from the CLI instead"), win)
		return
	}
	dir := writableDir(lastDir())
	path := dialogkeys.NewField()
	path.SetText(filepath.Join(dir, name))
	var form *dialog.FormDialog
	browse := widget.NewButtonWithIcon("Browse…", theme.FolderOpenIcon(), func() {
		form.Hide()
		browseSave(win, path.Text, exts, write)
	})
	items := []*widget.FormItem{
		widget.NewFormItem("File", path),
		widget.NewFormItem("", browse),
	}
	path.Validator = func(s string) error {
		_, err := typedPath(s)
		return err
	}
	form = dialogkeys.Form(SaveAsTitle, "Save", "Cancel", items, func(ok bool) {
		if !ok {
			return
		}
		p, err := typedPath(path.Text)
		if err != nil {
			dialogkeys.ShowError(err, win)
			return
		}
		confirmOverwrite(win, p, func() {
			if saveTo(win, p, write) {
				rememberDir(filepath.Dir(p))
			}
		})
	}, win, path)
	size := win.Canvas().Size()
	form.Resize(fyne.NewSize(min(640, size.Width-40), 220))
	form.Show()
	dialogkeys.Bind(win, form, form.Submit)
	win.Canvas().Focus(path)
}

// typedPath reads a typed file path: "~/" is the home folder, a relative
// path is from the home folder (the app has no working folder a user
// knows), and the folder must exist.
func typedPath(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", errors.New("type the file's path, or pick it with Browse…")
	}
	home, _ := os.UserHomeDir()
	switch {
	case s == "~" || strings.HasPrefix(s, "~/"):
		s = filepath.Join(home, strings.TrimPrefix(s, "~"))
	case !filepath.IsAbs(s) && home != "":
		s = filepath.Join(home, s)
	}
	s = filepath.Clean(s)
	if st, err := os.Stat(s); err == nil && st.IsDir() {
		return "", errors.New(s + " is a folder: add the file's name")
	}
	if st, err := os.Stat(filepath.Dir(s)); err != nil || !st.IsDir() {
		return "", errors.New("the folder " + filepath.Dir(s) + " does not exist")
	}
	return s, nil
}

// confirmOverwrite runs save at once for a new file, and after a question
// for one that exists, whose default answer keeps it.
func confirmOverwrite(win fyne.Window, path string, save func()) {
	if _, err := os.Stat(path); err != nil {
		save()
		return
	}
	// Cancel is the default: Enter must not replace a file.
	dialogkeys.Destructive("Replace the file?", filepath.Base(path)+" exists in "+filepath.Dir(path)+". Replace it?", "Replace",
		func(ok bool) {
			if ok {
				save()
			}
		}, win)
}

// browseSave is the file dialog, opened in the typed path's folder when it
// exists (else the writable one) with its name, at most of the window's
// size, so it lists more than four files at 1280×800.
func browseSave(win fyne.Window, typed string, exts []string, write func(path string) error) {
	fd := dialog.NewFileSave(func(w fyne.URIWriteCloser, err error) {
		if err != nil || w == nil {
			return
		}
		dir := filepath.Dir(w.URI().Path())
		if saveChosen(win, w, write) {
			rememberDir(dir)
		}
	}, win)
	dir := writableDir(filepath.Dir(typed))
	if l, err := storage.ListerForURI(storage.NewFileURI(dir)); err == nil {
		fd.SetLocation(l)
	}
	fd.SetFileName(filepath.Base(typed))
	if len(exts) > 0 {
		fd.SetFilter(storage.NewExtensionFileFilter(exts))
	}
	size := win.Canvas().Size()
	fd.Resize(fyne.NewSize(size.Width*0.9, size.Height*0.9))
	fd.Show()
}

// writableDir is dir when a file can be created there, else the home
// folder, else the system's temporary folder.
func writableDir(dir string) string {
	home, _ := os.UserHomeDir()
	for _, d := range []string{dir, home, os.TempDir()} {
		if d != "" && canCreateIn(d) {
			return d
		}
	}
	return os.TempDir()
}

// canCreateIn reports whether a file can be created in dir, by creating
// and removing one (permission bits do not tell for root, ACLs or a
// read-only mount).
func canCreateIn(dir string) bool {
	f, err := os.CreateTemp(dir, ".rigbench-write-check-*")
	if err != nil {
		return false
	}
	name := f.Name()
	f.Close()
	os.Remove(name)
	return true
}

// lastDir is the folder of the last export, "" before the first.
func lastDir() string {
	if a := fyne.CurrentApp(); a != nil {
		return a.Preferences().String(prefLastDir)
	}
	return ""
}

// rememberDir keeps dir as the next export's folder.
func rememberDir(dir string) {
	if a := fyne.CurrentApp(); a != nil {
		a.Preferences().SetString(prefLastDir, dir)
	}
}

package export

import (
	"sync"

	"fyne.io/fyne/v2"
	"fyne.io/fyne/v2/storage/repository"
)

// Fyne's save dialog hands its callback a writer it has already opened
// with os.Create, so the chosen file is truncated before the app can say
// no: picking the history itself as an export target would empty it. The
// app therefore wraps Fyne's "file" repository once (keepFilesUntilWritten)
// so that a writer opens its file at the first byte written, not before.
// SaveAs closes the dialog's writer unwritten and writes through the
// Guard-checked safefile path instead, so the refused file is never
// touched.

// fileRepository is every capability of Fyne's own "file" repository; the
// dialog lists, walks and checks files through them.
type fileRepository interface {
	repository.AppendableRepository
	repository.ListableRepository
	repository.HierarchicalRepository
	repository.CopyableRepository
	repository.MovableRepository
	repository.DeleteAllRepository
}

// noTruncate is Fyne's file repository with a Writer that opens late.
type noTruncate struct{ fileRepository }

// Writer returns a writer that creates (and truncates) the file at its
// first Write; closed unwritten, it leaves the file as it was.
func (r noTruncate) Writer(u fyne.URI) (fyne.URIWriteCloser, error) {
	return &lateWriter{repo: r.fileRepository, uri: u}, nil
}

// lateWriter opens its file at the first Write.
type lateWriter struct {
	repo fileRepository
	uri  fyne.URI
	mu   sync.Mutex
	w    fyne.URIWriteCloser
}

func (l *lateWriter) URI() fyne.URI { return l.uri }

func (l *lateWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		w, err := l.repo.Writer(l.uri)
		if err != nil {
			return 0, err
		}
		l.w = w
	}
	return l.w.Write(p)
}

func (l *lateWriter) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.w == nil {
		return nil
	}
	return l.w.Close()
}

// keepFilesUntilWritten wraps the registered "file" repository in
// noTruncate, once per registration (the driver registers its own when the
// app starts; Fyne's test driver does too). It reports whether the
// repository now in place opens late; false only for a repository without
// the file capabilities, which SaveAs then refuses to use.
func keepFilesUntilWritten() bool {
	cur, err := repository.ForScheme("file")
	if err != nil {
		return false
	}
	switch r := cur.(type) {
	case noTruncate:
		return true
	case fileRepository:
		repository.Register("file", noTruncate{r})
		return true
	}
	return false
}

//go:build unix

package tune_test

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/tune"
)

// A spec file that is not a regular file (a FIFO nobody writes to) is
// refused at once instead of blocking the resume, and Ctrl-C with it.
func TestLoadSpecRefusesAFIFO(t *testing.T) {
	dir := t.TempDir()
	const id = "0123abcd"
	if err := syscall.Mkfifo(filepath.Join(dir, id+".json"), 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	done := make(chan error, 1)
	go func() { _, err := tune.LoadSpec(dir, id); done <- err }()
	select {
	case err := <-done:
		if err == nil || !strings.Contains(err.Error(), "not a regular file") {
			t.Errorf("LoadSpec of a FIFO: %v, want a refusal", err)
		}
	case <-time.After(20 * time.Second): // a bound for a broken build only
		t.Fatal("LoadSpec blocked on a FIFO")
	}
}

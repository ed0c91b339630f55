package homedir_test

import (
	"os"
	"runtime"
	"testing"

	"github.com/rigbench/rigbench/internal/homedir"
)

// Lookup reads the variable os.UserHomeDir reads on this platform, so a
// seam pointed at a temporary home and the real environment agree.
func TestLookupAgreesWithUserHomeDir(t *testing.T) {
	dir := t.TempDir()
	t.Setenv(homedir.Env(runtime.GOOS), dir)
	got, err := os.UserHomeDir()
	if err != nil || got != dir {
		t.Fatalf("os.UserHomeDir() = %q, %v; want %q (from %s)", got, err, dir, homedir.Env(runtime.GOOS))
	}
	if h := homedir.Lookup(os.Getenv); h != dir {
		t.Errorf("Lookup = %q, want %q", h, dir)
	}
	if homedir.Env("windows") != "USERPROFILE" || homedir.Env("darwin") != "HOME" || homedir.Env("linux") != "HOME" {
		t.Errorf("Env: windows %s, darwin %s, linux %s", homedir.Env("windows"), homedir.Env("darwin"), homedir.Env("linux"))
	}
}

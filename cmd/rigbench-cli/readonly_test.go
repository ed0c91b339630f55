//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestReadOnlyHistoryIsListed: a history RigBench may not write (another
// user's, a read-only folder) could not even be listed (issue 36 item 10).
// It is listed and shown; a command that writes says it is read-only. The
// CLI runs as another user (nobody) when the test runs as root, whom file
// modes do not stop.
func TestReadOnlyHistoryIsListed(t *testing.T) {
	dir := t.TempDir()
	os.Chmod(filepath.Dir(dir), 0o755) // t.TempDir makes its folders 0700: let the other user reach the binary
	os.Chmod(dir, 0o755)
	hist := filepath.Join(dir, "ro", "h.db")
	mustCLI(t, "run", "--demo", "--sim-speed", "100", "--contexts", "0", "--concurrency", "1", "--prefill", "none",
		"--duration", "5s", "--max-output", "16", "--no-telemetry", "--db", hist)
	bin := filepath.Join(dir, "rigbench-cli")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("building the CLI: %v\n%s", err, out)
	}
	if err := os.Chmod(hist, 0o444); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(filepath.Dir(hist), 0o555); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(filepath.Dir(hist), 0o755) })
	cli := func(args ...string) (string, error) {
		cmd := exec.Command(bin, args...)
		cmd.Env = append(os.Environ(), "HOME="+dir)
		if os.Geteuid() == 0 {
			cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 65534, Gid: 65534}}
		}
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := cli("runs", "--db", hist)
	if err != nil || !strings.Contains(out, "a1-4b-fp8") {
		t.Fatalf("runs on a read-only history: %v\n%s", err, out)
	}
	id := strings.Fields(strings.Split(out, "\n")[1])[0]
	if out, err := cli("show", id, "--db", hist); err != nil || !strings.Contains(out, "Decode") {
		t.Errorf("show on a read-only history: %v\n%s", err, out)
	}
	if out, err := cli("delete", "--yes", id, "--db", hist); err == nil || !strings.Contains(out, "is read-only") {
		t.Errorf("delete on a read-only history: %v\n%s", err, out)
	}
}

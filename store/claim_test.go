package store

import (
	"context"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// TestClaimRefusesASecondResume: two `run --resume ID` at once both
// measured the run's missing cells (issue 36 item 2). A claim on a run a
// live process is measuring is refused; a dead process's claim is taken
// over; a released claim that recorded nothing leaves the run as it was.
func TestClaimRefusesASecondResume(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "h.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	run := fullRun(t, 2)
	run.Status = rundoc.RunInterrupted
	if err := db.SaveRun(ctx, run); err != nil {
		t.Fatal(err)
	}
	status := func() (string, int) {
		var s string
		var pid int
		if err := db.sql.QueryRowContext(ctx, `SELECT status, recorder_pid FROM runs WHERE uuid = ?`, run.UUID).Scan(&s, &pid); err != nil {
			t.Fatal(err)
		}
		return s, pid
	}
	release, err := db.Recorder().Claim(ctx, run.UUID)
	if err != nil {
		t.Fatalf("first claim: %v", err)
	}
	if s, pid := status(); s != "running" || pid != currentPID {
		t.Errorf("claimed run is %s by %d", s, pid)
	}
	release()
	if s, _ := status(); s != string(rundoc.RunInterrupted) {
		t.Errorf("released claim left the run %s, want interrupted as before", s)
	}

	// Another live process measures it.
	if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET status = 'running', recorder_pid = ? WHERE uuid = ?`, otherLiveProcess(t), run.UUID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Recorder().Claim(ctx, run.UUID); err == nil || !strings.Contains(err.Error(), "being measured by another RigBench") {
		t.Errorf("claim of a run another process measures: %v, want a refusal", err)
	}
	// A process that died leaves its claim to be taken over.
	if _, err := db.sql.ExecContext(ctx, `UPDATE runs SET recorder_pid = 2147483646 WHERE uuid = ?`, run.UUID); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Recorder().Claim(ctx, run.UUID); err != nil {
		t.Errorf("claim after a dead recorder: %v", err)
	}
}

// holdEnv asks a copy of the test binary to wait for its standard input to
// close and exit (TestMain): a live process other than this one, on every
// platform (Windows has no pid 1 that always exists).
const holdEnv = "RIGBENCH_STORE_TEST_HOLD"

func holdUntilStdinCloses() {
	io.Copy(io.Discard, os.Stdin)
	os.Exit(0)
}

// otherLiveProcess starts a copy of the test binary that lives until the
// test ends, and returns its pid.
func otherLiveProcess(t *testing.T) int {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(os.Environ(), holdEnv+"=1")
	in, err := cmd.StdinPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { in.Close(); cmd.Wait() })
	return cmd.Process.Pid
}

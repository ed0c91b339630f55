package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// grepSecrets fails the test for every file under dir, and every text,
// that holds one of the secrets.
func grepSecrets(t *testing.T, dir string, texts map[string]string, secrets ...string) {
	t.Helper()
	filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return nil
		}
		b, _ := os.ReadFile(path)
		texts[path] = string(b)
		return nil
	})
	for name, text := range texts {
		for _, s := range secrets {
			if strings.Contains(text, s) {
				t.Errorf("%s holds the secret %s", name, s)
			}
		}
	}
}

// vLLM and the simulator read --api_key as --api-key: a secret spelled with
// underscores is hidden like any other, in the history, the run's JSON,
// every export, the sweep's files and the console.
func TestUnderscoreSecretsAreHidden(t *testing.T) {
	dir := t.TempDir()
	db := filepath.Join(dir, "history.db")
	secrets := []string{"sk-SECRETKEY", "hf_SECRETTOKEN"}
	texts := map[string]string{}
	code, stdout, stderr := runCLI(t, "run", "--demo", "--sim-speed", "50", "--contexts", "0", "--concurrency", "1", "--prefill", "none",
		"--duration", "5s", "--max-output", "32", "--no-telemetry", "--db", db, "--json", filepath.Join(dir, "run.json"),
		"--", "--api_key", "sk-SECRETKEY")
	if code != 0 {
		t.Fatalf("run: exit %d\n%s\n%s", code, stdout, stderr)
	}
	texts["run stdout"], texts["run stderr"] = stdout, stderr
	id := firstUUID(t, db)
	for _, f := range []string{"json", "md", "html", "csv"} {
		mustCLI(t, "export", id, "--db", db, "--format", f, "-o", filepath.Join(dir, "export."+f))
	}
	texts["show"] = mustCLI(t, "show", id, "--db", db)
	code, stdout, stderr = runCLI(t, "tune", "--demo", "--sim-speed", "50", "--vary", "kv-cache-dtype=auto,fp8", "--contexts", "1K",
		"--concurrency", "1", "--duration", "5s", "--no-telemetry", "--db", db, "--json", filepath.Join(dir, "sweep.json"),
		"--", "--api_key=sk-SECRETKEY")
	if code != 0 {
		t.Fatalf("tune: exit %d\n%s\n%s", code, stdout, stderr)
	}
	texts["tune stdout"], texts["tune stderr"] = stdout, stderr
	code, stdout, stderr = runCLI(t, "launch", "--model", "m/m", "--print-docker", "--", "--api_key", "sk-SECRETKEY", "--hf_token", "hf_SECRETTOKEN")
	if code != 0 {
		t.Fatalf("launch --print-docker: exit %d\n%s\n%s", code, stdout, stderr)
	}
	texts["launch stdout"], texts["launch stderr"] = stdout, stderr
	grepSecrets(t, dir, texts, secrets...)
}

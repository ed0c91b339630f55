// Package scripts_test checks the build scripts a user meets first.
package scripts_test

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// module writes a throw-away module whose main package imports one
// package of its own (a dependency gobuild.sh must count as compiled)
// and returns its folder.
func module(t *testing.T, mainBody string) string {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{
		"go.mod":     "module example.com/m\n\ngo 1.22\n",
		"sub/sub.go": "package sub\n\n// N is used by main.\nconst N = 1\n",
		"main.go":    "package main\n\nimport \"example.com/m/sub\"\n\nfunc main() {\n" + mainBody + "\n}\n",
	}
	for name, text := range files {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

func gobuild(t *testing.T, dir string) (string, error) {
	t.Helper()
	script, err := filepath.Abs("gobuild.sh")
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("bash", script, filepath.Join(dir, "bin", "m"), ".")
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod", "GOTOOLCHAIN=local")
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// Issue 41, major 2: a build says what it is doing while it does, each
// package as it compiles with the time so far, and how it ended.
func TestGoBuildSaysWhatItDoes(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash on this machine: scripts/gobuild.sh is a bash script")
	}
	dir := module(t, "\t_ = sub.N")
	out, err := gobuild(t, dir)
	if err != nil {
		t.Fatalf("gobuild.sh: %v\n%s", err, out)
	}
	for _, want := range []*regexp.Regexp{
		regexp.MustCompile(`(?m)^>> building .*/bin/m from \. \(\d+ packages\)$`),
		regexp.MustCompile(`(?m)^   \[ *\d+ compiled, \dm\d\ds\] example\.com/m/sub$`),
		regexp.MustCompile(`(?m)^>> built .*/bin/m in \dm\d\ds \(\d+ packages? compiled, the rest from Go's build cache\)$`),
	} {
		if !want.MatchString(out) {
			t.Errorf("output lacks %s:\n%s", want, out)
		}
	}
	if _, err := os.Stat(filepath.Join(dir, "bin", "m")); err != nil {
		t.Errorf("no binary: %v", err)
	}
	if strings.Contains(out, "cgo") {
		t.Errorf("a build without Fyne or go-nvml speaks of cgo:\n%s", out)
	}
}

// A compiler's error reaches the user as the compiler wrote it, and the
// script fails with it.
func TestGoBuildPassesErrorsOn(t *testing.T) {
	if _, err := exec.LookPath("bash"); err != nil {
		t.Skip("no bash on this machine: scripts/gobuild.sh is a bash script")
	}
	out, err := gobuild(t, module(t, "\tx := sub.N"))
	if err == nil {
		t.Fatalf("a build with an error succeeded:\n%s", out)
	}
	if !strings.Contains(out, "declared and not used: x") || strings.Contains(out, ">> built") {
		t.Errorf("output:\n%s", out)
	}
}

package history_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/ui/history"
)

// ReadFile reads files from anywhere: whatever a .json holds, it must not
// panic, and every error starts with words ("the file …"), never the file
// name, which the error dialog would capitalise.
func FuzzReadFile(f *testing.F) {
	for _, s := range []string{"", "{", `{"schema":"rigbench.run/v1"}`, `{"schema":"rigbench.run/v1","uuid":"x"`,
		`{"schema":"something.else/v9"}`, `{"schema":"rigbench.run/v2"}`, `[1,2]`, `{"schema":null}`, "\xff"} {
		f.Add([]byte(s))
	}
	dir := f.TempDir()
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(dir, "run.json")
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		r, err := history.ReadFile(p)
		if err == nil {
			if r == nil {
				t.Fatal("no run and no error")
			}
			return
		}
		if !strings.HasPrefix(err.Error(), "the file run.json ") {
			t.Errorf("error %q does not start with \"the file run.json\"", err)
		}
	})
}

package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// TestCompileCacheBesideTheHistoryInUse: with --db elsewhere, run --launch
// still made the compile-cache folder beside the default history (issue
// 36 item 10). The default folder is beside the history in use: --db's,
// else RIGBENCH_DB's, else the default one.
func TestCompileCacheBesideTheHistoryInUse(t *testing.T) {
	home := t.TempDir()
	for _, tc := range []struct {
		history, envDB, want string
	}{
		{"", "", filepath.Join(home, ".local", "share", "rigbench", "compile-cache")},
		{"/data/bench/h.db", "", "/data/bench/compile-cache"},
		{"", "/srv/rb/history.db", "/srv/rb/compile-cache"},
	} {
		vars := map[string]string{"HOME": home, "RIGBENCH_DB": tc.envDB}
		var errb bytes.Buffer
		got, err := compileCacheFolder(&env{stderr: &errb, getenv: func(k string) string { return vars[k] }}, "", "", tc.history)
		if err != nil || got != tc.want || strings.TrimSpace(errb.String()) != "" {
			t.Errorf("history %q, RIGBENCH_DB %q: %q, %v (%s); want %q", tc.history, tc.envDB, got, err, errb.String(), tc.want)
		}
	}
}

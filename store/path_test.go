package store

import (
	"path/filepath"
	"testing"
)

// The compile cache folder sits beside the default history, in the data
// folder the XDG rule picks.
func TestCompileCacheDir(t *testing.T) {
	for _, tc := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"HOME": "/home/me"}, "/home/me/.local/share/rigbench/compile-cache"},
		{map[string]string{"HOME": "/home/me", "XDG_DATA_HOME": "/data"}, "/data/rigbench/compile-cache"},
		{map[string]string{"HOME": "/home/me", "XDG_DATA_HOME": "rel"}, "/home/me/.local/share/rigbench/compile-cache"},
	} {
		getenv := func(k string) string { return tc.env[k] }
		got, err := CompileCacheDir(getenv)
		if err != nil || got != tc.want {
			t.Errorf("%v: CompileCacheDir = %q, %v; want %q", tc.env, got, err, tc.want)
		}
		db, _ := ResolvePath("", getenv)
		if filepath.Dir(db) != filepath.Dir(got) {
			t.Errorf("%v: the compile cache %s is not beside the history %s", tc.env, got, db)
		}
	}
}

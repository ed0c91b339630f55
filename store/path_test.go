package store

import (
	"errors"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/rigbench/rigbench/internal/homedir"
)

// Each platform's data folder rule, checked on every platform: Windows's
// local application data, the XDG rule elsewhere.
func TestDataDirByPlatform(t *testing.T) {
	for _, tc := range []struct {
		goos string
		env  map[string]string
		home string
		want string
	}{
		{"windows", map[string]string{"LOCALAPPDATA": `C:\Users\me\AppData\Local`}, `C:\Users\me`, `C:\Users\me\AppData\Local\RigBench`},
		{"windows", nil, `C:\Users\me`, `C:\Users\me\AppData\Local\RigBench`},
		{"windows", map[string]string{"XDG_DATA_HOME": "/data"}, `C:\Users\me`, `C:\Users\me\AppData\Local\RigBench`},
		{"linux", nil, "/home/me", "/home/me/.local/share/rigbench"},
		{"linux", map[string]string{"XDG_DATA_HOME": "/data"}, "/home/me", "/data/rigbench"},
		{"darwin", map[string]string{"XDG_DATA_HOME": "rel"}, "/Users/me", "/Users/me/.local/share/rigbench"},
	} {
		if tc.goos != "windows" && runtime.GOOS == "windows" {
			continue // a Unix path is not absolute on Windows
		}
		got, err := dataDir(tc.goos, func(k string) string { return tc.env[k] }, func() (string, error) { return tc.home, nil })
		if err != nil || got != tc.want {
			t.Errorf("%s %v: dataDir = %q, %v; want %q", tc.goos, tc.env, got, err, tc.want)
		}
	}
	for _, goos := range []string{"windows", "linux"} {
		if _, err := dataDir(goos, func(string) string { return "" }, func() (string, error) { return "", errors.New("none") }); err == nil {
			t.Errorf("%s without a home: no error", goos)
		}
	}
}

// The compile cache folder sits beside the default history, in the data
// folder this platform's rule picks.
func TestCompileCacheDir(t *testing.T) {
	home := filepath.Join(t.TempDir(), "me")
	cases := []struct {
		env  map[string]string
		want string
	}{{map[string]string{homedir.Env(runtime.GOOS): home}, filepath.Join(home, ".local", "share", "rigbench", "compile-cache")}}
	if runtime.GOOS == "windows" {
		cases = []struct {
			env  map[string]string
			want string
		}{
			{map[string]string{"USERPROFILE": home}, filepath.Join(home, "AppData", "Local", "RigBench", "compile-cache")},
			{map[string]string{"USERPROFILE": home, "LOCALAPPDATA": filepath.Join(home, "L")}, filepath.Join(home, "L", "RigBench", "compile-cache")},
		}
	} else {
		cases = append(cases,
			struct {
				env  map[string]string
				want string
			}{map[string]string{"HOME": home, "XDG_DATA_HOME": "/data"}, "/data/rigbench/compile-cache"},
			struct {
				env  map[string]string
				want string
			}{map[string]string{"HOME": home, "XDG_DATA_HOME": "rel"}, filepath.Join(home, ".local", "share", "rigbench", "compile-cache")})
	}
	for _, tc := range cases {
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
	if _, err := CompileCacheDir(func(string) string { return "" }); err == nil {
		t.Error("CompileCacheDir without a home: no error, want one rather than the real user's folder")
	}
}

package store

import (
	"errors"
	"os"
	"path/filepath"
	"runtime"
	"strings"

	"github.com/rigbench/rigbench/internal/homedir"
)

// EnvDB names the environment variable that overrides the history's path,
// as the CLI's --db flag does.
const EnvDB = "RIGBENCH_DB"

// defaultPath is where the history lives when nothing overrides it:
// history.db in RigBench's data folder (dataDir).
func defaultPath(getenv func(string) string, home func() (string, error)) (string, error) {
	d, err := dataDir(runtime.GOOS, getenv, home)
	if err != nil {
		return "", hinted("cannot find your home folder to keep the history in", "; ", HintSetPath)
	}
	return filepath.Join(d, "history.db"), nil
}

// dataDir is RigBench's data folder on the platform goos, the one place
// that decides it (the history, the sweep specs beside it, vLLM's compile
// cache):
//
//   - Windows: %LOCALAPPDATA%\RigBench, or <home>\AppData\Local\RigBench
//     when LOCALAPPDATA is unset. Local, not roaming (%APPDATA%): a
//     history and a compile cache are large and belong to this machine's
//     card. The app's preferences are Fyne's, which keeps them under
//     %APPDATA%.
//   - elsewhere (Linux, macOS): $XDG_DATA_HOME/rigbench, or
//     ~/.local/share/rigbench when XDG_DATA_HOME is unset or not absolute
//     (the XDG Base Directory rule: relative values are ignored). macOS
//     keeps this rule rather than ~/Library so a Mac driving rigs finds
//     its history where the same CLI on Linux does.
//
// goos is a parameter so each platform's rule is tested on every platform.
func dataDir(goos string, getenv func(string) string, home func() (string, error)) (string, error) {
	if goos == "windows" {
		if d := getenv("LOCALAPPDATA"); d != "" {
			return join(goos, d, "RigBench"), nil
		}
		h, err := home()
		if err != nil || h == "" {
			return "", errors.New("cannot find your home folder")
		}
		return join(goos, h, "AppData", "Local", "RigBench"), nil
	}
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "rigbench"), nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", errors.New("cannot find your home folder")
	}
	return filepath.Join(h, ".local", "share", "rigbench"), nil
}

// join is filepath.Join for the platform goos: on the platform itself it is
// filepath.Join; a Windows path worked out elsewhere (a test) is joined
// with backslashes, so each rule reads the same on every machine.
func join(goos string, elem ...string) string {
	if goos == runtime.GOOS || goos != "windows" {
		return filepath.Join(elem...)
	}
	return strings.Join(elem, `\`)
}

// envHome reads the home folder from getenv only (see CompileCacheDir).
func envHome(getenv func(string) string) func() (string, error) {
	return func() (string, error) {
		if h := homedir.Lookup(getenv); h != "" {
			return h, nil
		}
		return "", errors.New(homedir.Env(runtime.GOOS) + " is not set")
	}
}

// CompileCacheDir is the default host folder RigBench mounts as vLLM's
// cache root, where torch.compile keeps its graphs between starts: the
// compile-cache folder beside the default history, in RigBench's data
// folder. It is one folder for every launch: vLLM keys what it keeps by
// the configuration, so launches of other models and flags share it
// without clashing. getenv is the caller's environment seam.
//
// The home folder comes from getenv only (HOME, or USERPROFILE on
// Windows; os.UserHomeDir reads the same variable, but from the real
// environment): a caller whose seam has no home, such as a test, gets an
// error and no folder, rather than the real user's.
func CompileCacheDir(getenv func(string) string) (string, error) {
	d, err := dataDir(runtime.GOOS, getenv, envHome(getenv))
	if err != nil {
		return "", errors.New("cannot find your home folder to keep vLLM's compile cache in: give a folder")
	}
	return filepath.Join(d, "compile-cache"), nil
}

// ResolvePath picks the history file: the --db flag value when given, else
// $RIGBENCH_DB, else defaultPath. getenv is the caller's environment seam
// (os.Getenv in production), so commands can be tested in-process.
func ResolvePath(flag string, getenv func(string) string) (string, error) {
	if flag != "" {
		return flag, nil
	}
	if v := getenv(EnvDB); v != "" {
		return v, nil
	}
	return defaultPath(getenv, func() (string, error) {
		if h, err := envHome(getenv)(); err == nil {
			return h, nil
		}
		return os.UserHomeDir()
	})
}

// Files lists the files SQLite keeps for the history at path: the database
// itself and its -wal, -shm and -journal companions. An output written onto
// any of them destroys the history, so the front ends refuse such a path
// (internal/safefile's Guard).
func Files(path string) []string {
	return []string{path, path + "-wal", path + "-shm", path + "-journal"}
}

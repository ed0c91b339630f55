package store

import (
	"errors"
	"os"
	"path/filepath"
)

// EnvDB names the environment variable that overrides the history's path,
// as the CLI's --db flag does.
const EnvDB = "RIGBENCH_DB"

// defaultPath is where the history lives when nothing overrides it:
// $XDG_DATA_HOME/rigbench/history.db, or ~/.local/share/rigbench/history.db
// when XDG_DATA_HOME is unset or not absolute (the XDG Base Directory rule:
// relative values are ignored).
func defaultPath(getenv func(string) string, home func() (string, error)) (string, error) {
	d, err := dataDir(getenv, home)
	if err != nil {
		return "", hinted("cannot find your home folder to keep the history in", "; ", HintSetPath)
	}
	return filepath.Join(d, "history.db"), nil
}

// dataDir is RigBench's data folder: $XDG_DATA_HOME/rigbench, or
// ~/.local/share/rigbench when XDG_DATA_HOME is unset or not absolute.
func dataDir(getenv func(string) string, home func() (string, error)) (string, error) {
	if d := getenv("XDG_DATA_HOME"); d != "" && filepath.IsAbs(d) {
		return filepath.Join(d, "rigbench"), nil
	}
	h, err := home()
	if err != nil || h == "" {
		return "", errors.New("cannot find your home folder")
	}
	return filepath.Join(h, ".local", "share", "rigbench"), nil
}

// CompileCacheDir is the default host folder RigBench mounts as vLLM's
// cache root, where torch.compile keeps its graphs between starts: the
// compile-cache folder beside the default history, in RigBench's data
// folder. It is one folder for every launch: vLLM keys what it keeps by
// the configuration, so launches of other models and flags share it
// without clashing. getenv is the caller's environment seam.
//
// The home folder comes from getenv's HOME only (os.UserHomeDir reads the
// same variable on Unix, but from the real environment): a caller whose
// seam has no HOME, such as a test, gets an error and no folder, rather
// than the real user's.
func CompileCacheDir(getenv func(string) string) (string, error) {
	d, err := dataDir(getenv, func() (string, error) {
		if h := getenv("HOME"); h != "" {
			return h, nil
		}
		return "", errors.New("HOME is not set")
	})
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
		if h := getenv("HOME"); h != "" {
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

// Package homedir says which environment variable names the user's home
// folder on each platform, so every front end and package that reads the
// home through an environment seam (tests point it at a temporary folder)
// reads the same one os.UserHomeDir would.
package homedir

import "runtime"

// Env is the variable that names the home folder on goos: USERPROFILE on
// Windows, HOME elsewhere. On Windows HOME is usually unset, and where Git
// Bash sets it, it may hold an MSYS path (/c/Users/me) that Windows calls
// cannot open.
func Env(goos string) string {
	if goos == "windows" {
		return "USERPROFILE"
	}
	return "HOME"
}

// Lookup is the home folder as getenv sees it on this platform, "" when
// its variable is unset.
func Lookup(getenv func(string) string) string {
	return getenv(Env(runtime.GOOS))
}

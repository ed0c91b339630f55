// Package version says which RigBench is running, from what the Go
// toolchain stamps into every binary (the module version, or the commit it
// was built from), so Help ▸ About and a bug report name the same build
// without a version number kept by hand.
package version

import (
	"runtime/debug"
	"strings"
)

// Repository is the project's home, the module path's: Help ▸ About links
// its docs there.
const Repository = "https://github.com/rigbench/rigbench"

// Text is the running build: the module version when it was built from a
// tagged release, else "development build" with the commit (12 digits),
// its date and "modified" when the tree had changes (a build without
// version control stamps has none of these), then the Go toolchain;
// "unknown" when the binary carries no build information.
func Text() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown"
	}
	return fromBuildInfo(bi)
}

func fromBuildInfo(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev, when string
	modified := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when, _, _ = strings.Cut(s.Value, "T")
		case "vcs.modified":
			modified = s.Value == "true"
		}
	}
	out := "development build"
	if rev != "" {
		out += " " + rev[:min(12, len(rev))]
	}
	if when != "" {
		out += " of " + when
	}
	if modified {
		out += ", modified"
	}
	if bi.GoVersion != "" {
		out += " (" + bi.GoVersion + ")"
	}
	return out
}

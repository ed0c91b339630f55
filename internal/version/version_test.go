package version

import (
	"runtime/debug"
	"testing"
)

func TestFromBuildInfo(t *testing.T) {
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"release", debug.BuildInfo{Main: debug.Module{Version: "v1.2.0"}}, "v1.2.0"},
		{"commit", debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Version: "(devel)"}, Settings: []debug.BuildSetting{
			{Key: "vcs.revision", Value: "5202e73d0c1a2b3c4d5e6f"}, {Key: "vcs.time", Value: "2026-12-04T13:00:00Z"}, {Key: "vcs.modified", Value: "true"}}},
			"development build 5202e73d0c1a of 2026-12-04, modified (go1.26.8)"},
		{"nothing stamped", debug.BuildInfo{}, "development build"},
	} {
		if got := fromBuildInfo(&tc.bi); got != tc.want {
			t.Errorf("%s: %q, want %q", tc.name, got, tc.want)
		}
	}
	if Text() == "" {
		t.Error("Text is empty")
	}
}

package vllm

import (
	"strconv"
	"strings"
)

// Version is a vLLM release number (0.11.0 → {0, 11, 0}).
type Version [3]int

// ParseVersion reads a release number from a version string or image tag:
// "0.6.3", "v0.10.1.1", "v0.11.0-cu129", "0.6.3.post1". ok is false for tags
// that name no release ("latest", "nightly", a digest).
func ParseVersion(s string) (v Version, ok bool) {
	s = strings.TrimPrefix(strings.TrimSpace(s), "v")
	for i := 0; i < 3; i++ {
		n := 0
		for n < len(s) && s[n] >= '0' && s[n] <= '9' {
			n++
		}
		if n == 0 || n > 6 {
			return Version{}, i == 3
		}
		v[i], _ = strconv.Atoi(s[:n])
		s = s[n:]
		if i < 2 {
			if !strings.HasPrefix(s, ".") {
				return Version{}, false
			}
			s = s[1:]
		}
	}
	return v, true
}

// Less reports whether v is an older release than w.
func (v Version) Less(w Version) bool {
	for i := range v {
		if v[i] != w[i] {
			return v[i] < w[i]
		}
	}
	return false
}

// String renders the version as "0.11.0".
func (v Version) String() string {
	return strconv.Itoa(v[0]) + "." + strconv.Itoa(v[1]) + "." + strconv.Itoa(v[2])
}

// ImageVersion is the vLLM release the image tag names, if it names one.
func (c LaunchConfig) ImageVersion() (Version, bool) {
	return ParseVersion(c.Tag)
}

// before reports whether the image is known to be older than release s.
func before(img Version, known bool, s string) bool {
	if !known || s == "" {
		return false
	}
	v, ok := ParseVersion(s)
	return ok && img.Less(v)
}

package ui

import (
	"bytes"
	"fmt"
	"io"
	"strings"
	"sync"
)

// NoDisplay returns the sentence RigBench prints instead of starting when
// there is no display to open a window on ("" when there may be one). On
// Linux and the BSDs a window needs DISPLAY (X11) or WAYLAND_DISPLAY;
// without either, GLFW fails and Fyne panics with a stack trace that says
// nothing a user can act on.
func NoDisplay(getenv func(string) string, goos string) string {
	switch goos {
	case "linux", "freebsd", "openbsd", "netbsd", "dragonfly":
	default:
		return ""
	}
	if getenv("DISPLAY") != "" || getenv("WAYLAND_DISPLAY") != "" {
		return ""
	}
	return "RigBench needs a display to open its window, and none is set (DISPLAY and WAYLAND_DISPLAY are empty): run it from a desktop session, set DISPLAY, or use rigbench-cli in a terminal."
}

// DisplayFailed turns the panic GLFW raises when the display cannot be
// opened into one sentence; ok is false for any other panic, which must
// go on.
func DisplayFailed(recovered any, getenv func(string) string) (msg string, ok bool) {
	s := fmt.Sprint(recovered)
	if !strings.Contains(s, "GLFW") && !strings.Contains(s, "glfw") {
		return "", false
	}
	where := "the display"
	if d := getenv("DISPLAY"); d != "" {
		where = "the display " + d
	}
	return "RigBench could not open a window on " + where + " (" + s + "): check that the display is running and that you may use it, or use rigbench-cli in a terminal.", true
}

// quietReasons are Fyne log messages a user can do nothing about: the file
// dialog's missing XDG folders (such as VIDEOS) and notifications on a
// system without a session D-Bus; and GLFW's display errors, which
// DisplayFailed says in a sentence of its own.
var quietReasons = []string{
	"Getting favorite locations",
	"Unable to connect to session D-Bus",
	"PlatformError: X11: The DISPLAY environment variable is missing",
	"PlatformError: X11: Failed to open display",
	"Error parsing user locale",
}

// QuietLog wraps the standard logger's writer, dropping the messages of
// quietReasons with the "Cause:" and "At:" lines fyne.LogError writes
// after them. Everything else passes through.
func QuietLog(w io.Writer) io.Writer { return &quietLog{w: w} }

type quietLog struct {
	mu       sync.Mutex
	w        io.Writer
	dropping bool
}

// Write gets one log line per call (the log package writes whole lines).
func (q *quietLog) Write(p []byte) (int, error) {
	q.mu.Lock()
	defer q.mu.Unlock()
	line := string(p)
	if q.dropping && (bytes.Contains(p, []byte("  Cause:")) || bytes.Contains(p, []byte("  At:"))) {
		return len(p), nil
	}
	q.dropping = false
	for _, r := range quietReasons {
		if strings.Contains(line, r) {
			q.dropping = true
			return len(p), nil
		}
	}
	return q.w.Write(p)
}

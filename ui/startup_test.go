package ui_test

import (
	"bytes"
	"log"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/ui"
)

// Issue 16 item 8: without a display the app says so in one sentence.
func TestNoDisplayIsOneSentence(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	msg := ui.NoDisplay(env(nil), "linux")
	if !strings.Contains(msg, "DISPLAY") || !strings.Contains(msg, "rigbench-cli") || strings.Count(msg, ". ") > 0 {
		t.Errorf("no-display message %q, want one sentence naming DISPLAY and rigbench-cli", msg)
	}
	for _, e := range []map[string]string{{"DISPLAY": ":0"}, {"WAYLAND_DISPLAY": "wayland-0"}} {
		if msg := ui.NoDisplay(env(e), "linux"); msg != "" {
			t.Errorf("with %v: %q, want nothing", e, msg)
		}
	}
	if msg := ui.NoDisplay(env(nil), "windows"); msg != "" {
		t.Errorf("on Windows: %q, want nothing (no DISPLAY there)", msg)
	}
	msg, ok := ui.DisplayFailed("NotInitialized: The GLFW library is not initialized", env(map[string]string{"DISPLAY": ":99"}))
	if !ok || !strings.Contains(msg, ":99") || strings.Contains(msg, "\n") {
		t.Errorf("GLFW panic became %q (%v)", msg, ok)
	}
	if _, ok := ui.DisplayFailed("index out of range", env(nil)); ok {
		t.Error("another panic was taken for a display failure")
	}
}

// Fyne's messages a user cannot act on are dropped with their Cause and At
// lines; others pass.
func TestQuietLogDropsNoise(t *testing.T) {
	var buf bytes.Buffer
	l := log.New(ui.QuietLog(&buf), "", 0)
	l.Println("Fyne error: ", "Getting favorite locations")
	l.Println("  Cause:", "this system does not define a VIDEOS folder")
	l.Printf("  At: %s:%d", "dialog/file.go", 396)
	l.Println("Fyne error: ", "Unable to connect to session D-Bus")
	l.Println("  Cause:", "dbus: DBUS_SESSION_BUS_ADDRESS not set")
	l.Println("Fyne error: ", "Failed to save preferences")
	l.Println("  Cause:", "disk full")
	got := buf.String()
	if strings.Contains(got, "VIDEOS") || strings.Contains(got, "D-Bus") || strings.Contains(got, "favorite") {
		t.Errorf("noise passed: %q", got)
	}
	if !strings.Contains(got, "Failed to save preferences") || !strings.Contains(got, "disk full") {
		t.Errorf("a real error was dropped: %q", got)
	}
}

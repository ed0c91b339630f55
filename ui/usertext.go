package ui

import (
	"errors"
	"strings"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/wording"
)

// cliWording maps advice the store writes for both the CLI and the app to
// what an app user can do: the app has no flags, so a history elsewhere is
// chosen with the environment variable alone.
var cliWording = strings.NewReplacer(
	"set "+store.EnvDB+" (or the CLI's --db) to a file path", "set the "+store.EnvDB+" environment variable to a file path and restart RigBench",
	"set "+store.EnvDB+" (or the CLI's --db) to another file", "set the "+store.EnvDB+" environment variable to another file and restart RigBench",
)

// userText is err as one sentence for the app's user.
func userText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, client.ErrUnauthorized) {
		return "The server rejected the API key: enter the right one in the API key field on the Launch tab."
	}
	return wording.Sentence(cliWording.Replace(err.Error()))
}

// appError is an error reworded for the app that still unwraps to the
// original, so callers can test it with errors.Is.
type appError struct{ err error }

func (e appError) Error() string { return userText(e.err) }
func (e appError) Unwrap() error { return e.err }

// forApp rewords err for the app (nil stays nil).
func forApp(err error) error {
	if err == nil {
		return nil
	}
	return appError{err}
}

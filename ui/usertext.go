package ui

import (
	"errors"
	"strings"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/store"
)

// cliWording maps advice written for rigbench-cli, which the engine and
// the store share with the app, to what an app user can do: the app has
// no flags, so a history elsewhere is chosen with the environment
// variable, and the API key is typed into the target's field.
var cliWording = strings.NewReplacer(
	"pass --db FILE or set "+store.EnvDB, "set the "+store.EnvDB+" environment variable to a file path and restart RigBench",
	"pass --db with another file", "set the "+store.EnvDB+" environment variable to another file and restart RigBench",
	"pass the right one with --api-key", "enter the right one in the API key field on the Launch tab",
)

// userText is err as one sentence for the app's user.
func userText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, client.ErrUnauthorized) {
		return "The server rejected the API key: enter the right one in the API key field on the Launch tab."
	}
	return sentence(cliWording.Replace(err.Error()))
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

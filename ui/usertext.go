package ui

import (
	"errors"
	"fmt"

	"github.com/rigbench/rigbench/engine/client"
	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/store"
	"github.com/rigbench/rigbench/ui/wording"
)

// appAdvice words a history error's hint for the app, which has no
// flags: a history elsewhere is chosen with the environment variable and a
// restart.
func appAdvice(h store.Hint) string {
	switch h {
	case store.HintOtherFile:
		return "set the " + store.EnvDB + " environment variable to another file and restart RigBench"
	case store.HintSetPath:
		return "set the " + store.EnvDB + " environment variable to a file path and restart RigBench"
	case store.HintListRuns:
		return "the History tab lists the runs"
	}
	return ""
}

// userText is err as one sentence for the app's user: the remedies of the
// engine's and the store's typed errors are worded with the app's own
// fields and buttons.
func userText(err error) string {
	if err == nil {
		return ""
	}
	if errors.Is(err, client.ErrUnauthorized) {
		return "The server rejected the API key: enter the right one in the API key field on the Launch tab."
	}
	var nothing *session.NothingRunsError
	if errors.As(err, &nothing) {
		return planText(nothing)
	}
	return wording.Sentence(store.Advice(err, appAdvice))
}

// planText words "nothing in this plan can run" with the Run view's plan
// fields.
func planText(e *session.NothingRunsError) string {
	var s string
	switch e.Why {
	case session.NoPrefillFits:
		s = fmt.Sprintf("no prefill context fits this server (max_model_len %s, KV cache %s): set Prefill contexts to %d tokens or less",
			rundoc.TokensText(e.MaxModelLen), rundoc.TokensText(e.KVCapacity), e.Suggest)
	case session.OutputFillsModel:
		s = fmt.Sprintf("a max output of %d leaves no room in max_model_len %d: set Max output to %d or less",
			e.MaxOutput, e.MaxModelLen, e.Suggest)
	case session.NoRoomForOutput:
		s = fmt.Sprintf("no context leaves room for a max output of %d in max_model_len %d: set Max output to %d or less, or choose smaller Contexts",
			e.MaxOutput, e.MaxModelLen, e.Suggest)
	case session.ConcurrencyTooHigh:
		s = fmt.Sprintf("the KV cache holds %s, too few for %d requests of %d tokens (context + max output) at once: add lower Concurrency levels such as 1",
			rundoc.TokensText(e.KVCapacity), e.Concurrency, e.Context+e.MaxOutput)
	case session.RequestTooBig:
		s = fmt.Sprintf("the KV cache holds %s, too few for one request of context %s plus a max output of %d: set Max output to %d or less",
			rundoc.TokensText(e.KVCapacity), rundoc.ContextLabel(e.Context), e.MaxOutput, e.Suggest)
	default:
		s = fmt.Sprintf("the KV cache holds %s, too few for any context of the plan: choose smaller Contexts", rundoc.TokensText(e.KVCapacity))
	}
	return "No cell of this plan can run on this server. " + wording.Sentence(s)
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

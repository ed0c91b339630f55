package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/internal/termtext"
)

// progress prints one line per cell; on a terminal the line of the cell
// in progress is rewritten in place with its live tok/s.
type progress struct {
	w    io.Writer
	tty  bool
	open bool // a rewritable line is on screen
}

func newProgress(w io.Writer) *progress {
	p := &progress{w: w}
	if f, ok := w.(*os.File); ok {
		if fi, err := f.Stat(); err == nil && fi.Mode()&os.ModeCharDevice != 0 {
			p.tty = true
		}
	}
	return p
}

var _ rundoc.Observer = (*progress)(nil)

// Observe implements bench.Observer.
func (p *progress) Observe(e rundoc.Event) {
	switch e.Kind {
	case rundoc.EventRunStarted:
		s := e.Run.Server
		kv := rundoc.TokensText(s.KVCapacityTokens)
		if s.KVCapacityTokens > 0 {
			kv += " (" + s.KVCapacitySource + ")"
		}
		sim := ""
		if e.Run.Simulated {
			sim = " [simulated]"
		}
		kind := ""
		if s.Personality != "" {
			kind = " (" + termtext.Safe(s.Personality) + ")"
		}
		fmt.Fprintf(p.w, "server: %s%s, %s %s%s, max_model_len %s, KV capacity %s\n", termtext.Safe(s.Model), sim,
			termtext.Safe(s.Engine), termtext.Safe(s.Version), kind, rundoc.TokensText(s.MaxModelLen), termtext.Safe(kv))
		if len(s.NotReported) > 0 {
			fmt.Fprintf(p.w, "not reported by this server: %s\n", termtext.Safe(strings.Join(s.NotReported, ", ")))
		}
		cells := "cells"
		if e.Total == 1 {
			cells = "cell"
		}
		fmt.Fprintf(p.w, "plan: %d %s, estimated %s\n", e.Total, cells, rundoc.ShortDuration(e.ETA))
	case rundoc.EventRunProgress:
		// Before the first cell (the server's first requests): what the
		// run waits for, on a line of its own.
		fmt.Fprintln(p.w, e.Message)
	case rundoc.EventCellStarted:
		p.line(e, "")
	case rundoc.EventCellProgress:
		if e.Message != "" {
			p.line(e, e.Message)
		} else if e.LiveTokS > 0 {
			p.line(e, fmt.Sprintf("%.1f tok/s so far", e.LiveTokS))
		}
	case rundoc.EventCellDone:
		c := e.Cell
		var detail string
		switch {
		case c.Phase == rundoc.PhasePrefill && c.Status.Ran():
			detail = fmt.Sprintf("%s: %.0f prompt tok/s, TTFT %.0f ms", c.Status, c.PromptTokS, c.TTFTMs)
			if c.ServerPromptTokS > 0 {
				detail += fmt.Sprintf(" (the server's own: %.0f prompt tok/s)", c.ServerPromptTokS)
			}
		case c.Phase == rundoc.PhaseBurst && c.Status.Ran():
			detail = burstDetail(c)
		case c.Status.Ran():
			ttft := fmt.Sprintf("%.0f ms", c.TTFTMs)
			if c.TTFTMs == 0 && c.NeverStarted > 0 {
				ttft = "> window"
			}
			detail = fmt.Sprintf("%s: %.1f tok/s, TTFT %s", c.Status, c.TotalTokS, ttft)
			// The cross-check beside RigBench's own figure (METHOD.md).
			if c.CheckedOutputTokens > 0 || c.ServerOutputTokens > 0 {
				detail += fmt.Sprintf("; server counted %d generated tokens, RigBench %d", c.ServerOutputTokens, c.CheckedOutputTokens)
			}
			if c.ServerDecodeTokS > 0 {
				detail += fmt.Sprintf("; server decode %.1f tok/s per request", c.ServerDecodeTokS)
			}
			if c.RetriedRequests > 0 {
				detail += fmt.Sprintf("; %d retried", c.RetriedRequests)
			}
		default:
			detail = string(c.Status)
			if c.Status == rundoc.StatusFailed || c.Status == rundoc.StatusOverCapacity || c.Status == rundoc.StatusExceedsLength ||
				c.Status == rundoc.StatusUnreliable {
				detail += ": " + c.Reason
			}
		}
		p.line(e, detail)
		p.end()
	}
}

func (p *progress) line(e rundoc.Event, detail string) {
	c := e.Cell
	if c == nil {
		return
	}
	name := fmt.Sprintf("prefill %s", rundoc.ContextLabel(c.Context))
	if c.Phase != rundoc.PhasePrefill {
		name = c.Label()
	}
	s := fmt.Sprintf("[%d/%d] %-18s elapsed %s  ETA %s", e.Index+1, e.Total, name, rundoc.ShortDuration(e.Elapsed), rundoc.ShortDuration(e.ETA))
	if detail != "" {
		// The detail holds server text (failure reasons, messages): a
		// progress line must not carry a terminal's control sequences.
		s += "  " + termtext.Safe(detail)
	}
	if p.tty {
		fmt.Fprintf(p.w, "\r\033[K%s", s)
		p.open = true
		return
	}
	if e.Kind == rundoc.EventCellDone || e.Message != "" {
		fmt.Fprintln(p.w, s)
	}
}

func (p *progress) end() {
	if p.tty && p.open {
		fmt.Fprintln(p.w)
		p.open = false
	}
}

func (p *progress) finish() { p.end() }

// padRight pads s to n runes.
func padRight(s string, n int) string {
	if l := len([]rune(s)); l < n {
		return s + strings.Repeat(" ", n-l)
	}
	return s
}

package bench

import (
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Prompt lengths as the server counted them (issue 23 item 6). RigBench
// sizes its prompts with the server's /tokenize, or with a ratio
// calibrated from usage; a server whose /tokenize miscounts (3 × words +
// 17, or random counts) would otherwise give cells labelled 512 whose
// requests carried 165 tokens. Every request that reports
// usage.prompt_tokens is compared with the cell's context: the chat
// template and a BOS add a few tokens, so up to Tolerance is agreement;
// beyond it the cell is noted, and beyond promptFailShare it measured
// another context than it says and is Failed.

// promptFailShare is the relative difference of a request's prompt length
// from the cell's context beyond which the cell is Failed.
const promptFailShare = 0.10

// checkPromptLength compares the prompt lengths the server reported (0:
// not reported) with the cell's context and notes or fails the cell. A
// context-0 cell (a minimal prompt of a few tokens) has no length to keep.
func checkPromptLength(c *rundoc.Cell, reported []int) {
	if c.Context <= 0 || c.Status == rundoc.StatusCancelled {
		return
	}
	worst := 0
	for _, n := range reported {
		if n > 0 && (worst == 0 || abs(n-c.Context) > abs(worst-c.Context)) {
			worst = n
		}
	}
	off := abs(worst - c.Context)
	if worst == 0 || off <= Tolerance(c.Context) {
		return
	}
	msg := fmt.Sprintf("the server counted a prompt of %d tokens for the %s-token context (%+.1f%%): its /tokenize and its usage disagree",
		worst, rundoc.ContextLabel(c.Context), 100*float64(worst-c.Context)/float64(c.Context))
	if float64(off) > promptFailShare*float64(c.Context) && c.Status.Ran() {
		c.Status, c.Reason = rundoc.StatusFailed, msg+", so this cell measured another context than it says"
		return
	}
	addNote(c, msg)
}

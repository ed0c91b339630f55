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
// not reported) with the cell's prompt length (its context, or
// rundoc.ContextZeroTokens at context 0) and notes or fails the cell.
func checkPromptLength(c *rundoc.Cell, reported []int) {
	if c.Context < 0 || c.Status == rundoc.StatusCancelled {
		return
	}
	want := rundoc.PromptTokens(c.Context)
	worst := 0
	for _, n := range reported {
		if n > 0 && (worst == 0 || abs(n-want) > abs(worst-want)) {
			worst = n
		}
	}
	off := abs(worst - want)
	if worst == 0 || off <= Tolerance(want) {
		return
	}
	what := fmt.Sprintf("the %s-token context", rundoc.ContextLabel(c.Context))
	if c.Context == 0 {
		what = fmt.Sprintf("context 0 (%d tokens)", want)
	}
	msg := fmt.Sprintf("the server counted a prompt of %d tokens for %s (%+.1f%%): its /tokenize and its usage disagree",
		worst, what, 100*float64(worst-want)/float64(want))
	if float64(off) > promptFailShare*float64(want) && c.Status.Ran() {
		c.Status, c.Reason = rundoc.StatusFailed, msg+", so this cell measured another context than it says"
		return
	}
	addNote(c, msg)
}

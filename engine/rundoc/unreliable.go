package rundoc

import (
	"strings"
)

// The thresholds of StatusUnreliable (METHOD.md: Status, Unreliable). A
// cell that ran is Unreliable when its own evidence contradicts its
// figure beyond one of them; engine/bench decides, and every front end
// reads the reason from the cell.
const (
	// UnreliableCounterPct: the server's own generated-token counter
	// differs from RigBench's count by more than this share (and by more
	// than UnreliableCounterSlack tokens per stream). Real servers agree
	// within 1% (the personality tests; llama-server b9928 exactly), and
	// ServerCheckTolerancePct notes anything above 2%; a client that fell
	// behind read +79.7%, a usage claiming 10× read −90%.
	UnreliableCounterPct = 10
	// UnreliableCounterSlack is the tokens per stream a difference may
	// reach without counting: a token the server generated and counted as
	// the window's close cancelled its stream never reaches the client.
	UnreliableCounterSlack = 2
	// UnreliableCIPct: a decode cell's total tok/s whose 95% half-width is
	// more than this share of the figure says nothing a reader can use
	// (the starved demo read 91.2 ± 32381.9). Adaptive windows stop at ±1%,
	// fixed 15–30 s windows read ±1–3%. It applies to windows at steady
	// state in which no stream finished its M tokens and sent again: with
	// restarts inside the window the spans' rates swing with the restart
	// cycle (a span can hold every stream's re-sent prompt and no token),
	// which the batch means count as noise although the figure sits on the
	// simulator's truth (the tiny profile at M = 64 reads 94.6 ± 106.7 at
	// 2K×4), and a window that opened without steady state counts its
	// climb, not a steady rate. Both are quick plans' and tests' windows:
	// the seed tool's M = 8192 does not restart within a window.
	UnreliableCIPct = 10
	// UnreliablePrefillCIPct: a prefill cell's prompt tok/s whose 95%
	// half-width is more than this share of the figure: an interval that
	// reaches 0 tok/s. Its samples are single requests whose TTFT holds
	// HTTP, tokenization and the first token, which on short prompts and a
	// busy client spread widely (the vLLM personality at 512 tokens:
	// 3879.1 ± 1937.4 tok/s where the server's own rate is 8022), a spread
	// the cross-check already names; only nonsense beyond it is
	// Unreliable.
	UnreliablePrefillCIPct = 100
	// ClientBehindPct is RigBench's own CPU share (CellWindow.ClientCPUPct,
	// percent of the machine's cores) from which the client, not the
	// server, may have set the pace: chunks wait in the client's buffers,
	// and their arrival times are the client's, not the server's.
	ClientBehindPct = 90
)

// UnreliableReason words one contradiction of a cell: a short head that
// fits a matrix cell ("counter −90%", "± 35%"), then the sentence that
// explains it. The head is what UnreliableHead returns.
func UnreliableReason(head, detail string) string {
	return head + ": " + detail
}

// UnreliableHead is the short reason an Unreliable cell shows on the cell
// in the matrices ("counter +79.7%"): the head of its Reason, up to the
// first ": ". "" for any other status.
func UnreliableHead(c *Cell) string {
	if c == nil || c.Status != StatusUnreliable {
		return ""
	}
	head, _, _ := strings.Cut(c.Reason, ": ")
	if len(head) > maxHead {
		return head[:maxHead]
	}
	return head
}

// maxHead bounds a head read from a document someone else wrote.
const maxHead = 24

// StatusText is a cell's status as a table's status column prints it:
// the status, and for an Unreliable cell its head ("Unreliable: usage
// fell"), so the reason is on the cell wherever its status is.
func StatusText(c *Cell) string {
	if c == nil {
		return ""
	}
	if h := UnreliableHead(c); h != "" {
		return string(c.Status) + ": " + h
	}
	return string(c.Status)
}

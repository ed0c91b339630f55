package matrix

import (
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// CellLines is what a matrix cell says, in two lines: rundoc.MatrixLines
// for a cell that ran or did not ("890.6*" and "2368 ms", or
// "Over capacity" and nothing), "measuring…" for the cell being measured
// and empty lines for a planned cell.
func CellLines(c *rundoc.Cell, running bool) (string, string) {
	if running {
		return "measuring…", ""
	}
	l1, l2 := rundoc.MatrixLines(c)
	if l2 == "" {
		// A long status ("Exceeds model length") takes both lines: on one
		// it widened every column of the grid (they share one width), and
		// the default plan's N=128 column fell off a 1280 px window.
		l1, l2 = splitLine(l1, maxLine)
	}
	return l1, l2
}

// maxLine is the longest status that stays on one line ("Over capacity").
const maxLine = 13

// splitLine cuts s at the last space that leaves the first part at most n
// bytes; s stays whole when it is short or has no such space.
func splitLine(s string, n int) (string, string) {
	if len(s) <= n {
		return s, ""
	}
	i := strings.LastIndex(s[:n+1], " ")
	if i <= 0 {
		return s, ""
	}
	return s[:i], s[i+1:]
}

// decodeMax is the largest total tok/s among the run's measured decode
// cells, the top of the colour scale (0 when none has run).
func decodeMax(r *rundoc.Run) float64 {
	hi := 0.0
	for _, c := range r.Cells {
		if c.Phase == rundoc.PhaseDecode && c.Status.Ran() {
			hi = max(hi, c.TotalTokS)
		}
	}
	return hi
}

func itoa(n int) string { return fmt.Sprint(n) }

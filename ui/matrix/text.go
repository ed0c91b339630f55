package matrix

import (
	"fmt"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// CellLines is what a matrix cell says, in two lines: "890.6 tok/s" and
// "TTFT 2368 ms" for a cell that ran, the status and nothing for one that
// did not ("Over capacity"), "…" for the cell being measured and empty
// lines for a planned cell. A queued cell says so on its second line,
// because its throughput is not a like-for-like figure.
func CellLines(c *rundoc.Cell, running bool) (string, string) {
	switch {
	case running:
		return "measuring…", ""
	case c == nil:
		return "", ""
	case c.Status.Ran():
		second := fmt.Sprintf("TTFT %.0f ms", c.TTFTMs)
		if c.Status == rundoc.StatusQueued {
			second = "queued · " + second
		}
		return fmt.Sprintf("%.1f tok/s", c.TotalTokS), second
	default:
		return string(c.Status), ""
	}
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

package matrix

import (
	"fmt"

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
	return rundoc.MatrixLines(c)
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

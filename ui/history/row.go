package history

import (
	"strings"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/hardware"
)

// columns of the history table.
var columns = [...]string{"", "Date", "Name", "GPU", "Rig", "Model", "Flags", "Engine", "Best tok/s", "Status", "Tags"}

// cellText is the text of one history table cell.
func cellText(e Entry, col int, selected bool) string {
	r := e.Run
	switch col {
	case 0:
		if selected {
			return "☑"
		}
		return "☐"
	case 1:
		if r.CreatedAt.IsZero() {
			return ""
		}
		return r.CreatedAt.Local().Format("2006-01-02 15:04")
	case 2:
		n := displayName(r)
		if r.Simulated {
			n += " (simulated)"
		}
		return n
	case 3:
		if e.GPU != "" {
			return e.GPU
		}
		if r.Simulated {
			return "simulated"
		}
		// An imported run whose file names no card: unknown, said so as
		// everywhere (a blank read as a missing column).
		return hardware.NotReported
	case 4:
		return e.Rig
	case 5:
		return r.Server.Model
	case 6:
		return vllm.FlagsText(e.Flags)
	case 7:
		return strings.TrimSpace(r.Server.Engine + " " + r.Server.Version)
	case 8:
		if b := e.Best; b > 0 {
			return rundoc.FigTotalTokS.Format(b)
		}
		return ""
	case 9:
		s := string(r.Status)
		if e.Imported || r.Origin == rundoc.OriginImported {
			s += ", imported"
		}
		return s
	default:
		return strings.Join(r.Tags, ", ")
	}
}

// matches reports whether a run matches the filter text: every word must
// appear in the name, model, GPU, rig, flags, engine, tags, notes or status.
func matches(e Entry, filter string) bool {
	r := e.Run
	hay := strings.ToLower(strings.Join([]string{r.Name, r.Server.Model, cellText(e, 3, false), e.Rig, cellText(e, 6, false), r.Server.Engine,
		r.Server.Version, strings.Join(r.Tags, " "), r.Notes, string(r.Status), map[bool]string{true: "simulated"}[r.Simulated]}, " "))
	for _, w := range strings.Fields(strings.ToLower(filter)) {
		if !strings.Contains(hay, w) {
			return false
		}
	}
	return true
}

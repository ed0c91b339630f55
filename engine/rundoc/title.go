package rundoc

import "strings"

// ModelName is the model the server reported, else the one it was
// launched with ("" when neither is known, as in an imported CSV without
// one in its file name).
func (r *Run) ModelName() string {
	if r.Server.Model != "" {
		return r.Server.Model
	}
	if r.Launch != nil {
		return r.Launch.Model
	}
	return ""
}

// Title is how every table, heading, chart and prompt names a run: its
// name, else its model, else "run" and its short id. Text from outside
// (a name, a model id) is as stored: each front end escapes it for where
// it prints it.
func (r *Run) Title() string {
	switch {
	case r.Name != "":
		return r.Name
	case r.ModelName() != "":
		return r.ModelName()
	case r.UUID != "":
		return "run " + ShortID(r.UUID)
	}
	return "run"
}

// NothingMeasured is what a run's name says when the run was cancelled
// before any of its cells was measured, so History does not show it under
// the same name as the runs that measured something (issue 41 item 9).
const NothingMeasured = " · cancelled, nothing measured"

// MarkNothingMeasured is name with NothingMeasured at its end, within
// MaxNameLen (the name is cut, never the mark); a name that has it
// already is returned as it is.
func MarkNothingMeasured(name string) string {
	if strings.HasSuffix(name, NothingMeasured) {
		return name
	}
	if room := MaxNameLen - len(NothingMeasured); len(name) > room {
		name = cutBytes(name, room-len("…")) + "…"
	}
	return name + NothingMeasured
}

// MeasuredAny reports whether any of cells came to an outcome of its own,
// whatever it was (Valid, Unreliable, Over capacity, Failed, …): a run
// whose cells were all cancelled, or that had none, measured nothing.
func MeasuredAny(cells []Cell) bool {
	for i := range cells {
		if cells[i].Status != StatusCancelled {
			return true
		}
	}
	return false
}

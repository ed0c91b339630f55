package rundoc

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

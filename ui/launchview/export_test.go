package launchview

// SetTokenForTest types into the token field.
func SetTokenForTest(v *View, s string) { v.token.SetText(s) }

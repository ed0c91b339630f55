package ui

import (
	"os"
	"strings"
	"testing"
)

// TestReadmeNamesThePreferencesFolder: README says where the app keeps its
// preferences, Fyne's folder named by the app id; it named
// io.rigbench.app while the app ran as io.github.rigbench.rigbench (issue
// 42 item 10). The id is also FyneApp.toml's, which packaging reads.
func TestReadmeNamesThePreferencesFolder(t *testing.T) {
	readme, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	if want := "~/.config/fyne/" + AppID + "/"; !strings.Contains(string(readme), want) {
		t.Errorf("README.md does not name the preferences folder %s", want)
	}
	toml, err := os.ReadFile("../FyneApp.toml")
	if err != nil {
		t.Fatal(err)
	}
	if want := `ID = "` + AppID + `"`; !strings.Contains(string(toml), want) {
		t.Errorf("FyneApp.toml does not say %s", want)
	}
}

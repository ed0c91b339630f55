// Package locale makes RigBench start cleanly under LANG=C: imported first
// by cmd/rigbench, its init runs before Fyne's translations load. Fyne
// (through go-locale) treats exactly "C" and "POSIX" as "no locale", but
// reads "C.UTF-8" — the default of many containers and minimal systems — as
// a language called "C" and logs a parse error on every start. This
// package rewrites such values to plain "C", which means the same thing to
// the C library and makes Fyne fall back to English quietly.
package locale

import (
	"os"
	"strings"
)

func init() { Normalize(os.Getenv, os.Setenv) }

// Normalize rewrites the first of LC_ALL, LC_MESSAGES and LANG that is set
// (the order gettext reads them in) from "C.<codeset>" or
// "POSIX.<codeset>" to "C".
func Normalize(getenv func(string) string, setenv func(string, string) error) {
	for _, name := range []string{"LC_ALL", "LC_MESSAGES", "LANG"} {
		v := getenv(name)
		if v == "" {
			continue
		}
		if strings.HasPrefix(v, "C.") || strings.HasPrefix(v, "POSIX.") {
			_ = setenv(name, "C")
		}
		return
	}
}

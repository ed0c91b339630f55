package vllm

import (
	"strconv"
	"strings"
)

// ParseOnOff reads a switch's value as vLLM's argument parser does: on,
// true, yes, 1 and off, false, no, 0 in any case; ok is false for anything
// else.
func ParseOnOff(v string) (on, ok bool) {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "on", "true", "yes", "1":
		return true, true
	case "off", "false", "no", "0":
		return false, true
	}
	return false, false
}

// SameValue compares two values of a flag as the server reads them
// ("0.90" = "0.9", "true" = "on"): the one rule by which a sweep drops a
// variant that launches its base again and the flags column leaves out a
// flag set to its default.
func SameValue(name, a, b string) bool {
	if a == b {
		return true
	}
	if f, _, ok := Lookup(name); ok && f.Type == KindBool {
		x, ok1 := ParseOnOff(a)
		y, ok2 := ParseOnOff(b)
		return ok1 && ok2 && x == y
	}
	x, err1 := strconv.ParseFloat(a, 64)
	y, err2 := strconv.ParseFloat(b, 64)
	return err1 == nil && err2 == nil && x == y
}

// IsDefault reports whether value is the catalog's documented default of
// a valued flag (switches' defaults are not recorded: false).
func IsDefault(name, value string) bool {
	f, _, ok := Lookup(name)
	if !ok || f.Type == KindBool {
		return false
	}
	return f.Default != "" && SameValue(name, f.Default, value)
}

package report

import (
	"bytes"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// nonFiniteMark stands in for a non-finite number while nonFiniteField
// looks for its place; no real file holds it.
const nonFiniteMark = "rigbench-non-finite-number-"

// nonFiniteField finds the first NaN, Infinity or -Infinity a JSON file
// holds as a bare number, as Python's json module writes them (the seed
// tool is Python) though JSON has no such numbers, and returns the field
// it sits in ("results[3].aggregate_tps") and how the file spelled it.
// ok is false when the file has none, or is not JSON even with them
// replaced.
func nonFiniteField(data []byte) (field, spelled string, ok bool) {
	var out bytes.Buffer
	var found []string
	inString, escaped := false, false
	for i := 0; i < len(data); i++ {
		b := data[i]
		if inString {
			out.WriteByte(b)
			switch {
			case escaped:
				escaped = false
			case b == '\\':
				escaped = true
			case b == '"':
				inString = false
			}
			continue
		}
		if b == '"' {
			inString = true
			out.WriteByte(b)
			continue
		}
		matched := false
		for _, tok := range []string{"-Infinity", "Infinity", "NaN"} {
			if bytes.HasPrefix(data[i:], []byte(tok)) {
				out.WriteString(strconv.Quote(nonFiniteMark + strconv.Itoa(len(found))))
				found = append(found, tok)
				i += len(tok) - 1
				matched = true
				break
			}
		}
		if !matched {
			out.WriteByte(b)
		}
	}
	if len(found) == 0 {
		return "", "", false
	}
	var tree any
	if json.Unmarshal(out.Bytes(), &tree) != nil {
		return "", "", false
	}
	field, n, ok := findMark(tree, "")
	if !ok || n >= len(found) {
		return "", "", false
	}
	return field, found[n], true
}

// findMark walks tree in file order where it can (lists) and key order in
// objects, returning the path of the mark with the lowest number.
func findMark(tree any, path string) (string, int, bool) {
	best, bestN, ok := "", 0, false
	consider := func(p string, n int) {
		if !ok || n < bestN {
			best, bestN, ok = p, n, true
		}
	}
	switch t := tree.(type) {
	case string:
		if rest, has := strings.CutPrefix(t, nonFiniteMark); has {
			if n, err := strconv.Atoi(rest); err == nil {
				consider(path, n)
			}
		}
	case []any:
		for i, v := range t {
			if p, n, has := findMark(v, fmt.Sprintf("%s[%d]", path, i)); has {
				consider(p, n)
			}
		}
	case map[string]any:
		keys := make([]string, 0, len(t))
		for k := range t {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			p := k
			if path != "" {
				p = path + "." + k
			}
			if q, n, has := findMark(t[k], p); has {
				consider(q, n)
			}
		}
	}
	return best, bestN, ok
}

package rundoc

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// utf8BOM is the byte-order mark some editors put before UTF-8 text.
var utf8BOM = []byte("\xef\xbb\xbf")

// Bounds of checkStructure, above every field's own limit: they stop a
// hostile file early, before it is decoded; the validator's limits, which
// name the field, are the ones a real file meets first.
const (
	// maxAnyString is the longest string anywhere in a run (notes are the
	// longest field allowed); the validator names the field that is over its own limit.
	maxAnyString = MaxNotesLen
	// maxAnyList is the longest list anywhere in a run (samples).
	maxAnyList = 4 * MaxSamples
)

// frame is one open object or list while checkStructure walks a document.
type frame struct {
	object bool
	path   string
	keys   map[string]bool
	key    string // the key whose value comes next (objects)
	n      int    // elements so far (lists)
}

// checkStructure walks data, one JSON value, and refuses what
// encoding/json would silently accept: a key given twice in one object
// (the decoder keeps the last), a key not spelled in lower case (the
// decoder matches keys without regard to case, so "Name" would fill
// name), and strings or lists beyond any limit of the run document. Every
// key of the document is lower-case ASCII letters, digits and '_'.
func checkStructure(data []byte) error {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber() // numbers are left to the decoder; this only walks
	var stack []*frame
	for {
		tok, err := dec.Token()
		if errors.Is(err, io.EOF) {
			return nil
		}
		if err != nil {
			return fmt.Errorf("the file is not a RigBench run (not valid JSON: %v)", err)
		}
		var top *frame
		if len(stack) > 0 {
			top = stack[len(stack)-1]
		}
		// A string in key position of an object is a key.
		if s, ok := tok.(string); ok && top != nil && top.object && top.key == "" {
			if !isLowerKey(s) && !inSourceFile(top.path) && !inQualityTokens(top.path) {
				return fmt.Errorf("the run file has the key %q in %s; RigBench spells every key in lower case (a file edited by hand?)", clip([]byte(s), 40), where(top.path))
			}
			if top.keys[s] {
				return fmt.Errorf("the run file has the key %q twice in %s; each key may appear once", s, where(top.path))
			}
			top.keys[s] = true
			top.key = s
			continue
		}
		if d, ok := tok.(json.Delim); ok && (d == '}' || d == ']') {
			stack = stack[:len(stack)-1]
			if len(stack) == 0 {
				return nil // the end of the one value; ReadRun looks at what follows
			}
			continue
		}
		// A value: its path, and the list's count or the object's key used.
		path := ""
		if top != nil {
			if top.object {
				path = join(top.path, top.key)
				top.key = ""
			} else {
				path = top.path + "[" + strconv.Itoa(top.n) + "]"
				top.n++
				if top.n > maxAnyList {
					return fmt.Errorf("%s has more than %d entries; RigBench reads at most %d", where(top.path), maxAnyList, maxAnyList)
				}
				if top.path == "cells" && top.n > MaxCells {
					// Said while walking, before 400,000 cells are decoded
					// (issue 36 item 10: 807 MB and 14 s to refuse them).
					return fmt.Errorf("the run has more than %d cells, far more than any real run; RigBench reads at most %d", MaxCells, MaxCells)
				}
			}
		}
		switch t := tok.(type) {
		case json.Delim:
			switch t {
			case '{':
				stack = append(stack, &frame{object: true, path: path, keys: map[string]bool{}})
			case '[':
				stack = append(stack, &frame{path: path})
			}
		case string:
			if len(t) > maxAnyString {
				return fmt.Errorf("%s is %d bytes long, at most %d are allowed", where(path), len(t), maxAnyString)
			}
		}
		if len(stack) == 0 {
			return nil // the end of the one value; ReadRun looks at what follows
		}
	}
}

// isLowerKey reports whether s is a key as the run document spells them.
func isLowerKey(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '_' {
			return false
		}
	}
	return true
}

// inSourceFile reports whether path lies inside source.file, an imported
// file kept as it came (Source.File): its keys are another tool's
// spelling ("ForceP2P"), not RigBench's.
func inSourceFile(path string) bool {
	const p = "source.file"
	return path == p || strings.HasPrefix(path, p+".") || strings.HasPrefix(path, p+"[")
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// where names a path for a message: the top level has none.
func where(path string) string {
	if path == "" {
		return "the top level"
	}
	return path
}

// clip returns at most n bytes of b, marked when cut.
func clip(b []byte, n int) string {
	if len(b) <= n {
		return string(b)
	}
	return string(b[:n]) + "…"
}

package rundoc

import (
	"math"
	"reflect"
	"strings"
)

// DropNonFinite clears every NaN or ±Inf number in v (a pointer to a Cell,
// a Run or any struct of the run document), in place, and returns the JSON
// names of the fields it cleared, in the order met, each once. A plain
// float64 becomes 0 and a *float64 becomes nil (absent).
//
// Why: JSON has no NaN or infinity, so one such number anywhere in a run
// makes encoding/json refuse the whole document, and with it every cell of
// the run the history or an export holds. Such a number comes from outside:
// a server's /metrics page may say NaN, a difference of two huge counters
// may overflow. The runner calls this on every cell it finishes, so what a
// server says can never stop a run from being kept; the cell notes what
// was left out.
func DropNonFinite(v any) []string {
	var names []string
	seen := map[string]bool{}
	dropNonFinite(reflect.ValueOf(v), "", func(name string) {
		if !seen[name] {
			seen[name] = true
			names = append(names, name)
		}
	})
	return names
}

func dropNonFinite(v reflect.Value, name string, cleared func(string)) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return
		}
		if e := v.Elem(); e.Kind() == reflect.Float64 || e.Kind() == reflect.Float32 {
			if f := e.Float(); (math.IsNaN(f) || math.IsInf(f, 0)) && v.CanSet() {
				v.SetZero()
				cleared(name)
			} else if math.IsNaN(f) || math.IsInf(f, 0) {
				e.SetFloat(0) // a pointer we cannot reset: at least make it finite
				cleared(name)
			}
			return
		}
		dropNonFinite(v.Elem(), name, cleared)
	case reflect.Interface:
		// Interfaces (none in the run document today) hold copies that
		// cannot be set in place: leave them.
	case reflect.Struct:
		t := v.Type()
		for i := range v.NumField() {
			f := t.Field(i)
			if !f.IsExported() {
				continue
			}
			dropNonFinite(v.Field(i), jsonName(f), cleared)
		}
	case reflect.Slice, reflect.Array:
		for i := range v.Len() {
			dropNonFinite(v.Index(i), name, cleared)
		}
	case reflect.Map:
		for _, k := range v.MapKeys() {
			e := v.MapIndex(k)
			if (e.Kind() == reflect.Float64 || e.Kind() == reflect.Float32) && (math.IsNaN(e.Float()) || math.IsInf(e.Float(), 0)) {
				v.SetMapIndex(k, reflect.Zero(e.Type()))
				cleared(name)
			}
		}
	case reflect.Float64, reflect.Float32:
		if f := v.Float(); (math.IsNaN(f) || math.IsInf(f, 0)) && v.CanSet() {
			v.SetFloat(0)
			cleared(name)
		}
	}
}

// jsonName is a struct field's key in the run document.
func jsonName(f reflect.StructField) string {
	tag, _, _ := strings.Cut(f.Tag.Get("json"), ",")
	if tag == "" || tag == "-" {
		return f.Name
	}
	return tag
}

package rundoc

import (
	"strings"
	"testing"
)

// TestMarkNothingMeasured: the mark ends the name once, within MaxNameLen,
// cutting the name and never the mark (issue 41 item 9).
func TestMarkNothingMeasured(t *testing.T) {
	short := MarkNothingMeasured("a1-4b-fp8 · Dec 4 12:40")
	if short != "a1-4b-fp8 · Dec 4 12:40"+NothingMeasured || MarkNothingMeasured(short) != short {
		t.Errorf("short name marked %q, again %q", short, MarkNothingMeasured(short))
	}
	long := MarkNothingMeasured(strings.Repeat("é", MaxNameLen))
	if len(long) > MaxNameLen || !strings.HasSuffix(long, "…"+NothingMeasured) {
		t.Errorf("long name marked to %d bytes (limit %d): ends %q", len(long), MaxNameLen, long[len(long)-40:])
	}
	if MeasuredAny(nil) || MeasuredAny([]Cell{{Status: StatusCancelled}}) ||
		!MeasuredAny([]Cell{{Status: StatusCancelled}, {Status: StatusValid}}) || !MeasuredAny([]Cell{{Status: StatusFailed}}) {
		t.Error("MeasuredAny: no cell or a cancelled one alone measured nothing; a Valid or Failed one did")
	}
}

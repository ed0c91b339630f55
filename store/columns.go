package store

import (
	"database/sql"
	"encoding/json"
	"fmt"
	"time"
)

// Helpers converting between Go values and their column forms.

// nanos stores a time as Unix nanoseconds, NULL for the zero time (unknown).
func nanos(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: t.UnixNano(), Valid: true}
}

// fromNanos is the inverse of nanos; times come back in UTC.
func fromNanos(n sql.NullInt64) time.Time {
	if !n.Valid {
		return time.Time{}
	}
	return time.Unix(0, n.Int64).UTC()
}

// jsonCol stores v as JSON text, NULL when v is a nil pointer or an empty
// list (the run document omits those too).
func jsonCol(v any, isNil bool) (sql.NullString, error) {
	if isNil {
		return sql.NullString{}, nil
	}
	b, err := json.Marshal(v)
	if err != nil {
		return sql.NullString{}, err
	}
	return sql.NullString{String: string(b), Valid: true}, nil
}

// fromJSONCol decodes a JSON column into dst; NULL leaves dst untouched.
func fromJSONCol(col string, s sql.NullString, dst any) error {
	if !s.Valid {
		return nil
	}
	if err := json.Unmarshal([]byte(s.String), dst); err != nil {
		return fmt.Errorf("the history's %s column is damaged: %w", col, err)
	}
	return nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

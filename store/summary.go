package store

import (
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// The list line of each run is kept pre-encoded in runs.summary so List
// reads one column per run (see migrations/0003_list_speed.sql). The
// encoding is private to this file: a format byte, then each field in
// Summary order: strings as uvarint length + bytes, counts as uvarints,
// times as a presence byte + varint Unix nanoseconds, figures as IEEE-754
// bits. A row whose summary is NULL or of another format is recomputed.

const summaryFormat = 2

// summaryColumns reads everything a Summary holds from the runs columns.
const summaryColumns = `uuid, name, tags, created_at, finished_at, status, origin, imported_at, simulated,
	gpu_name, model, engine, engine_version, flags, rig_name, cell_count, best_decode_tok_s, prefill_8k_tok_s`

// refreshSummary re-encodes the list line of one run from its columns. It
// runs inside every transaction that changes a run, so the line is never
// stale after a commit.
func refreshSummary(ctx context.Context, tx *sql.Tx, runID int64) error {
	m, err := summaryFromColumns(ctx, tx, runID)
	if errors.Is(err, sql.ErrNoRows) {
		return nil // deleted in this transaction
	}
	if err != nil {
		return err
	}
	_, err = tx.ExecContext(ctx, `UPDATE runs SET summary = ? WHERE id = ?`, encodeSummary(&m), runID)
	return err
}

// summaryFromColumns builds one run's Summary from its columns: the slow
// path, for writing the encoded line and for a line List cannot decode.
func summaryFromColumns(ctx context.Context, q rowQuerier, runID int64) (Summary, error) {
	var (
		m                           Summary
		tags                        sql.NullString
		created, finished, imported sql.NullInt64
		status                      string
		simulated                   int
	)
	err := q.QueryRowContext(ctx, `SELECT `+summaryColumns+` FROM runs WHERE id = ?`, runID).Scan(
		&m.UUID, &m.Name, &tags, &created, &finished, &status, &m.Origin, &imported, &simulated, &m.GPU,
		&m.Model, &m.Engine, &m.EngineVersion, &m.Flags, &m.Rig, &m.Cells, &m.BestDecodeTokS, &m.Prefill8KTokS)
	if err != nil {
		return m, err
	}
	if err := fromJSONCol("tags", tags, &m.Tags); err != nil {
		return m, err
	}
	m.CreatedAt, m.FinishedAt = fromNanos(created), fromNanos(finished)
	m.Status, m.Imported, m.Simulated = rundoc.RunStatus(status), imported.Valid, simulated != 0
	return m, nil
}

// rowQuerier is what summaryFromColumns needs of a *sql.DB or *sql.Tx.
type rowQuerier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// backfillSummaries computes the list lines a migration left NULL. The
// partial index runs_stale_summary makes the check free when none is.
func (s *DB) backfillSummaries(ctx context.Context) error {
	return s.write(ctx, func(tx *sql.Tx) error {
		rows, err := tx.QueryContext(ctx, `SELECT id FROM runs WHERE summary IS NULL`)
		if err != nil {
			return err
		}
		var ids []int64
		for rows.Next() {
			var id int64
			if err := rows.Scan(&id); err != nil {
				rows.Close()
				return err
			}
			ids = append(ids, id)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return err
		}
		for _, id := range ids {
			if err := refreshSummary(ctx, tx, id); err != nil {
				return err
			}
		}
		return nil
	})
}

func encodeSummary(m *Summary) []byte {
	b := make([]byte, 0, 256)
	b = append(b, summaryFormat)
	for _, s := range []string{m.UUID, m.Name} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(len(m.Tags)))
	for _, t := range m.Tags {
		b = appendString(b, t)
	}
	b = appendTime(b, m.CreatedAt)
	b = appendTime(b, m.FinishedAt)
	for _, s := range []string{string(m.Status), m.Origin} {
		b = appendString(b, s)
	}
	b = append(b, byte(boolInt(m.Imported)), byte(boolInt(m.Simulated)))
	for _, s := range []string{m.GPU, m.Model, m.Engine, m.EngineVersion, m.Flags, m.Rig} {
		b = appendString(b, s)
	}
	b = binary.AppendUvarint(b, uint64(m.Cells))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.BestDecodeTokS))
	b = binary.LittleEndian.AppendUint64(b, math.Float64bits(m.Prefill8KTokS))
	return b
}

func appendString(b []byte, s string) []byte {
	return append(binary.AppendUvarint(b, uint64(len(s))), s...)
}

func appendTime(b []byte, t time.Time) []byte {
	if t.IsZero() {
		return append(b, 0)
	}
	return binary.AppendVarint(append(b, 1), t.UnixNano())
}

// errSummary reports an undecodable list line; List then recomputes it.
var errSummary = errors.New("summary is not in the current format")

// summaryReader decodes the fields of an encoded summary in order,
// remembering the first error.
type summaryReader struct {
	b   []byte
	err error
	in  interner
}

// interner shares the strings that repeat from run to run (status, GPU,
// model, engine, flags, tags), so a list of 10,000 runs allocates each once.
type interner map[string]string

func (in interner) get(b []byte) string {
	if s, ok := in[string(b)]; ok { // this lookup does not allocate
		return s
	}
	s := string(b)
	if len(in) < 4096 {
		in[s] = s
	}
	return s
}

// decodeSummary decodes one line; in may be nil (no sharing).
func decodeSummary(b []byte, in interner) (Summary, error) {
	var m Summary
	if len(b) == 0 || b[0] != summaryFormat {
		return m, errSummary
	}
	r := summaryReader{b: b[1:]}
	m.UUID, m.Name = r.str(), r.str()
	r.in = in
	if n := r.uvarint(); n > 0 && n <= uint64(len(r.b)) {
		m.Tags = make([]string, n)
		for i := range m.Tags {
			m.Tags[i] = r.str()
		}
	}
	m.CreatedAt, m.FinishedAt = r.time(), r.time()
	m.Status, m.Origin = rundoc.RunStatus(r.str()), r.str()
	m.Imported, m.Simulated = r.byte() == 1, r.byte() == 1
	m.GPU, m.Model, m.Engine, m.EngineVersion, m.Flags, m.Rig = r.str(), r.str(), r.str(), r.str(), r.str(), r.str()
	m.Cells = int(r.uvarint())
	m.BestDecodeTokS, m.Prefill8KTokS = r.float(), r.float()
	if r.err != nil || len(r.b) != 0 {
		return Summary{}, errSummary
	}
	return m, nil
}

func (r *summaryReader) uvarint() uint64 {
	v, n := binary.Uvarint(r.b)
	if n <= 0 {
		r.err, r.b = errSummary, nil
		return 0
	}
	r.b = r.b[n:]
	return v
}

func (r *summaryReader) str() string {
	n := r.uvarint()
	if n > uint64(len(r.b)) {
		r.err, r.b = errSummary, nil
		return ""
	}
	var s string
	if r.in != nil {
		s = r.in.get(r.b[:n])
	} else {
		s = string(r.b[:n])
	}
	r.b = r.b[n:]
	return s
}

func (r *summaryReader) byte() byte {
	if len(r.b) == 0 {
		r.err = errSummary
		return 0
	}
	c := r.b[0]
	r.b = r.b[1:]
	return c
}

func (r *summaryReader) time() time.Time {
	if r.byte() == 0 {
		return time.Time{}
	}
	v, n := binary.Varint(r.b)
	if n <= 0 {
		r.err, r.b = errSummary, nil
		return time.Time{}
	}
	r.b = r.b[n:]
	return time.Unix(0, v).UTC()
}

func (r *summaryReader) float() float64 {
	if len(r.b) < 8 {
		r.err, r.b = errSummary, nil
		return 0
	}
	v := math.Float64frombits(binary.LittleEndian.Uint64(r.b))
	r.b = r.b[8:]
	return v
}

package store

import (
	"bytes"
	"context"
	"database/sql"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"time"

	_ "modernc.org/sqlite" // registers the "sqlite" driver
)

// DB is an open history. It is safe for concurrent use; in WAL mode readers
// never wait for the writer, and writers wait up to busyTimeoutMs for each
// other (another RigBench process included).
type DB struct {
	sql  *sql.DB
	path string
}

// busyTimeoutMs is how long a write waits for another writer before it
// fails with "busy": a cell write takes about a millisecond, so five
// seconds only runs out when something is stuck.
const busyTimeoutMs = 5000

// Open opens (creating when absent) the history at path and brings its
// schema up to date. A history written by a newer RigBench is refused and
// left untouched. Runs still marked running whose recording process is gone
// (a crash, a kill -9, a power cut) become interrupted, their cells intact.
func Open(ctx context.Context, path string) (*DB, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, explain(err, path)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, explain(err, path)
	}
	// Look at the file's header before SQLite touches it: turning on WAL
	// rewrites the header, and a newer history must stay exactly as it is.
	if err := checkHeader(abs); err != nil {
		return nil, explain(err, path)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, explain(err, path)
	}
	s := &DB{sql: db, path: abs}
	// Opening writes (schema, interrupted runs): a history another process
	// holds longer than the busy timeout is waited for up to openRetry, so
	// a moment of another RigBench's import does not stop a run.
	deadline := time.Now().Add(openRetry)
	for {
		err := explain(s.init(ctx), path)
		if err == nil {
			return s, nil
		}
		if !errors.Is(err, ErrBusy) || time.Now().After(deadline) || ctx.Err() != nil {
			db.Close()
			return nil, err
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// openRetry is how long Open retries while the history is busy.
const openRetry = 30 * time.Second

func (s *DB) init(ctx context.Context) error {
	if err := s.sql.PingContext(ctx); err != nil {
		return err
	}
	if err := migrate(ctx, s.sql, SchemaVersion); err != nil {
		return err
	}
	if err := s.backfillSummaries(ctx); err != nil {
		return err
	}
	return s.markInterrupted(ctx)
}

// dsn builds the connection string: a file: URI (so any path works) with
// the pragmas every pooled connection needs. WAL lets readers run while a
// run writes; synchronous=NORMAL in WAL mode is durable across a process
// crash and only risks the last transactions on power loss, and keeps a
// cell write near a millisecond. Write transactions begin IMMEDIATE so two
// writers queue on busy_timeout instead of failing on a lock upgrade.
func dsn(abs string) string {
	u := url.URL{Scheme: "file", Path: filepath.ToSlash(abs)}
	q := url.Values{}
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMs))
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	q.Set("_txlock", "immediate")
	return u.String() + "?" + q.Encode()
}

// checkHeader refuses a file that is not an SQLite database or whose
// user_version (bytes 60–63 of the header, big-endian) is newer than this
// build's schema. An absent or empty file is a new history.
func checkHeader(abs string) error {
	f, err := os.Open(abs)
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer f.Close()
	var h [100]byte
	n, err := io.ReadFull(f, h[:])
	if n == 0 {
		return nil
	}
	if err != nil || !bytes.Equal(h[:16], []byte("SQLite format 3\x00")) {
		return hinted(abs+" is not a RigBench history", "; ", HintOtherFile)
	}
	if v := int(binary.BigEndian.Uint32(h[60:64])); v > SchemaVersion {
		return errNewer(v)
	}
	return nil
}

// Path returns the absolute path of the history file.
func (s *DB) Path() string { return s.path }

// Close closes the history. Runs being recorded are not touched: a run
// still running when its process exits is marked interrupted at next Open.
func (s *DB) Close() error { return s.sql.Close() }

// markInterrupted turns runs left "running" by a process that no longer
// exists into "interrupted". A run whose recorder is alive (another
// RigBench process, or a Recorder of this one) is left alone.
func (s *DB) markInterrupted(ctx context.Context) error {
	rows, err := s.sql.QueryContext(ctx, `SELECT id, uuid, recorder_pid FROM runs WHERE status = 'running'`)
	if err != nil {
		return err
	}
	type stale struct {
		id   int64
		uuid string
		pid  int
	}
	var candidates []stale
	for rows.Next() {
		var c stale
		if err := rows.Scan(&c.id, &c.uuid, &c.pid); err != nil {
			rows.Close()
			return err
		}
		candidates = append(candidates, c)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return err
	}
	for _, c := range candidates {
		if recording(c.uuid) || (c.pid != os.Getpid() && processAlive(c.pid)) {
			continue
		}
		err := s.write(ctx, func(tx *sql.Tx) error {
			if _, err := tx.ExecContext(ctx, `UPDATE runs SET status = 'interrupted', recorder_pid = 0 WHERE id = ? AND status = 'running'`, c.id); err != nil {
				return err
			}
			return refreshSummary(ctx, tx, c.id)
		})
		if err != nil {
			return err
		}
	}
	return nil
}

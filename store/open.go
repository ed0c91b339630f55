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
	"slices"
	"strings"
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
	// What is there is looked at before the folder is made: a device's
	// folder (\\.\ for Windows' NUL) cannot be made.
	if fi, err := os.Stat(abs); err == nil && !fi.Mode().IsRegular() {
		// SQLite's own words for these were "check that its folder
		// exists" (a folder) and "busy" (/dev/null).
		if fi.IsDir() {
			return nil, hinted(fmt.Sprintf("%s is a folder, not a history file: give a file name inside it, such as %s", path, filepath.Join(path, "history.db")), "; ", HintSetPath)
		}
		return nil, hinted(fmt.Sprintf("%s is not a regular file (a device, a pipe or a socket), so it cannot hold a history", path), "; ", HintSetPath)
	}
	if err := os.MkdirAll(filepath.Dir(abs), 0o700); err != nil {
		return nil, explain(err, path)
	}
	// Look at the file's header before SQLite touches it: turning on WAL
	// rewrites the header, and a newer history must stay exactly as it is.
	if err := checkHeader(abs); err != nil {
		return nil, explain(err, path)
	}
	if err := checkForeign(ctx, abs); err != nil {
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

// OpenForReading is Open for the commands that mostly read (list, show,
// export, compare): a history RigBench may not write (a read-only file or
// folder, another user's) is opened read-only instead of refused, so its
// runs can still be listed; a write through it then fails with the
// read-only sentence, saying so when writing is needed. A read-only
// history older than this build's schema cannot be upgraded, and is
// refused with the reason.
func OpenForReading(ctx context.Context, path string) (*DB, error) {
	db, err := Open(ctx, path)
	if err == nil || !errors.Is(err, ErrReadOnly) {
		return db, err
	}
	abs, aerr := filepath.Abs(path)
	if aerr != nil {
		return nil, err
	}
	if fi, serr := os.Stat(abs); serr != nil || fi.Size() == 0 {
		return nil, err // nothing to read
	}
	u := fileURI(abs)
	// immutable: SQLite may not create the -shm beside a file it cannot
	// write, and a history nobody here can write does not change under us.
	ro, oerr := sql.Open("sqlite", u.String()+"?mode=ro&immutable=1")
	if oerr != nil {
		return nil, err
	}
	v, verr := userVersion(ctx, ro)
	switch {
	case verr != nil:
		ro.Close()
		return nil, explain(verr, path)
	case v < SchemaVersion:
		ro.Close()
		return nil, hinted(fmt.Sprintf("the history %s is read-only and from an older RigBench: reading it needs an upgrade, which needs write access; make it and its folder writable", path), ", or ", HintOtherFile, ErrReadOnly)
	case v > SchemaVersion:
		ro.Close()
		return nil, errNewer(v)
	}
	return &DB{sql: ro, path: abs}, nil
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

// fileURI is the file: URI of the absolute path abs. A Windows path
// (C:\Users\me\…) becomes file:///C:/Users/me/…: its slashed form has
// no leading slash, and without one the drive would be read as the URI's
// host ("invalid uri authority: C:").
func fileURI(abs string) url.URL {
	p := filepath.ToSlash(abs)
	if !strings.HasPrefix(p, "/") {
		p = "/" + p
	}
	return url.URL{Scheme: "file", Path: p}
}

// dsn builds the connection string: a file: URI (so any path works) with
// the pragmas every pooled connection needs. WAL lets readers run while a
// run writes; synchronous=NORMAL in WAL mode is durable across a process
// crash and only risks the last transactions on power loss, and keeps a
// cell write near a millisecond. Write transactions begin IMMEDIATE so two
// writers queue on busy_timeout instead of failing on a lock upgrade.
func dsn(abs string) string {
	u := fileURI(abs)
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

// historyTables are the tables every RigBench history has from schema
// version 1 on.
var historyTables = []string{"runs", "cells", "server_samples", "gpu_samples"}

// checkForeign refuses another application's SQLite database, before the
// history's own connection touches it: that connection turns on WAL mode
// (rewriting the header), and the migrations would add RigBench's tables
// and set user_version, taking the file over. A file is another
// application's when it holds tables but no schema version (user_version
// 0: RigBench's first migration sets the version in the same transaction
// as its tables), or has a version but lacks a history's tables. It is
// read through a read-only connection that changes nothing; a file that
// cannot be read that way (a read-only folder, a lock) is left to the
// history's own open, which says why.
func checkForeign(ctx context.Context, abs string) error {
	if fi, err := os.Stat(abs); err != nil || fi.Size() == 0 {
		return nil
	}
	u := fileURI(abs)
	db, err := sql.Open("sqlite", u.String()+"?mode=ro&_pragma=busy_timeout(2000)")
	if err != nil {
		return nil
	}
	defer db.Close()
	// The version and the tables are read in one read transaction, one
	// snapshot: read apart, another RigBench's first migration could
	// commit between them (version 0, then its tables), and a new history
	// being created beside us looked like another application's file.
	tx, err := db.BeginTx(ctx, &sql.TxOptions{ReadOnly: true})
	if err != nil {
		return nil
	}
	defer tx.Rollback()
	var version int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&version); err != nil {
		return nil
	}
	rows, err := tx.QueryContext(ctx, "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' ORDER BY name")
	if err != nil {
		return nil
	}
	defer rows.Close()
	var tables []string
	for rows.Next() {
		var name string
		if rows.Scan(&name) == nil {
			tables = append(tables, name)
		}
	}
	if rows.Err() != nil || len(tables) == 0 {
		return nil
	}
	foreign := version == 0
	for _, t := range historyTables {
		if !slices.Contains(tables, t) {
			foreign = true
		}
	}
	if !foreign {
		return nil
	}
	shown := tables
	if len(shown) > 3 {
		shown = append(slices.Clone(shown[:3]), "…")
	}
	return hinted(fmt.Sprintf("%s is another application's database, not a RigBench history (it holds the tables %s); RigBench left it unchanged",
		abs, strings.Join(shown, ", ")), "; ", HintOtherFile)
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

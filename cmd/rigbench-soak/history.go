package main

import (
	"bytes"
	"context"
	"database/sql"
	"fmt"
	"os"
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/store"
)

// history is what a history file holds after a trial.
type history struct {
	integrity string // "ok" or SQLite's complaint; "—" without a file
	status    string // the newest run's status, "—" without one
	cells     int    // cells of the newest run
}

// readHistory checks path with SQLite's integrity check, then opens it as
// RigBench does (which marks runs of dead processes interrupted) and reads
// the newest run.
func readHistory(path string) history {
	h := history{integrity: "—", status: "—"}
	if _, err := os.Stat(path); err != nil {
		return h
	}
	raw, err := sql.Open("sqlite", "file:"+path+"?_pragma=busy_timeout(5000)")
	if err != nil {
		h.integrity = err.Error()
		return h
	}
	var verdict string
	if err := raw.QueryRow("PRAGMA integrity_check").Scan(&verdict); err != nil {
		verdict = err.Error()
	}
	raw.Close()
	h.integrity = verdict
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		h.integrity = fmt.Sprintf("%s; open: %v", verdict, err)
		return h
	}
	defer db.Close()
	list, err := db.List(ctx, store.Filter{})
	if err != nil || len(list) == 0 {
		return h
	}
	r, err := db.Get(ctx, list[0].UUID)
	if err != nil {
		h.status = "unreadable: " + err.Error()
		return h
	}
	h.status = string(r.Status)
	h.cells = finishedCells(r)
	return h
}

// finishedCells counts the cells of r that have a status (finished ones).
func finishedCells(r *rundoc.Run) int {
	n := 0
	for _, c := range r.Cells {
		if c.Status != "" {
			n++
		}
	}
	return n
}

// jsonCells counts the finished cells of the run document at path (0 when
// there is none or it does not read).
func jsonCells(path string) int {
	f, err := os.Open(path)
	if err != nil {
		return 0
	}
	defer f.Close()
	r, err := rundoc.ReadRun(f)
	if err != nil {
		return 0
	}
	return finishedCells(r)
}

func itoa(n int) string { return strconv.Itoa(n) }

// newestRun reads the newest run of the history at path, opened as
// RigBench opens it.
func newestRun(path string) (*rundoc.Run, error) {
	ctx := context.Background()
	db, err := store.Open(ctx, path)
	if err != nil {
		return nil, err
	}
	defer db.Close()
	list, err := db.List(ctx, store.Filter{})
	if err != nil {
		return nil, err
	}
	if len(list) == 0 {
		return nil, fmt.Errorf("%s holds no run", path)
	}
	return db.Get(ctx, list[0].UUID)
}

// runText is the newest run of the history at path as its JSON document,
// to tell whether a command changed it ("" with the error when it does
// not read).
func runText(path string) (string, error) {
	r, err := newestRun(path)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if err := rundoc.WriteRun(&b, r); err != nil {
		return "", err
	}
	return b.String(), nil
}

// repeatedCells counts the cells of r beyond the first of their phase,
// context and concurrency: a history keeps each cell once.
func repeatedCells(r *rundoc.Run) int {
	seen, n := map[string]bool{}, 0
	for _, c := range r.Cells {
		if seen[c.Label()] {
			n++
		}
		seen[c.Label()] = true
	}
	return n
}

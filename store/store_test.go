package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"runtime"
	"strings"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/hardware"
)

func TestOpenSetsPragmasAndSchema(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	if v, err := userVersion(ctx, db.sql); err != nil || v != SchemaVersion {
		t.Errorf("user_version = %d, %v; want %d", v, err, SchemaVersion)
	}
	for pragma, want := range map[string]string{"journal_mode": "wal", "foreign_keys": "1", "synchronous": "1", "busy_timeout": "5000"} {
		var got string
		if err := db.sql.QueryRowContext(ctx, "PRAGMA "+pragma).Scan(&got); err != nil || got != want {
			t.Errorf("PRAGMA %s = %q, %v; want %q", pragma, got, err, want)
		}
	}
	// Windows has no mode bits for a folder (Go reports 0777): there the
	// user profile's ACL keeps the data folder private.
	if info, err := os.Stat(filepath.Dir(db.Path())); runtime.GOOS != "windows" && (err != nil || info.Mode().Perm() != 0o700) {
		t.Errorf("history folder mode = %v, %v; want 0700 (runs are private until shared)", info.Mode(), err)
	}
}

func TestSaveGetRoundTripEveryField(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	want := fullRun(t, 1)
	if err := db.SaveRun(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, want.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Get differs from the saved run:\n got %+v\nwant %+v", got, want)
	}
	// Saving again replaces, it does not duplicate.
	want.Cells = want.Cells[:1]
	want.Name = "renamed by save"
	if err := db.SaveRun(ctx, want); err != nil {
		t.Fatal(err)
	}
	got, err = db.Get(ctx, want.UUID[:8])
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Cells) != 1 || got.Name != "renamed by save" {
		t.Errorf("after re-save: %d cells, name %q", len(got.Cells), got.Name)
	}
	if n := countRows(t, db, "server_samples"); n != 2 {
		t.Errorf("server_samples rows = %d, want 2 (the replaced cell's samples removed)", n)
	}
}

func TestExportImportExportByteIdentical(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	a, b := openTemp(t), openTemp(t)
	if err := a.SaveRun(ctx, fullRun(t, 2)); err != nil {
		t.Fatal(err)
	}
	export := func(db *DB, id string) []byte {
		r, err := db.Get(ctx, id)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		if err := rundoc.WriteRun(&buf, r); err != nil {
			t.Fatal(err)
		}
		return buf.Bytes()
	}
	id := fullRun(t, 2).UUID
	first := export(a, id)
	run, err := rundoc.ReadRun(bytes.NewReader(first))
	if err != nil {
		t.Fatal(err)
	}
	inserted, err := b.Import(ctx, run)
	if err != nil || !inserted {
		t.Fatalf("Import = %v, %v; want inserted", inserted, err)
	}
	second := export(b, id)
	if !bytes.Equal(first, second) {
		t.Errorf("export → import → export differs:\n%s\n---\n%s", first, second)
	}
	// Idempotent by UUID: a second import changes nothing.
	run.Name = "changed"
	inserted, err = b.Import(ctx, run)
	if err != nil || inserted {
		t.Errorf("second Import = %v, %v; want not inserted", inserted, err)
	}
	if third := export(b, id); !bytes.Equal(third, second) {
		t.Error("a repeated import altered the stored run")
	}
	list, err := b.List(ctx, Filter{})
	if err != nil || len(list) != 1 || !list[0].Imported {
		t.Errorf("List after import = %+v, %v; want one run marked imported", list, err)
	}
}

func TestImportRejectsInvalidAndRunning(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	bad := fullRun(t, 3)
	bad.Cells[0].Status = "Great"
	if _, err := db.Import(ctx, bad); err == nil || !strings.Contains(err.Error(), `"Great"`) {
		t.Errorf("Import of a bad status: %v", err)
	}
	running := fullRun(t, 4)
	running.Status = rundoc.RunRunning
	running.FinishedAt = time.Time{}
	if _, err := db.Import(ctx, running); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, running.UUID)
	if err != nil || got.Status != rundoc.RunInterrupted {
		t.Errorf("imported running run has status %v, %v; want interrupted", got.Status, err)
	}
}

func TestGetByPrefix(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	r1, r2 := fullRun(t, 5), fullRun(t, 6)
	r1.UUID = "aaaa1111-0000-4000-8000-000000000001"
	r2.UUID = "aaaa2222-0000-4000-8000-000000000002"
	for _, r := range []*rundoc.Run{r1, r2} {
		if err := db.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	if got, err := db.Get(ctx, "AAAA1"); err != nil || got.UUID != r1.UUID {
		t.Errorf("Get(AAAA1) = %v, %v", got, err)
	}
	if _, err := db.Get(ctx, "aaaa"); !errors.Is(err, ErrAmbiguous) || !strings.Contains(err.Error(), "more characters") {
		t.Errorf("Get(aaaa) err = %v, want ambiguous", err)
	}
	if _, err := db.Get(ctx, "bbbb"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(bbbb) err = %v, want not found", err)
	}
	if _, err := db.Get(ctx, "a%*"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get(a%%*) err = %v, want not found (no wildcards)", err)
	}
}

func TestListFiltersAndHeadline(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	base := time.Date(2025, 6, 1, 0, 0, 0, 0, time.UTC)
	mk := func(seed int, gpu, model string, day int, tags ...string) *rundoc.Run {
		r := fullRun(t, seed)
		r.Rig.Name = map[string]string{"qwen3-8b": "ssh://basement", "llama-70b": "local"}[model]
		r.Hardware.GPUs = []hardware.GPU{{Name: gpu}}
		r.Server.Model = model
		r.CreatedAt = base.AddDate(0, 0, day)
		r.FinishedAt = r.CreatedAt.Add(time.Hour)
		r.Tags = tags
		r.Cells = []rundoc.Cell{
			{Phase: rundoc.PhasePrefill, Context: 8192, Concurrency: 1, Status: rundoc.StatusValid, PromptTokS: 2341},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 1, Status: rundoc.StatusValid, TotalTokS: 49.6},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 32, Status: rundoc.StatusValid, TotalTokS: 890.6},
			{Phase: rundoc.PhaseDecode, Context: 0, Concurrency: 64, Status: rundoc.StatusQueued, TotalTokS: 999},
		}
		if err := db.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
		return r
	}
	a := mk(10, "NVIDIA GeForce RTX 3060", "qwen3-8b", 0, "baseline")
	b := mk(11, "NVIDIA GeForce RTX 4090", "qwen3-8b", 1, "fp8", "baseline")
	c := mk(12, "NVIDIA GeForce RTX 3060", "llama-70b", 2)
	cases := []struct {
		name string
		f    Filter
		want []string
	}{
		{"all newest first", Filter{}, []string{c.UUID, b.UUID, a.UUID}},
		{"gpu", Filter{GPU: "3060"}, []string{c.UUID, a.UUID}},
		{"model", Filter{Model: "QWEN"}, []string{b.UUID, a.UUID}},
		{"tag", Filter{Tag: "baseline"}, []string{b.UUID, a.UUID}},
		{"rig", Filter{Rig: "BASEMENT"}, []string{b.UUID, a.UUID}},
		{"rig and gpu", Filter{Rig: "local", GPU: "3060"}, []string{c.UUID}},
		{"since until", Filter{Since: base.AddDate(0, 0, 1), Until: base.AddDate(0, 0, 2)}, []string{b.UUID}},
		{"limit", Filter{Limit: 1}, []string{c.UUID}},
		{"none", Filter{Tag: "nope"}, nil},
	}
	for _, tc := range cases {
		got, err := db.List(ctx, tc.f)
		if err != nil {
			t.Fatal(err)
		}
		var ids []string
		for _, s := range got {
			ids = append(ids, s.UUID)
		}
		if !reflect.DeepEqual(ids, tc.want) {
			t.Errorf("%s: got %v, want %v", tc.name, ids, tc.want)
		}
	}
	got, _ := db.List(ctx, Filter{Limit: 1})
	s := got[0]
	if s.BestDecodeTokS != 890.6 || s.Prefill8KTokS != 2341 || s.Cells != 4 || s.GPU != "NVIDIA GeForce RTX 3060" ||
		s.Model != "llama-70b" || s.Status != rundoc.RunComplete || !s.Simulated || s.Imported || s.Flags == "" || s.Rig != "local" {
		t.Errorf("summary = %+v", s)
	}
}

func TestEditAndDelete(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	r := fullRun(t, 20)
	if err := db.SaveRun(ctx, r); err != nil {
		t.Fatal(err)
	}
	id := r.UUID[:6]
	if err := db.Rename(ctx, id, "  tuned  "); err != nil {
		t.Fatal(err)
	}
	if err := db.SetTags(ctx, id, []string{"b", " a", "", "b"}); err != nil {
		t.Fatal(err)
	}
	if err := db.SetNotes(ctx, id, "line 1\nline 2"); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if got.Name != "tuned" || !reflect.DeepEqual(got.Tags, []string{"b", "a"}) || got.Notes != "line 1\nline 2" {
		t.Errorf("after edits: name %q tags %q notes %q", got.Name, got.Tags, got.Notes)
	}
	// Edits meet the limits an import applies (issue 12 #7: 70 tags were
	// saved that import then refused).
	many := make([]string, rundoc.MaxTags+6)
	for i := range many {
		many[i] = fmt.Sprint("t", i)
	}
	for _, err := range []error{
		db.Rename(ctx, id, strings.Repeat("n", 300)), db.SetTags(ctx, id, many),
		db.SetTags(ctx, id, []string{strings.Repeat("t", 80)}), db.SetNotes(ctx, id, strings.Repeat("x", 70<<10)),
	} {
		if err == nil || !strings.Contains(err.Error(), "at most") {
			t.Errorf("an edit over a limit: %v", err)
		}
	}
	if err := db.SetTags(ctx, id, nil); err != nil {
		t.Fatal(err)
	}
	if got, _ := db.Get(ctx, id); got.Tags != nil {
		t.Errorf("tags after clearing = %q", got.Tags)
	}
	if err := db.Delete(ctx, id); err != nil {
		t.Fatal(err)
	}
	if _, err := db.Get(ctx, r.UUID); !errors.Is(err, ErrNotFound) {
		t.Errorf("Get after Delete: %v", err)
	}
	for _, table := range []string{"runs", "cells", "server_samples", "gpu_samples"} {
		if n := countRows(t, db, table); n != 0 {
			t.Errorf("%s has %d rows after Delete, want 0 (cascade)", table, n)
		}
	}
	if err := db.Rename(ctx, id, "x"); !errors.Is(err, ErrNotFound) {
		t.Errorf("Rename of a deleted run: %v", err)
	}
}

func TestRecorderWritesEachCell(t *testing.T) {
	t.Parallel()
	db := openTemp(t)
	ctx := context.Background()
	full := fullRun(t, 30)
	run := *full
	run.Status, run.Cells, run.FinishedAt = rundoc.RunRunning, nil, time.Time{}
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: &run})
	if got, err := db.Get(ctx, run.UUID); err != nil || got.Status != rundoc.RunRunning || len(got.Cells) != 0 {
		t.Fatalf("after RunStarted: %+v, %v", got, err)
	}
	for i := range full.Cells {
		run.Cells = append(run.Cells, full.Cells[i])
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellProgress, Run: &run, Cell: &full.Cells[i]})
		rec.Observe(rundoc.Event{Kind: rundoc.EventCellDone, Run: &run, Cell: &full.Cells[i], Index: i})
		got, err := db.Get(ctx, run.UUID)
		if err != nil || len(got.Cells) != i+1 || !reflect.DeepEqual(got.Cells[i], full.Cells[i]) {
			t.Fatalf("after cell %d: %d cells, %v", i, len(got.Cells), err)
		}
	}
	// The user renames the run while it runs; finishing keeps the name.
	if err := db.Rename(ctx, run.UUID, "mine"); err != nil {
		t.Fatal(err)
	}
	done := run
	done.Status, done.FinishedAt = rundoc.RunCancelled, full.FinishedAt
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &done})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	got, err := db.Get(ctx, run.UUID)
	if err != nil {
		t.Fatal(err)
	}
	if got.Status != rundoc.RunCancelled || !got.FinishedAt.Equal(full.FinishedAt) || got.Name != "mine" || len(got.Cells) != len(full.Cells) {
		t.Errorf("after RunDone: status %s finished %v name %q cells %d", got.Status, got.FinishedAt, got.Name, len(got.Cells))
	}
}

func TestOpenMarksOrphanedRunsInterrupted(t *testing.T) {
	t.Parallel()
	path := filepath.Join(t.TempDir(), "h.db")
	ctx := context.Background()
	db, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	orphan, live := fullRun(t, 40), fullRun(t, 41)
	for _, r := range []*rundoc.Run{orphan, live} {
		r.Status = rundoc.RunRunning
	}
	if err := db.SaveRun(ctx, orphan); err != nil { // recorder_pid 0: nobody records it
		t.Fatal(err)
	}
	rec := db.Recorder() // this process records live
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: live})
	db2, err := Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	defer db2.Close()
	for _, tc := range []struct {
		r    *rundoc.Run
		want rundoc.RunStatus
	}{{orphan, rundoc.RunInterrupted}, {live, rundoc.RunRunning}} {
		got, err := db2.Get(ctx, tc.r.UUID)
		if err != nil || got.Status != tc.want || len(got.Cells) != len(tc.r.Cells) {
			t.Errorf("run %s: status %v, %d cells, %v; want %s with %d cells", tc.r.UUID[:8], got.Status, len(got.Cells), err, tc.want, len(tc.r.Cells))
		}
	}
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &rundoc.Run{UUID: live.UUID, Status: rundoc.RunComplete}})
	db.Close()
}

// A run that ends before it starts (the server could not be reached, the
// key was refused) measured nothing: the recorder keeps no row for it, and
// a run that did start keeps its row even when it failed.
func TestRecorderSkipsRunsThatNeverStarted(t *testing.T) {
	ctx := context.Background()
	db := openTemp(t)
	rec := db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &rundoc.Run{UUID: "6f9a1c2e-0000-4000-8000-000000000001", Status: rundoc.RunFailed, Error: "unreachable"}})
	if err := rec.Err(); err != nil {
		t.Fatal(err)
	}
	if n := countRows(t, db, "runs"); n != 0 || rec.Saved() {
		t.Errorf("%d runs stored (Saved %v) for a run that never started", n, rec.Saved())
	}
	run := &rundoc.Run{UUID: "6f9a1c2e-0000-4000-8000-000000000002", Status: rundoc.RunRunning}
	rec = db.Recorder()
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunStarted, Run: run})
	failed := *run
	failed.Status, failed.Error = rundoc.RunFailed, "2 cells failed in a row"
	rec.Observe(rundoc.Event{Kind: rundoc.EventRunDone, Run: &failed})
	if !rec.Saved() {
		t.Error("Saved is false for a run that started")
	}
	if got, err := db.Get(ctx, run.UUID); err != nil || got.Status != rundoc.RunFailed || got.Error != failed.Error {
		t.Errorf("a started run that failed: %+v, %v; want it kept as failed with its error", got, err)
	}
}

func countRows(t testing.TB, db *DB, table string) int {
	t.Helper()
	var n int
	if err := db.sql.QueryRow("SELECT count(*) FROM " + table).Scan(&n); err != nil {
		t.Fatal(err)
	}
	return n
}

func TestSummaryCodecRoundTrip(t *testing.T) {
	t.Parallel()
	want := Summary{UUID: "u", Name: "n", Tags: []string{"a", "b"}, CreatedAt: time.Unix(0, 1_760_000_000_123_456_789).UTC(),
		Status: rundoc.RunCancelled, Origin: "measured", Imported: true, Simulated: true, GPU: "g", Model: "m", Engine: "e",
		EngineVersion: "v", Flags: "--x 1", Cells: 61, BestDecodeTokS: 890.6, Prefill8KTokS: 2341.25}
	line := encodeSummary(&want)
	for _, in := range []interner{nil, {}} {
		got, err := decodeSummary(line, in)
		if err != nil || !reflect.DeepEqual(got, want) {
			t.Errorf("decode(encode(s)) = %+v, %v; want %+v", got, err, want)
		}
	}
	// Every truncation and a wrong format byte are errors, not panics.
	for i := 0; i < len(line); i++ {
		if _, err := decodeSummary(line[:i], nil); err == nil {
			t.Fatalf("a line cut at %d bytes decoded", i)
		}
	}
	bad := append([]byte{summaryFormat + 1}, line[1:]...)
	if _, err := decodeSummary(bad, nil); err == nil {
		t.Error("a line of another format decoded")
	}
}

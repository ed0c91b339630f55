package store

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Issue 41 minor 14: the history gives a new run's name the newest run of
// the same model's launch arguments, the model matched exactly (a model
// whose id contains it is another model), and nothing for a model it has
// not launched.
func TestPreviousArgsIsTheNewestRunOfTheModel(t *testing.T) {
	db := openTemp(t)
	ctx := context.Background()
	base := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	save := func(seed int, model string, at time.Time, args ...string) {
		r := fullRun(t, seed)
		r.CreatedAt, r.FinishedAt = at, at.Add(time.Minute)
		r.Server.Model = model
		r.Launch.Model, r.Launch.Args = model, args
		if err := db.SaveRun(ctx, r); err != nil {
			t.Fatal(err)
		}
	}
	save(61, "agents/a1-4b-fp8", base, "--max-num-seqs", "16")
	save(62, "agents/a1-4b-fp8", base.Add(time.Hour), "--max-num-seqs", "64")
	save(63, "agents/a1-4b-fp8-long", base.Add(2*time.Hour), "--enforce-eager")
	if args, ok := db.PreviousArgs(ctx, "agents/a1-4b-fp8"); !ok || !slices.Equal(args, []string{"--max-num-seqs", "64"}) {
		t.Errorf("previous run of agents/a1-4b-fp8: %q, %v; want the newest one's --max-num-seqs 64", args, ok)
	}
	if args, ok := db.PreviousArgs(ctx, "qwen/other"); ok {
		t.Errorf("a model never launched has previous arguments %q", args)
	}
	if args, ok := db.Recorder().PreviousArgs("agents/a1-4b-fp8-long"); !ok || !slices.Equal(args, []string{"--enforce-eager"}) {
		t.Errorf("through the recorder: %q, %v", args, ok)
	}
}

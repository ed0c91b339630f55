package session_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/sim"
	"github.com/rigbench/rigbench/engine/vllm"
)

// TestResumeRefusesAnotherLaunch: `run --resume ID --demo -- --max-num-seqs
// 2` on a run measured at vLLM's defaults measured the missing cells at 2
// and the run then said every cell had it (issue 36 item 5). A resume with
// other launch flags, another simulator speed, image or model is refused
// before anything starts, naming the difference, and the run is left as it
// was; the same launch resumes.
func TestResumeRefusesAnotherLaunch(t *testing.T) {
	ctx := context.Background()
	cfg := sim.DefaultConfig()
	p, _ := sim.ProfileByName("tiny")
	cfg.Profile, cfg.Speed = p, 10
	run, err := session.Run(ctx, session.Options{Kind: session.Demo, Sim: cfg, Plan: tinyPlan, Hardware: noGPU})
	if err != nil {
		t.Fatal(err)
	}
	// Its last cell is left to measure, as after a server that died.
	last := &run.Cells[len(run.Cells)-1]
	last.Status, last.Reason = rundoc.StatusFailed, "the server stopped answering"
	was := *last

	fast := cfg
	fast.Speed = 20
	for _, tc := range []struct {
		name   string
		o      session.Options
		want   []string
		field  string
		starts bool
	}{
		{"other flags", session.Options{Kind: session.Demo, Sim: cfg,
			SimLaunch: &rundoc.Launch{Model: p.Model, Args: []string{"--max-num-seqs", "2"}}},
			[]string{"vLLM's defaults", "'--max-num-seqs 2'"}, "launch flags", false},
		{"other speed", session.Options{Kind: session.Demo, Sim: fast}, []string{"10×", "20×"}, "simulator speed", false},
		{"another image", session.Options{Kind: session.Launch,
			Launcher: &session.DockerLauncher{Config: vllm.LaunchConfig{Image: "vllm/vllm-openai", Tag: "v0.11.0", Model: p.Model}}},
			[]string{"vllm/vllm-openai:v0.11.0"}, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tc.o.Resume, tc.o.Hardware = run, noGPU
			_, err := session.Run(ctx, tc.o)
			var le *session.ResumeLaunchError
			if !errors.As(err, &le) {
				t.Fatalf("err = %v, want a *ResumeLaunchError", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) && !strings.Contains(le.Was+le.Now, w) {
					t.Errorf("%q does not name %q", err, w)
				}
			}
			if tc.field != "" && le.Field != tc.field {
				t.Errorf("field %q, want %q", le.Field, tc.field)
			}
			if c := run.Cells[len(run.Cells)-1]; c.Status != was.Status || c.Reason != was.Reason {
				t.Errorf("the refused resume changed the run's cell: %s (%s)", c.Status, c.Reason)
			}
		})
	}
	resumed, err := session.Run(ctx, session.Options{Kind: session.Demo, Sim: cfg, Resume: run, Hardware: noGPU})
	if err != nil {
		t.Fatalf("the same launch does not resume: %v", err)
	}
	if c := resumed.Cells[len(resumed.Cells)-1]; !c.Status.Ran() {
		t.Errorf("the resumed cell is %s (%s), want measured", c.Status, c.Reason)
	}
}

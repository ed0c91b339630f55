package session

import (
	"fmt"
	"slices"
	"strconv"

	"github.com/rigbench/rigbench/engine/rundoc"
	"github.com/rigbench/rigbench/engine/vllm"
)

// ResumeLaunchError refuses to resume a run with a launch other than the
// one that measured its kept cells: the run would then say every cell had
// the new flags (issue 36 item 5: `--resume ID --demo -- --max-num-seqs 2`
// on a run at vLLM's defaults measured the rest at 2 and relabelled the
// old cells).
type ResumeLaunchError struct {
	// Field names what differs ("launch flags", "image", "model",
	// "simulator speed"); Was and Now are its values as a user reads them.
	Field, Was, Now string
}

func (e *ResumeLaunchError) Error() string {
	return fmt.Sprintf("the run measured its cells with %s %s, not %s: resume it with the same settings, or start a new run",
		e.Field, e.Was, e.Now)
}

// plannedLaunch is the launch a session is about to measure with, as the
// run will record it, where it is known before anything starts: the
// demo's flags, or a Docker launch's configuration. ok is false for a
// launcher that says only once it has started (a reused server).
func plannedLaunch(o Options) (l *rundoc.Launch, ok bool) {
	switch o.Kind {
	case Demo:
		return o.SimLaunch, true
	case Launch:
		if d, isDocker := o.Launcher.(*DockerLauncher); isDocker {
			rec := d.Config.Record()
			return &rec, true
		}
	case Endpoint, "":
		return nil, true
	}
	return nil, false
}

// checkResumeLaunch compares the launch a resumed run recorded with the
// one about to measure the rest: the image, the model and the vLLM
// arguments (both without secrets) must be the same, and for the demo its
// speed (simSpeed; 0 where the session is no demo), which the runner
// converts every figure by. A run measured
// against an endpoint has no launch to compare; the runner still checks
// its server (model, engine, version, max_model_len).
func checkResumeLaunch(was *rundoc.Run, now *rundoc.Launch, simSpeed float64) error {
	if simSpeed > 0 && (was.Simulated || was.Plan.SimSpeed > 1) {
		if w, n := speedOf(was.Plan.SimSpeed), speedOf(simSpeed); w != n {
			return &ResumeLaunchError{Field: "simulator speed", Was: w, Now: n}
		}
	}
	old := was.Launch
	if old == nil && now == nil {
		return nil
	}
	if wi, ni := imageOf(old), imageOf(now); wi != ni {
		return &ResumeLaunchError{Field: "image", Was: wi, Now: ni}
	}
	if old != nil && now != nil {
		if old.Model != "" && now.Model != "" && old.Model != now.Model {
			return &ResumeLaunchError{Field: "model", Was: old.Model, Now: now.Model}
		}
	}
	var oldArgs, newArgs []string
	if old != nil {
		oldArgs = old.Args
	}
	if now != nil {
		newArgs = now.Args
	}
	if !slices.Equal(vllm.RedactArgs(oldArgs), vllm.RedactArgs(newArgs)) {
		return &ResumeLaunchError{Field: "launch flags", Was: argsText(oldArgs), Now: argsText(newArgs)}
	}
	return nil
}

// speedOf words a simulator speed ("1×" for a real-time one).
func speedOf(s float64) string {
	if s <= 1 {
		s = 1
	}
	return strconv.FormatFloat(s, 'f', -1, 64) + "×"
}

// argsText words an argument list for the refusal.
func argsText(args []string) string {
	if len(args) == 0 {
		return "vLLM's defaults"
	}
	return "'" + vllm.JoinArgs(vllm.RedactArgs(args)) + "'"
}

// demoSpeed is the demo's simulator speed (1 for the zero config), 0 for
// any other session.
func demoSpeed(o Options) float64 {
	if o.Kind != Demo {
		return 0
	}
	return max(o.Sim.Speed, 1)
}

// imageOf words the image a launch ran, or says there was none.
func imageOf(l *rundoc.Launch) string {
	if l == nil || l.Image == "" {
		return "none (the demo, or a server RigBench did not start)"
	}
	return l.Image
}

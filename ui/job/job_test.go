package job

import (
	"context"
	"testing"
)

func TestJobLifecycle(t *testing.T) {
	var j Job
	select {
	case <-j.Done():
	default:
		t.Fatal("an idle job's Done is not closed")
	}
	if j.Running() || j.Cancel() {
		t.Fatal("an idle job runs or cancels")
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := j.Begin(cancel)
	if !j.Running() {
		t.Fatal("a begun job does not run")
	}
	select {
	case <-j.Done():
		t.Fatal("Done closed before the job returned")
	default:
	}
	if !j.Cancel() || ctx.Err() == nil {
		t.Fatal("Cancel did not cancel the job's context")
	}
	j.End()
	close(done)
	if j.Running() {
		t.Error("an ended job still runs")
	}
	<-j.Done()
}

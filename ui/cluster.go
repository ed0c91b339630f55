package ui

import (
	"context"

	"github.com/rigbench/rigbench/engine/docker"
	"github.com/rigbench/rigbench/engine/session"
	"github.com/rigbench/rigbench/engine/vllm"
	"github.com/rigbench/rigbench/ui/launchview"
)

// clusterLaunch is the Launch view's cluster launcher: the same target
// input the CLI's `launch --rigs` fills (session.TargetInput.Cluster), read
// by the one constructor into the one ClusterLauncher, with the view's
// progress bar and log pane as observers added to base (tests: no GPU
// request, the environment that reaches their rigs).
func clusterLaunch(base session.Launching) launchview.ClusterLaunchFunc {
	return func(ctx context.Context, cfg vllm.LaunchConfig, in session.ClusterInput, p launchview.Progress) (*session.Server, error) {
		how := base
		if p.Pull != nil {
			how.Pull = func(pp docker.PullProgress) { p.Pull(pp.Bytes, pp.BytesTotal) }
		}
		o, err := session.TargetInput{Kind: session.Launch, Launch: cfg, Cluster: in}.Options(how)
		if err != nil {
			return nil, err
		}
		return o.Launcher.Launch(ctx, p.Log)
	}
}

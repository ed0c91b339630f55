package tune

import (
	"context"
	"fmt"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/cluster"
)

// checkCluster refuses a sweep over several rigs that cannot run: on the
// demo or with a single rig as well, rigs that do not read, or a variant
// whose --pipeline-parallel-size is not the rigs' count (engine/cluster's
// sentence, naming the variant), before any variant starts. A TP the rigs'
// GPUs cannot give is known only once each rig is read: checkSplits reads
// them when the sweep starts, before its first variant.
func (s Spec) checkCluster() error {
	if s.Target != TargetLaunch || strings.TrimSpace(s.Rig) != "" {
		return fmt.Errorf("sweep %s runs over the rigs %s: only a launch sweep does, and without a single --rig", s.ID, s.Cluster.Rigs)
	}
	specs, err := cluster.ParseRigs(s.Cluster.Rigs)
	if err != nil {
		return err
	}
	for _, v := range s.Variants() {
		pp := 0
		if t, ok := v.Config.Get("--pipeline-parallel-size"); ok {
			pp, _ = strconv.Atoi(strings.TrimSpace(t))
		}
		if err := cluster.CheckPP(pp, len(specs)); err != nil {
			return fmt.Errorf("the variant %s: %w", v.Label(), err)
		}
	}
	return nil
}

// checkSplits reads a cluster sweep's rigs once, before its first variant
// launches, and refuses the sweep when a variant asks for a split they
// cannot give (cluster.CheckSplit: a TP over the GPUs of the rig with the
// fewest), naming the variant: without it that variant would fail at its
// own launch, after the variants before it had run.
func (r *Runner) checkSplits(ctx context.Context, logf func(string)) error {
	d, ok := r.Target.(Docker)
	if !ok || d.Cluster == nil {
		return nil
	}
	logf("Reading the GPUs of the sweep's rigs before its first variant…")
	rigs, err := d.Cluster.ReadRigs(ctx, r.Spec.Base, d.Launching)
	if err != nil {
		return fmt.Errorf("sweep %s could not read its rigs before starting: %w", r.Spec.ID, err)
	}
	for _, v := range r.Spec.Variants() {
		if err := cluster.CheckSplit(v.Config, rigs); err != nil {
			return fmt.Errorf("the variant %s: %w", v.Label(), err)
		}
	}
	return nil
}

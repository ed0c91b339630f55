package session

// A cluster's GPUs read as one machine's: every rig's, numbered rig after
// rig, so the run's energy is the sum over every GPU that served it.

import (
	"context"
	"fmt"
	"sync"

	"github.com/rigbench/rigbench/hardware"
)

// clusterHardware is the rigs' snapshots as one: the head's machine facts
// (CPU, memory, OS, driver), and every rig's GPUs and topology, the head's
// first, each rig's renumbered after the GPUs of the rigs before it (rig
// i's GPU j is index Σ gpus[:i] + j). gpus is how many each rig gave, which
// the run document keeps (rundoc.Cluster.GPUs) so a GPU's rig is known.
func clusterHardware(rigs []*clusterRig) (snap hardware.Snapshot, gpus []int) {
	snap = rigs[0].hw
	snap.GPUs, snap.Topology = nil, nil
	for _, r := range rigs {
		off := len(snap.GPUs)
		for _, g := range r.hw.GPUs {
			g.Index += off
			snap.GPUs = append(snap.GPUs, g)
		}
		for _, l := range r.hw.Topology {
			l.A, l.B = l.A+off, l.B+off
			snap.Topology = append(snap.Topology, l)
		}
		if r.hw.GPUAbsentReason != "" && snap.GPUAbsentReason == "" {
			snap.GPUAbsentReason = fmt.Sprintf("rig %s: %s", r.name, r.hw.GPUAbsentReason)
		}
		gpus = append(gpus, len(r.hw.GPUs))
	}
	if len(snap.GPUs) > 0 {
		snap.GPUAbsentReason = ""
	}
	return snap, gpus
}

// clusterReadings reads every rig's GPUs at once, with nvidia-smi in its
// node's container through the rig's own connection (as a single rig's
// run reads its server's), and numbers them as clusterHardware does, so a
// window's energy sums every rig's GPUs. A reading fails when any rig's
// does: a window missing a rig would read the energy low, and say nothing.
func clusterReadings(ctx context.Context, rigs []*clusterRig) (read func() ([]hardware.GPUSample, error), energy func() bool) {
	reads := make([]func() ([]hardware.GPUSample, error), len(rigs))
	energies := make([]func() bool, len(rigs))
	for i, r := range rigs {
		reads[i], energies[i] = rigReadings(ctx, r.conn, r.node.Exec)
	}
	read = func() ([]hardware.GPUSample, error) {
		got := make([][]hardware.GPUSample, len(rigs))
		errs := make([]error, len(rigs))
		var wg sync.WaitGroup
		for i := range rigs {
			wg.Add(1)
			go func() {
				defer wg.Done()
				got[i], errs[i] = reads[i]()
			}()
		}
		wg.Wait()
		var all []hardware.GPUSample
		for i, r := range rigs {
			if errs[i] != nil {
				return nil, fmt.Errorf("rig %s: %w", r.name, errs[i])
			}
			off := 0
			for _, o := range rigs[:i] {
				off += len(o.hw.GPUs)
			}
			for _, s := range got[i] {
				s.GPU += off
				all = append(all, s)
			}
		}
		return all, nil
	}
	energy = func() bool {
		for _, e := range energies {
			if !e() {
				return false
			}
		}
		return true
	}
	return read, energy
}

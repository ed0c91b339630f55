package cluster

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/rigbench/rigbench/engine/vllm"
)

// CheckPP refuses a pipeline-parallel size pp (0: not given) other than
// the cluster's count of rigs: a cluster runs one stage a rig. A tune
// sweep over rigs checks each variant with it before anything starts.
func CheckPP(pp, rigs int) error {
	if pp > 0 && pp != rigs {
		return fmt.Errorf("%w: PP %d is refused: a cluster runs one pipeline stage a rig, so PP is its %d rigs (give %d rigs with --rigs, or leave --pipeline-parallel-size out)",
			ErrPlan, pp, rigs, pp)
	}
	return nil
}

// asked is the split the launch's own flags ask for
// (--tensor-parallel-size, --pipeline-parallel-size; 0 where a flag is not
// given), checked against the rigs: P is one pipeline stage a rig, so it
// must be the rigs' count; T is each node's GPUs, so it must fit the rig
// with the fewest (vLLM wants the same on every node), and a T larger than
// that would put tensor-parallel groups across rigs, which Propose refuses
// as it refuses that split among the others. t is the GPUs each rig can
// give. A tune sweep varies the split through these flags.
func asked(c vllm.LaunchConfig, rigs []Rig, t int) (tp, pp int, err error) {
	read := func(flag string) (int, error) {
		v, ok := c.Get(flag)
		if !ok || strings.TrimSpace(v) == "" {
			return 0, nil
		}
		n, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil || n < 1 {
			return 0, fmt.Errorf("%w: %s %q is not a whole number of 1 or more", ErrPlan, flag, v)
		}
		return n, nil
	}
	if tp, err = read("--tensor-parallel-size"); err != nil {
		return 0, 0, err
	}
	if pp, err = read("--pipeline-parallel-size"); err != nil {
		return 0, 0, err
	}
	if err := CheckPP(pp, len(rigs)); err != nil {
		return 0, 0, err
	}
	if tp > t {
		fewest := rigs[0]
		for _, r := range rigs {
			if r.GPUs < fewest.GPUs {
				fewest = r
			}
		}
		return 0, 0, fmt.Errorf("%w: TP %d is refused: rig %s gives %d GPU(s), and vLLM needs the same on every node, so TP %d would put tensor-parallel groups across rigs, and two all-reduces a layer would cross the network every step (give TP %d or less)",
			ErrPlan, tp, fewest.Name, fewest.GPUs, tp, t)
	}
	return tp, pp, nil
}

// CheckSplit refuses a launch whose flags ask for a split the rigs cannot
// give, by the rules Propose plans with (asked): PP is the rigs' count, TP
// at most the GPUs of the rig with the fewest. A rig whose GPUs are not
// known (0) is taken to have as many as the fewest known, and the launch
// checks it when it reads the rig. A tune sweep over rigs checks every
// variant with it before the first starts, so a split the rigs refuse
// does not wait behind the variants before it.
func CheckSplit(c vllm.LaunchConfig, rigs []Rig) error {
	t := 0
	for _, r := range rigs {
		if r.GPUs > 0 && (t == 0 || r.GPUs < t) {
			t = r.GPUs
		}
	}
	if t == 0 {
		t = 1 << 10 // none known: only PP is checked here
	}
	// The read rigs first, so a refusal names one whose GPUs were read
	// (asked names the first rig with the fewest).
	var known, unread []Rig
	for _, r := range rigs {
		if r.GPUs <= 0 {
			r.GPUs = t
			unread = append(unread, r)
			continue
		}
		known = append(known, r)
	}
	_, _, err := asked(c, append(known, unread...), t)
	return err
}

package cluster

import (
	"fmt"
	"strings"
)

// RigFacts is what was read on one rig before the cluster starts.
type RigFacts struct {
	// Rig is the rig's name.
	Rig string
	// ImageID is the image's ID (its content digest) on the rig, "" when
	// the image is not there.
	ImageID string
	// GPUs is how many GPUs the rig has; FreeGPUs how many no other
	// RigBench server holds.
	GPUs, FreeGPUs int
	// Probed is true once the head's Ray port was tried from this rig;
	// Reach is the failure then (nil: reached).
	Probed bool
	Reach  error
}

// Problem is a check that failed, in one sentence with the fix.
type Problem struct {
	// Check is "image", "gpus", "reach" or "model"; Rig the rig it
	// concerns.
	Check, Rig string
	// Sentence says what is wrong and what to do.
	Sentence string
}

func (p Problem) Error() string { return p.Sentence }

// Check judges the facts of every rig against the plan: the same image
// (by digest) on every rig, the GPUs each node needs free on every rig,
// and the head's Ray port reached from every worker. It returns the
// problems, none when the cluster may start.
func Check(p Plan, facts []RigFacts) []Problem {
	var out []Problem
	head := ""
	if len(facts) > 0 {
		head = facts[0].ImageID
	}
	for i, f := range facts {
		switch {
		case f.ImageID == "":
			out = append(out, Problem{"image", f.Rig, fmt.Sprintf("rig %s does not have the image %s: pull it there (RigBench pulls it when you start)", f.Rig, p.Image)})
		case f.ImageID != head && head != "":
			out = append(out, Problem{"image", f.Rig, fmt.Sprintf("rig %s has a different build of %s (%s) than the head %s (%s): every node must run the same image, so pull the same tag on both (`docker pull %s`), or name the image by digest",
				f.Rig, p.Image, shortID(f.ImageID), facts[0].Rig, shortID(head), p.Image)})
		}
		need := p.Split.TP
		switch {
		case f.GPUs == 0:
			out = append(out, Problem{"gpus", f.Rig, fmt.Sprintf("rig %s has no GPU RigBench can use (nvidia-smi in the image found none): install the NVIDIA driver and container toolkit there, or leave the rig out", f.Rig)})
		case f.FreeGPUs < need:
			out = append(out, Problem{"gpus", f.Rig, fmt.Sprintf("rig %s has %d free GPU(s) and its node needs %d: stop the other RigBench server there (or let its run finish) and start again", f.Rig, f.FreeGPUs, need)})
		}
		if i > 0 && f.Probed && f.Reach != nil {
			out = append(out, Problem{"reach", f.Rig, fmt.Sprintf("rig %s cannot reach the head's Ray port at %s (%v): open port %d on the head's firewall, check the head's address, or name the interface both rigs share with --interface",
				f.Rig, p.HeadAddress, OneLine(f.Reach), p.RayPort)})
		}
	}
	return out
}

// shortID is an image ID's first 12 hex digits, as `docker images` shows.
func shortID(id string) string {
	id = strings.TrimPrefix(id, "sha256:")
	if len(id) > 12 {
		return id[:12]
	}
	return id
}

// OneLine is an error's first line (at most 200 bytes), for a sentence
// about a rig: a remote command's error may carry its whole output.
func OneLine(err error) string { return firstLine(err.Error()) }

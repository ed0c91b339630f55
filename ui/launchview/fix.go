package launchview

import (
	"slices"
	"strconv"

	"github.com/rigbench/rigbench/engine/vllm"
)

// fixFor returns the one-click fix of a recognised start-up failure as a
// change to the configuration, with the button's label; ok is false when
// the failure has no change RigBench can make (a gated model needs a
// token, not a flag).
func fixFor(e *vllm.StartupError, c vllm.LaunchConfig) (label string, fixed vllm.LaunchConfig, ok bool) {
	switch {
	case e.SuggestedMaxModelLen > 0:
		c.Set("--max-model-len", strconv.Itoa(e.SuggestedMaxModelLen))
		return "Use --max-model-len " + strconv.Itoa(e.SuggestedMaxModelLen), c, true
	case e.SuggestedGPUMemoryUtilization > 0:
		v := strconv.FormatFloat(e.SuggestedGPUMemoryUtilization, 'f', 2, 64)
		c.Set("--gpu-memory-utilization", v)
		return "Use --gpu-memory-utilization " + v, c, true
	case e.Kind == vllm.ErrTrustRemoteCode:
		c.Set("--trust-remote-code", "true")
		return "Turn on --trust-remote-code", c, true
	case e.Kind == vllm.ErrUnknownArgument && e.Argument != "":
		if _, set := c.Get(e.Argument); set {
			c.Unset(e.Argument)
		} else {
			c.Extra = dropArg(c.Extra, e.Argument)
		}
		return "Remove " + e.Argument, c, true
	}
	return "", c, false
}

// dropArg removes arg (and its value, when the next word is not a flag)
// from an argument list.
func dropArg(args []string, arg string) []string {
	i := slices.Index(args, arg)
	if i < 0 {
		return args
	}
	j := i + 1
	if j < len(args) && len(args[j]) > 0 && args[j][0] != '-' {
		j++
	}
	return slices.Delete(slices.Clone(args), i, j)
}

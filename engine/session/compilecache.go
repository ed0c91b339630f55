package session

import (
	"github.com/rigbench/rigbench/engine/rig"
)

// RigCompileCache is the compile cache folder a launch on a rig reached
// over SSH mounts unless the user names one: RigBench's data folder in the
// rig user's home, as the history's is on this machine. "~" is expanded on
// the rig, with the home its connection reports (RigOptions); this
// machine's own folder would name a path the rig's disk does not hold, and
// its daemon would make it there as root.
const RigCompileCache = "~/.local/share/rigbench/compile-cache"

// DefaultCompileCache is the compile cache folder a launch on the rig named
// rigName mounts unless the user names one: here (this machine's folder,
// store.CompileCacheDir) for this machine's daemon or a context that does
// not go through SSH, RigCompileCache for a rig reached over SSH. A name
// that does not parse gets here: the launch refuses it anyway, in its own
// sentence. Both front ends call it, so `launch --rig`, `run --launch
// --rig`, tune and the app's Launch tab mount the same folder.
func DefaultCompileCache(rigName string, o rig.Options, here string) string {
	s, err := rig.Parse(rigName)
	if err != nil || !s.OverSSH(o) {
		return here
	}
	return RigCompileCache
}

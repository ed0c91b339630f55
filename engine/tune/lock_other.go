//go:build !unix && !windows

package tune

import "os"

// lockFile does not lock where neither flock(2) nor LockFileEx exists
// (Plan 9, WebAssembly): two resumes of one sweep at once would both
// measure the variants not yet in the history (wasted time, no lost data:
// each is its own run). RigBench ships for Linux, macOS and Windows only.
func lockFile(*os.File) error { return nil }

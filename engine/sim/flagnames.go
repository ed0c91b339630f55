package sim

import "sort"

// FlagNames are the flags ParseArgs acts on (vLLM's that change the
// simulated server, llama-server's, and the simulator's own: profile,
// speed, faults), sorted, so `rigbench-cli sim --help` lists every one it
// accepts from the table that parses them. vLLM flags it accepts and
// ignores are not listed.
func FlagNames() []string {
	names := make([]string, 0, len(simFlags))
	for n := range simFlags {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

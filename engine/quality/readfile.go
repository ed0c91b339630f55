package quality

import (
	"fmt"
	"os"
)

// ReadFile reads a saved result from path: RigBench's rigbench.quality/v1
// or the seed tool's completion-stats report (Read). Its errors are one
// sentence naming the file, in the CLI's --baseline and the app's Baseline
// file… alike.
func ReadFile(path string) (*Result, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("cannot read %s (%v): give a file that `rigbench-cli quality --json` or %s wrote", path, err, SeedTool)
	}
	defer f.Close()
	r, err := Read(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return r, nil
}

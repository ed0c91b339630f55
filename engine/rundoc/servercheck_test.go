package rundoc_test

import (
	"strings"
	"testing"

	"github.com/rigbench/rigbench/engine/rundoc"
)

// Import refuses server facts and cell checks no RigBench writes.
func TestValidateServerFactsAndChecks(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		edit       func(r *rundoc.Run)
	}{
		{"unknown personality", "server.personality", func(r *rundoc.Run) { r.Server.Personality = "ollama?" }},
		{"negative slots", "server.slots", func(r *rundoc.Run) { r.Server.Slots = -1 }},
		{"negative retries", "retried_requests", func(r *rundoc.Run) { r.Cells[1].RetriedRequests = -2 }},
		{"negative idle wait", "idle_wait_s", func(r *rundoc.Run) { r.Cells[1].IdleWaitS = -1 }},
		{"diff below -100%", "server_token_diff_pct", func(r *rundoc.Run) { r.Cells[1].ServerTokenDiffPct = rundoc.Reported(-101, true) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := jsonioFullRun()
			if err := rundoc.ValidateRun(r); err != nil {
				t.Fatalf("the fixture is refused: %v", err)
			}
			tc.edit(r)
			if err := rundoc.ValidateRun(r); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("ValidateRun = %v, want an error naming %s", err, tc.want)
			}
		})
	}
	r := jsonioFullRun()
	r.Cells[1].ServerTokenDiffPct = rundoc.Reported(-3.5, true) // the server counted fewer: allowed
	if err := rundoc.ValidateRun(r); err != nil {
		t.Errorf("a negative difference is refused: %v", err)
	}
}

package cluster

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/rigbench/rigbench/engine/sim"
)

// rayStatusSample is `ray status` of Ray 2.x with two nodes of one GPU
// each (its layout: node IDs under Active, resources under Usage).
const rayStatusSample = `======== Autoscaler status: 2025-06-02 10:14:11.123456 ========
Node status
---------------------------------------------------------------
Active:
 1 node_2f7c1a0e3c4b8d9e6f5a4b3c2d1e0f9a8b7c6d5e4f3a2b1c0d9e8f7a
 1 node_9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b9c8d7e6f5a4b3c2d
Pending:
 (no pending nodes)
Recent failures:
 (no failures)

Resources
---------------------------------------------------------------
Usage:
 0.0/48.0 CPU
 0.0/2.0 GPU
 0B/120.00GiB memory
 0B/51.43GiB object_store_memory

Demands:
 (no resource demands)
`

func TestParseStatus(t *testing.T) {
	st, err := ParseStatus(rayStatusSample)
	if err != nil || st.Nodes != 2 || st.GPUs != 2 {
		t.Errorf("Ray's status: %+v, %v; want 2 nodes and 2 GPUs", st, err)
	}
	// The simulator's stand-in prints the same layout, a dead node under
	// Recent failures.
	var b bytes.Buffer
	sim.WriteRayStatus(&b, []sim.RayNode{{ID: "node_1", Address: "10.0.0.1", GPUs: 2, Head: true, Alive: true},
		{ID: "node_2", Address: "10.0.0.2", GPUs: 2, Alive: false}}, time.Unix(0, 0))
	st, err = ParseStatus(b.String())
	if err != nil || st.Nodes != 1 || st.GPUs != 2 {
		t.Errorf("the stand-in's status:\n%s\n%+v, %v; want 1 node and 2 GPUs", b.String(), st, err)
	}
	if _, err := ParseStatus("ConnectionError: could not connect"); !errors.Is(err, ErrNoStatus) {
		t.Errorf("an error text read as a status: %v", err)
	}
}

func FuzzParseStatus(f *testing.F) {
	f.Add(rayStatusSample)
	f.Add("Active:\n 1 node_x\nPending:\n")
	f.Add("Usage:\n 1.0/-3 GPU\n")
	f.Fuzz(func(t *testing.T, s string) {
		st, err := ParseStatus(s)
		if err != nil {
			return
		}
		if st.Nodes < 0 || st.GPUs < 0 {
			t.Errorf("%q: %+v", s, st)
		}
	})
}

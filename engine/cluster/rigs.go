package cluster

import (
	"fmt"
	"strings"

	"github.com/rigbench/rigbench/engine/rig"
)

// RigsError is a --rigs text that cannot be used; Reason says why, for
// each front end to word.
type RigsError struct{ Value, Reason string }

func (e *RigsError) Error() string { return fmt.Sprintf("rigs %q: %s", e.Value, e.Reason) }

// ParseRigs reads the rigs of a cluster as a user types them: a comma
// list of rig addresses (rig.Parse: local, ssh://user@host[:port], a Docker
// context), the head first or marked "head=" anywhere in the list; at
// least two, none twice. It is the one reader of that text below ui/.
func ParseRigs(s string) ([]rig.Spec, error) {
	var head []rig.Spec
	var rest []rig.Spec
	seen := map[string]bool{}
	for _, part := range strings.Split(s, ",") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		isHead := false
		if v, ok := strings.CutPrefix(part, "head="); ok {
			isHead, part = true, strings.TrimSpace(v)
		}
		sp, err := rig.Parse(part)
		if err != nil {
			return nil, &RigsError{Value: s, Reason: err.Error()}
		}
		key := sp.Public()
		if sp.User != "" {
			key = sp.User + "@" + key
		}
		if seen[key] {
			return nil, &RigsError{Value: s, Reason: fmt.Sprintf("%s is named twice: each rig is one node", sp.Name)}
		}
		seen[key] = true
		if isHead {
			head = append(head, sp)
		} else {
			rest = append(rest, sp)
		}
	}
	switch {
	case len(head) > 1:
		return nil, &RigsError{Value: s, Reason: "more than one rig is marked head=: the cluster has one head"}
	case len(head)+len(rest) < 2:
		return nil, &RigsError{Value: s, Reason: "a cluster needs two rigs or more, such as head=ssh://a,ssh://b"}
	}
	return append(head, rest...), nil
}

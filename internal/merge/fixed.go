package merge

import (
	"fmt"

	"github.com/gwpol/gwpol/internal/topology"
)

// FixedStatus is the status a rule answers every request with instead of
// forwarding, and why.
type FixedStatus struct {
	Status  int
	Reasons []string
}

// FixedStatus reports whether a rule answers a fixed status: 503 when a
// policy kind that fails closed made it unusable, 500 when another broken
// policy reference did or when none of its backendRefs can be used (not
// found, not permitted without a ReferenceGrant, an unsupported kind), as
// gateways answer. Views report it; the renderer emits the response.
func (r *Result) FixedStatus(rule *topology.Rule) (FixedStatus, bool) {
	if bs := r.Attach.Broken[rule]; len(bs) > 0 {
		fs := FixedStatus{Status: 500}
		for _, b := range bs {
			if b.Kind != nil && b.Kind.Spec().FailClosed {
				fs.Status = 503
			}
			fs.Reasons = append(fs.Reasons, b.Code+": "+b.Reason)
		}
		return fs, true
	}
	if rule.IsDelegating() {
		return delegatesToNothing(rule)
	}
	if len(rule.Backends) == 0 {
		return FixedStatus{}, false
	}
	fs := FixedStatus{Status: 500}
	for _, b := range rule.Backends {
		if b.Resolved {
			return FixedStatus{}, false
		}
		fs.Reasons = append(fs.Reasons, fmt.Sprintf("backendRef %s %s/%s: %s: %s", b.Kind, b.Namespace, b.Name, b.Reason, b.Message))
	}
	return fs, true
}

// delegatesToNothing: a delegating rule none of whose backendRefs selects
// a route answers 500, as kgateway answers it (GWP211).
func delegatesToNothing(rule *topology.Rule) (FixedStatus, bool) {
	fs := FixedStatus{Status: 500}
	for _, b := range rule.Backends {
		if b.Why == "" {
			return FixedStatus{}, false
		}
		fs.Reasons = append(fs.Reasons, "GWP211: its backendRef delegates to no route: "+b.Why)
	}
	return fs, len(fs.Reasons) > 0
}

package merge

import (
	"testing"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// failClosedKind is testKind failing closed, like HAProxyRoutePolicy.
type failClosedKind struct{ testKind }

func (failClosedKind) Spec() policy.KindSpec {
	s := testKind{}.Spec()
	s.FailClosed = true
	return s
}

func TestFixedStatus(t *testing.T) {
	svc := func(ok bool, reason string) *topology.Backend {
		return &topology.Backend{Kind: "Service", Namespace: "ns", Name: "svc", Resolved: ok, Reason: reason}
	}
	forwarding := &topology.Rule{Backends: []*topology.Backend{svc(false, "RefNotPermitted"), svc(true, "")}}
	refused := &topology.Rule{Backends: []*topology.Backend{svc(false, "RefNotPermitted")}}
	redirect := &topology.Rule{}
	brokenOpen, brokenClosed := &topology.Rule{Backends: []*topology.Backend{svc(true, "")}}, &topology.Rule{Backends: []*topology.Backend{svc(true, "")}}
	r := &Result{Attach: &attach.Result{Broken: map[*topology.Rule][]attach.Broken{
		brokenOpen:   {{Kind: testKind{}, Code: "GWP205", Reason: "missing"}},
		brokenClosed: {{Kind: failClosedKind{}, Code: "GWP206", Reason: "two filters"}},
	}}}
	tests := []struct {
		name   string
		rule   *topology.Rule
		status int
	}{
		{"one usable backend forwards", forwarding, 0},
		{"no usable backend answers 500", refused, 500},
		{"no backendRefs (a redirect) is not fixed", redirect, 0},
		{"broken reference answers 500", brokenOpen, 500},
		{"a kind failing closed answers 503", brokenClosed, 503},
	}
	for _, tt := range tests {
		fs, ok := r.FixedStatus(tt.rule)
		if ok != (tt.status != 0) || fs.Status != tt.status || (ok && len(fs.Reasons) == 0) {
			t.Errorf("%s: %+v %v, want status %d with a reason", tt.name, fs, ok, tt.status)
		}
	}
}

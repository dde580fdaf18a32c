package merge

import (
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/model"
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
		b := &topology.Backend{Kind: "Service", Namespace: "ns", Name: "svc", Resolved: ok, Reason: reason}
		b.Weight = 1
		return b
	}
	weightless := svc(true, "")
	weightless.Weight = 0
	forwarding := &topology.Rule{Backends: []*topology.Backend{svc(false, "RefNotPermitted"), svc(true, ""), weightless}}
	refused := &topology.Rule{Backends: []*topology.Backend{svc(false, "RefNotPermitted")}}
	allWeightZero := &topology.Rule{Backends: []*topology.Backend{weightless, weightless}}
	noBackends := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{}}}
	redirectFilter := &gwv1.HTTPRouteRule{Filters: []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwv1.HTTPRequestRedirectFilter{}}}}
	redirect := &topology.Rule{Rule: &model.Rule{HTTP: redirectFilter}}
	redirectRefused := &topology.Rule{Rule: &model.Rule{HTTP: redirectFilter}, Backends: []*topology.Backend{svc(false, "BackendNotFound")}}
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
		{"only weight 0 answers 500", allWeightZero, 500},
		{"no backendRefs and no redirect answers 500", noBackends, 500},
		{"a redirect without backendRefs is not fixed", redirect, 0},
		{"a redirect with an unresolved backend still redirects", redirectRefused, 0},
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

package merge

import (
	"slices"
	"testing"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// forwardKind declares fields of every shape the forwarding verdict
// tells apart: no public case puts a policy on a rule that redirects.
type forwardKind struct{}

func (forwardKind) GroupKind() model.GroupKind {
	return model.GroupKind{Group: "test.gwpol.dev", Kind: "ForwardPolicy"}
}
func (forwardKind) Spec() policy.KindSpec {
	return policy.KindSpec{Fields: []policy.FieldSpec{
		{Key: "actionOnly", Writes: []string{"route.timeout", "route.retry_policy"}},
		{Key: "appends", Writes: []string{"route.request_mirror_policies[]"}},
		{Key: "mixed", Writes: []string{"route.hash_policy", "cluster.load_balancing_policy", "stat_prefix"}},
		{Key: "routeField", Writes: []string{"stat_prefix"}},
		{Key: "flagged", Writes: []string{"tracing"}, ForwardingOnly: true},
		{Key: "perFilter", Writes: []string{"typed_per_filter_config.envoy.filters.http.cors"}},
		{Key: "nothing", Writes: policy.WritesNothing},
		{Key: "undeclared"},
		{Key: "family[", Family: true, Writes: []string{"route.timeout"}},
	}}
}
func (forwardKind) Decode(*manifest.Object, *policy.Env) *policy.Policy { return nil }

func TestFieldForwardingOn(t *testing.T) {
	redirect := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{Filters: []gwv1.HTTPRouteFilter{
		{Type: gwv1.HTTPRouteFilterRequestHeaderModifier, RequestHeaderModifier: &gwv1.HTTPHeaderFilter{}},
		{Type: gwv1.HTTPRouteFilterRequestRedirect, RequestRedirect: &gwv1.HTTPRequestRedirectFilter{}},
	}}}}
	// a redirect rule with a backendRef still answers the redirect
	redirectWithBackend := &topology.Rule{Rule: redirect.Rule, Backends: []*topology.Backend{{BackendRef: &model.BackendRef{Weight: 1}, Kind: "Service", Resolved: true}}}
	forwards := &topology.Rule{Rule: &model.Rule{HTTP: &gwv1.HTTPRouteRule{Filters: []gwv1.HTTPRouteFilter{
		{Type: gwv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwv1.HTTPURLRewriteFilter{}},
	}}}}
	noHTTP := &topology.Rule{Rule: &model.Rule{}} // a GRPCRoute's rule: no RequestRedirect
	r := &Result{}
	tests := []struct {
		key       string
		whole     bool
		leftOut   []policy.EnvoyPath
		onForward bool // FieldForwardingOn on forwards: never not applied
	}{
		{"actionOnly", true, []policy.EnvoyPath{"route.timeout", "route.retry_policy"}, false},
		{"appends", true, []policy.EnvoyPath{"route.request_mirror_policies[]"}, false},
		{"mixed", false, []policy.EnvoyPath{"route.hash_policy"}, false},
		{"routeField", false, nil, false},
		{"flagged", true, nil, false},
		{"perFilter", false, nil, false},
		{"nothing", false, nil, false},
		{"undeclared", false, nil, false},
		{"family[80]", true, []policy.EnvoyPath{"route.timeout"}, false},
	}
	for _, tt := range tests {
		if got := ForwardingOnly(forwardKind{}, tt.key); got != tt.whole {
			t.Errorf("ForwardingOnly(%s) = %v, want %v", tt.key, got, tt.whole)
		}
		for _, rule := range []*topology.Rule{redirect, redirectWithBackend} {
			v := r.FieldForwardingOn(forwardKind{}, tt.key, rule, nil)
			if v.Answer != "a redirect" || v.NotApplied() != tt.whole || !slices.Equal(v.RouteAction, tt.leftOut) {
				t.Errorf("%s on a redirect: %+v, want whole %v, left out %v", tt.key, v, tt.whole, tt.leftOut)
			}
			if v.PartlyApplied() != (!tt.whole && len(tt.leftOut) > 0) {
				t.Errorf("%s on a redirect: PartlyApplied %v", tt.key, v.PartlyApplied())
			}
		}
		for _, rule := range []*topology.Rule{forwards, noHTTP} {
			if v := r.FieldForwardingOn(forwardKind{}, tt.key, rule, nil); v.Answer != "" || v.NotApplied() || v.PartlyApplied() {
				t.Errorf("%s on a rule that forwards: %+v", tt.key, v)
			}
		}
	}
}

package kgateway

import (
	"strings"
	"testing"

	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
)

func renderRBAC(t *testing.T, a *Authorization) (*policy.Fragment, error) {
	t.Helper()
	frs, err := Kind{}.RenderField(policy.FieldInput{Key: "rbac", Values: []any{a}}, &policy.Env{})
	if err != nil {
		return nil, err
	}
	if len(frs) != 1 {
		t.Fatalf("%d fragments, want 1", len(frs))
	}
	return &frs[0], nil
}

// TestRBACCEL: one expression is a single CEL predicate, several are any
// of them; each is written parsed (node IDs as the CEL parser assigns
// them, so equal policies render to equal bytes); the action applies on
// match and its opposite otherwise; the chain's RBAC filter stays on.
func TestRBACCEL(t *testing.T) {
	exprs := []string{"request.headers['x-a'] == 'a'", "request.path.startsWith('/b')"}
	fr, err := renderRBAC(t, &Authorization{Action: "Deny", Policy: AuthorizationPolicy{MatchExpressions: exprs}})
	if err != nil {
		t.Fatal(err)
	}
	if !fr.Filter.Enabled {
		t.Error("the chain's RBAC filter is disabled; kgateway leaves the rule-less filter on")
	}
	per, ok := fr.TypedPerFilterConfig[fr.Filter.Name].(*rbacfilterv3.RBACPerRoute)
	if !ok {
		t.Fatalf("per-route config %T", fr.TypedPerFilterConfig[fr.Filter.Name])
	}
	if err := per.ValidateAll(); err != nil {
		t.Fatal(err)
	}
	m := per.GetRbac().GetMatcher()
	fm := m.GetMatcherList().GetMatchers()[0]
	preds := fm.GetPredicate().GetOrMatcher().GetPredicate()
	if len(preds) != len(exprs) {
		t.Fatalf("%d predicates, want one per expression (%d)", len(preds), len(exprs))
	}
	for i, p := range preds {
		var cm xdsmatcherv3.CelMatcher
		if err := p.GetSinglePredicate().GetCustomMatch().GetTypedConfig().UnmarshalTo(&cm); err != nil {
			t.Fatal(err)
		}
		pe := cm.GetExprMatch().GetCelExprParsed()
		if pe.GetExpr() == nil || pe.GetSourceInfo().GetLineOffsets()[0] != int32(len(exprs[i])+1) {
			t.Errorf("expression %d not written parsed: %v", i, cm.GetExprMatch())
		}
	}
	var on, off rbacv3.Action
	if err := fm.GetOnMatch().GetAction().GetTypedConfig().UnmarshalTo(&on); err != nil {
		t.Fatal(err)
	}
	if err := m.GetOnNoMatch().GetAction().GetTypedConfig().UnmarshalTo(&off); err != nil {
		t.Fatal(err)
	}
	if on.Action != rbacv3.RBAC_DENY || off.Action != rbacv3.RBAC_ALLOW {
		t.Errorf("on match %v, otherwise %v; want DENY, ALLOW", on.Action, off.Action)
	}

	again, err := renderRBAC(t, &Authorization{Action: "Deny", Policy: AuthorizationPolicy{MatchExpressions: exprs}})
	if err != nil {
		t.Fatal(err)
	}
	a, _ := proto.MarshalOptions{Deterministic: true}.Marshal(per)
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(again.TypedPerFilterConfig[fr.Filter.Name])
	if string(a) != string(b) {
		t.Error("the same policy rendered to different bytes")
	}

	if _, err := renderRBAC(t, &Authorization{Policy: AuthorizationPolicy{MatchExpressions: []string{"request.method == 'GET'", "request.headers['x' =="}}}); err == nil || !strings.Contains(err.Error(), "matchExpressions[1]") {
		t.Errorf("invalid CEL: error %v, want one naming matchExpressions[1]", err)
	}
}

// TestRBACCIDRs: allowed and not blocked for ALLOW; an address without a
// prefix length is the single address; a bad CIDR is an error.
func TestRBACCIDRs(t *testing.T) {
	fr, err := renderRBAC(t, &Authorization{Policy: AuthorizationPolicy{AllowedCIDRs: []string{"10.0.0.0/8"}, BlockedCIDRs: []string{"10.1.2.3"}}})
	if err != nil {
		t.Fatal(err)
	}
	per := fr.TypedPerFilterConfig[fr.Filter.Name].(*rbacfilterv3.RBACPerRoute)
	rules := per.GetRbac().GetRules()
	ids := rules.GetPolicies()["policy"].GetPrincipals()[0].GetAndIds().GetIds()
	if rules.Action != rbacv3.RBAC_ALLOW || len(ids) != 2 {
		t.Fatalf("rules %v: want ALLOW of allowed and not blocked", rules)
	}
	blocked := ids[1].GetNotId().GetOrIds().GetIds()[0].GetRemoteIp()
	if blocked.GetAddressPrefix() != "10.1.2.3" || blocked.GetPrefixLen().GetValue() != 32 {
		t.Errorf("blocked %v, want 10.1.2.3/32", blocked)
	}
	if _, err := renderRBAC(t, &Authorization{Policy: AuthorizationPolicy{AllowedCIDRs: []string{"10.0.0.0/33"}}}); err == nil {
		t.Error("10.0.0.0/33 accepted")
	}
}

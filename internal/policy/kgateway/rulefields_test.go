package kgateway

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// TestRuleFields: an HTTPRoute rule's own timeouts and retry become
// TrafficPolicy values the way kgateway's built-in rule policy translates
// them.
func TestRuleFields(t *testing.T) {
	d := func(s string) *gwv1.Duration { v := gwv1.Duration(s); return &v }
	n := func(i int) *int { return &i }
	tests := []struct {
		name string
		rule *gwv1.HTTPRouteRule
		want []policy.RuleField
	}{
		{"nothing set", &gwv1.HTTPRouteRule{}, nil},
		{"request only", &gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{Request: d("5s")}},
			[]policy.RuleField{{Key: "timeouts", Value: &Timeouts{Request: new("5s")}, Path: "spec.rules[0].timeouts"}}},
		{"both timeouts, no retry: the backend timeout bounds the route", &gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{Request: d("5s"), BackendRequest: d("1s")}},
			[]policy.RuleField{{Key: "timeouts", Value: &Timeouts{Request: new("1s")}, Path: "spec.rules[0].timeouts"}}},
		{"both timeouts and a retry: request bounds the route, backend each try",
			&gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{Request: d("5s"), BackendRequest: d("1s")}, Retry: &gwv1.HTTPRouteRetry{Attempts: n(3), Codes: []gwv1.HTTPRouteRetryStatusCode{503}, Backoff: d("100ms")}},
			[]policy.RuleField{
				{Key: "timeouts", Value: &Timeouts{Request: new("5s")}, Path: "spec.rules[0].timeouts"},
				{Key: "retry", Value: &Retry{RetryOn: ruleRetryOn, Attempts: new(int32(3)), PerTryTimeout: new("1s"), StatusCodes: []int32{503}, BackoffBaseInterval: new("100ms")}, Path: "spec.rules[0].retry"},
			}},
		{"backend timeout and a retry: it bounds each try, the route has none",
			&gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{BackendRequest: d("9s")}, Retry: &gwv1.HTTPRouteRetry{}},
			[]policy.RuleField{{Key: "retry", Value: &Retry{RetryOn: ruleRetryOn, Attempts: new(int32(1)), PerTryTimeout: new("9s")}, Path: "spec.rules[0].retry"}}},
		{"backend timeout alone bounds the route", &gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{BackendRequest: d("7s")}},
			[]policy.RuleField{{Key: "timeouts", Value: &Timeouts{Request: new("7s")}, Path: "spec.rules[0].timeouts"}}},
		{"retry without attempts retries once", &gwv1.HTTPRouteRule{Retry: &gwv1.HTTPRouteRetry{}},
			[]policy.RuleField{{Key: "retry", Value: &Retry{RetryOn: ruleRetryOn, Attempts: new(int32(1))}, Path: "spec.rules[0].retry"}}},
		{"a URLRewrite filter beats autoHostRewrite (hostname) and urlRewrite (path)",
			&gwv1.HTTPRouteRule{Filters: []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterURLRewrite, URLRewrite: &gwv1.HTTPURLRewriteFilter{
				Hostname: (*gwv1.PreciseHostname)(new("new.example.com")),
				Path:     &gwv1.HTTPPathModifier{Type: gwv1.PrefixMatchHTTPPathModifier, ReplacePrefixMatch: new("/new")}}}}},
			[]policy.RuleField{
				{Key: "autoHostRewrite", Value: &RuleRewrite{Hostname: "new.example.com"}, Path: "spec.rules[0].filters[0].urlRewrite.hostname"},
				{Key: "urlRewrite", Value: &RuleRewrite{Path: "ReplacePrefixMatch /new"}, Path: "spec.rules[0].filters[0].urlRewrite.path"},
			}},
		{"unparsable durations count as unset", &gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{Request: d("soon")}}, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Kind{}.RuleFields(&model.Route{Kind: "HTTPRoute"}, &model.Rule{Path: "spec.rules[0]", HTTP: tt.rule}, policy.Config{})
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rule fields (-want +got):\n%s", diff)
			}
		})
	}
	delegating := &model.Rule{HTTP: &gwv1.HTTPRouteRule{Filters: []gwv1.HTTPRouteFilter{{Type: gwv1.HTTPRouteFilterURLRewrite,
		URLRewrite: &gwv1.HTTPURLRewriteFilter{Hostname: (*gwv1.PreciseHostname)(new("x.example.com"))}}}},
		BackendRefs: []model.BackendRef{{BackendObjectReference: gwv1.BackendObjectReference{Kind: (*gwv1.Kind)(new("HTTPRoute"))}}}}
	if got := (Kind{}).RuleFields(&model.Route{Kind: "HTTPRoute"}, delegating, policy.Config{}); got != nil {
		t.Errorf("a delegating rule's URLRewrite does not reach its children's routes, got %v", got)
	}
	if got := (Kind{}).RuleFields(&model.Route{Kind: "GRPCRoute"}, &model.Rule{GRPC: &gwv1.GRPCRouteRule{}}, policy.Config{}); got != nil {
		t.Errorf("a GRPCRoute rule has no timeouts or retry, got %v", got)
	}
}

// TestRuleFieldsExperimentalOff: with enableExperimentalGatewayAPIFeatures
// false kgateway skips a rule's retry (buildHTTPRouteRulePolicy), so its
// timeouts are chosen as for a rule without one: the backend request
// timeout, when set, bounds the route.
func TestRuleFieldsExperimentalOff(t *testing.T) {
	d := func(s string) *gwv1.Duration { v := gwv1.Duration(s); return &v }
	off := policy.Config{}.WithSetting(EnableExperimentalGatewayAPIFeatures.Key, false)
	tests := []struct {
		name string
		rule *gwv1.HTTPRouteRule
		want []policy.RuleField
	}{
		{"a retry alone: nothing", &gwv1.HTTPRouteRule{Retry: &gwv1.HTTPRouteRetry{}}, nil},
		{"both timeouts and a retry: the backend timeout bounds the route, no retry",
			&gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{Request: d("5s"), BackendRequest: d("1s")}, Retry: &gwv1.HTTPRouteRetry{}},
			[]policy.RuleField{{Key: "timeouts", Value: &Timeouts{Request: new("1s")}, Path: "spec.rules[0].timeouts"}}},
		{"backend timeout and a retry: it bounds the route",
			&gwv1.HTTPRouteRule{Timeouts: &gwv1.HTTPRouteTimeouts{BackendRequest: d("9s")}, Retry: &gwv1.HTTPRouteRetry{}},
			[]policy.RuleField{{Key: "timeouts", Value: &Timeouts{Request: new("9s")}, Path: "spec.rules[0].timeouts"}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := Kind{}.RuleFields(&model.Route{Kind: "HTTPRoute"}, &model.Rule{Path: "spec.rules[0]", HTTP: tt.rule}, off)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("rule fields (-want +got):\n%s", diff)
			}
		})
	}
}

// TestOverlay: the rule's request timeout replaces the policy's, whose
// stream-idle timeout stays; a rule's retry replaces the policy's whole.
func TestOverlay(t *testing.T) {
	rule := &Timeouts{Request: new("5s")}
	eff, remains := Kind{}.Overlay("timeouts", rule, &Timeouts{Request: new("2s"), StreamIdle: new("30s")})
	if diff := cmp.Diff(&Timeouts{Request: new("5s"), StreamIdle: new("30s")}, eff); diff != "" || !remains {
		t.Errorf("timeouts overlay (-want +got):\n%s remains=%v", diff, remains)
	}
	if eff, remains := (Kind{}).Overlay("timeouts", rule, &Timeouts{Request: new("2s")}); eff != any(rule) || remains {
		t.Errorf("a policy with only a request timeout should lose whole, got %v remains=%v", eff, remains)
	}
	// a route's idle timeout over a Gateway's request timeout: both apply
	eff, remains = Kind{}.Overlay("timeouts", &Timeouts{StreamIdle: new("9s")}, &Timeouts{Request: new("60s"), StreamIdle: new("1s")})
	if diff := cmp.Diff(&Timeouts{Request: new("60s"), StreamIdle: new("9s")}, eff); diff != "" || !remains {
		t.Errorf("timeouts fill (-want +got):\n%s remains=%v", diff, remains)
	}
	r := &Retry{Attempts: new(int32(1))}
	if eff, remains := (Kind{}).Overlay("retry", r, &Retry{Attempts: new(int32(4))}); eff != any(r) || remains {
		t.Errorf("retry overlay: got %v remains=%v, want the rule's retry whole", eff, remains)
	}
}

// TestInstance: extAuth, extProc and oidc name their GatewayExtension
// (namespace defaulting to the policy's); a disable names none.
func TestInstance(t *testing.T) {
	ref := func(ns *string, name string) *NamespacedObjectReference {
		return &NamespacedObjectReference{Name: name, Namespace: ns}
	}
	tests := []struct {
		key  string
		v    any
		want string
	}{
		{"extAuth", &ExtAuthPolicy{ExtensionRef: ref(nil, "a")}, "pol-ns/a"},
		{"extAuth", &ExtAuthPolicy{ExtensionRef: ref(new("infra"), "a")}, "infra/a"},
		{"extAuth", &ExtAuthPolicy{Disable: &PolicyDisable{}}, ""},
		{"extProc", &ExtProcPolicy{ExtensionRef: ref(nil, "p")}, "pol-ns/p"},
		{"extProc", &ExtProcPolicy{ExtensionRef: ref(nil, "p"), Disable: &PolicyDisable{}}, ""},
		{"oidc", &OAuth2Policy{ExtensionRef: *ref(nil, "o")}, "pol-ns/o"},
		{"timeouts", &Timeouts{}, ""},
	}
	for _, tt := range tests {
		if got := (Kind{}).Instance(tt.key, tt.v, "pol-ns"); got != tt.want {
			t.Errorf("Instance(%s, %+v) = %q, want %q", tt.key, tt.v, got, tt.want)
		}
	}
}

package envoygateway

import (
	"encoding/json"
	"maps"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"
	"slices"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// site is a route of HTTPRoute app/web served by listener http of
// Gateway infra/gw.
var site = policy.RouteSite{Kind: "HTTPRoute", Namespace: "app", Name: "web", Rule: 1, Match: 0,
	Hostname: "www.example.com", Gateway: policy.GatewayName{Namespace: "infra", Name: "gw"}, Listener: "http"}

// perRoute renders a rateLimit field and builds its per-route part for
// site: the RateLimitPerRoute configs and the filters, by filter name.
func perRoute(t *testing.T, in policy.FieldInput) (map[string]*ratelimitv3.RateLimitPerRoute, []string, []policy.Fragment) {
	t.Helper()
	frags, err := renderRateLimit(in, &policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	per := map[string]*ratelimitv3.RateLimitPerRoute{}
	var filters []string
	for _, f := range frags {
		if f.PerRoute == nil {
			continue
		}
		rfs, err := f.PerRoute(site)
		if err != nil {
			t.Fatal(err)
		}
		for _, rf := range rfs {
			filters = append(filters, rf.Filter.Name)
			for name, m := range rf.TypedPerFilterConfig {
				p, ok := m.(*ratelimitv3.RateLimitPerRoute)
				if !ok {
					t.Fatalf("%s: a %T", name, m)
				}
				per[name] = p
			}
		}
	}
	return per, filters, frags
}

// keys lists each rate limit's descriptor keys, as its actions make them.
func keys(rls []*routev3.RateLimit) [][]string {
	var out [][]string
	for _, rl := range rls {
		var ks []string
		for _, a := range rl.GetActions() {
			switch {
			case a.GetGenericKey() != nil:
				ks = append(ks, a.GetGenericKey().GetDescriptorKey())
			case a.GetHeaderValueMatch() != nil:
				ks = append(ks, a.GetHeaderValueMatch().GetDescriptorKey())
			case a.GetRequestHeaders() != nil:
				ks = append(ks, a.GetRequestHeaders().GetDescriptorKey())
			case a.GetRemoteAddressMatch() != nil:
				ks = append(ks, a.GetRemoteAddressMatch().GetDescriptorKey())
			case a.GetQueryParameterValueMatch() != nil:
				ks = append(ks, a.GetQueryParameterValueMatch().GetDescriptorKey())
			}
		}
		out = append(out, ks)
	}
	return out
}

const route = "httproute/app/web/rule/1/match/0/www_example_com"

func TestGlobalRateLimitDescriptors(t *testing.T) {
	tests := []struct {
		name    string
		value   string
		filters []string
		want    map[string][][]string // filter → each rate limit's descriptor keys
	}{
		{"unshared rules count per route in the listener's domain",
			`{"global": {"rules": [{"clientSelectors": [{"headers": [{"name": "x-a", "value": "1"}, {"name": "x-b", "type": "Distinct"}]}], "limit": {"requests": 1, "unit": "Hour"}},
			                       {"limit": {"requests": 5, "unit": "Hour"}}]}}`,
			[]string{"envoy.filters.http.ratelimit"},
			map[string][][]string{"envoy.filters.http.ratelimit": {{route, "rule-0-match-0", "rule-0-match-1"}, {route, "rule-1-match--1"}}}},
		{"shared rules count in their policy's domain, numbered apart",
			`{"global": {"rules": [{"clientSelectors": [{"sourceCIDR": {"type": "Distinct", "value": "10.0.0.1/8"}}], "limit": {"requests": 1, "unit": "Hour"}, "shared": true},
			                       {"clientSelectors": [{"methods": [{"value": "GET"}, {"value": "PUT"}]}], "limit": {"requests": 1, "unit": "Hour"}}]}}`,
			[]string{"envoy.filters.http.ratelimit/app/rl", "envoy.filters.http.ratelimit"},
			map[string][][]string{
				"envoy.filters.http.ratelimit/app/rl": {{"app/rl/rule/0", "masked_remote_address", "remote_address"}},
				"envoy.filters.http.ratelimit":        {{route, "rule-0-method"}, {route, "rule-0-method"}},
			}},
		{"a shared rule alone: the listener's filter is there all the same",
			`{"global": {"rules": [{"clientSelectors": [{"queryParams": [{"name": "q", "value": "v"}]}], "limit": {"requests": 1, "unit": "Hour"}, "shared": true}]}}`,
			[]string{"envoy.filters.http.ratelimit/app/rl", "envoy.filters.http.ratelimit"},
			map[string][][]string{"envoy.filters.http.ratelimit/app/rl": {{"app/rl/rule/0", "rule-0-match-0"}}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			per, filters, _ := perRoute(t, policy.FieldInput{Key: "rateLimit", Values: []any{json.RawMessage(tc.value)},
				Contributors: []string{"gateway.envoyproxy.io/BackendTrafficPolicy/app/rl"}})
			if !slices.Equal(filters, tc.filters) {
				t.Errorf("filters %v, want %v", filters, tc.filters)
			}
			if len(per) != len(tc.want) {
				t.Errorf("%d per-route configs, want %d", len(per), len(tc.want))
			}
			for name, want := range tc.want {
				p := per[name]
				if p == nil {
					t.Fatalf("no RateLimitPerRoute for %s", name)
				}
				wantDomain := "infra/gw/http"
				if name != "envoy.filters.http.ratelimit" {
					wantDomain = "app/rl"
				}
				if p.GetDomain() != wantDomain {
					t.Errorf("%s: domain %q, want %q", name, p.GetDomain(), wantDomain)
				}
				if got := keys(p.GetRateLimits()); !slices.EqualFunc(got, want, slices.Equal) {
					t.Errorf("%s: descriptor keys %v, want %v", name, got, want)
				}
			}
		})
	}
}

// TestRateLimitMergedPolicies: where a route's policy merges into its
// Gateway's, Envoy Gateway merges the rate limits it built: a part only
// the Gateway's policy has is kept, the route's default bucket wins,
// rules keep their own policy's name and add up under StrategicMerge
// (the Gateway's first), while JSONMerge replaces the list.
func TestRateLimitMergedPolicies(t *testing.T) {
	routeRL := `{"local": {"rules": [{"limit": {"requests": 7, "unit": "Second"}}]},
	             "global": {"rules": [{"clientSelectors": [{"headers": [{"name": "x", "value": "y"}]}], "limit": {"requests": 2, "unit": "Hour"}}]}}`
	gatewayRL := `{"local": {"rules": [{"limit": {"requests": 1, "unit": "Second"}}, {"clientSelectors": [{"methods": [{"value": "GET"}]}], "limit": {"requests": 1, "unit": "Minute"}}]},
	               "global": {"rules": [{"limit": {"requests": 1, "unit": "Hour"}, "shared": true}, {"limit": {"requests": 3, "unit": "Hour"}}]}}`
	tests := []struct {
		strategy    policy.Strategy
		localRules  int
		listener    [][]string
		gatewayRule bool // the Gateway policy's shared rule is in effect
	}{
		{policy.StrategicMerge, 1, [][]string{{route, "rule-0-match--1"}, {route, "rule-1-match-0"}}, true},
		{policy.JSONMerge, 1, [][]string{{route, "rule-0-match-0"}}, false},
	}
	for _, tc := range tests {
		t.Run(string(tc.strategy), func(t *testing.T) {
			in := policy.FieldInput{Key: "rateLimit", Strategy: tc.strategy,
				Values:       []any{json.RawMessage(routeRL), json.RawMessage(gatewayRL)},
				Contributors: []string{"gateway.envoyproxy.io/BackendTrafficPolicy/app/route-rl", "gateway.envoyproxy.io/BackendTrafficPolicy/infra/gw-rl"}}
			per, _, frags := perRoute(t, in)
			var local *localratelimitv3.LocalRateLimit
			for _, f := range frags {
				if m, ok := f.TypedPerFilterConfig["envoy.filters.http.local_ratelimit"].(*localratelimitv3.LocalRateLimit); ok {
					local = m
				}
			}
			if got := local.GetTokenBucket().GetMaxTokens(); got != 7 {
				t.Errorf("local bucket %d, want the route policy's 7", got)
			}
			if got := len(local.GetDescriptors()); got != tc.localRules {
				t.Errorf("%d local descriptors, want %d", got, tc.localRules)
			}
			if got := keys(per["envoy.filters.http.ratelimit"].GetRateLimits()); !slices.EqualFunc(got, tc.listener, slices.Equal) {
				t.Errorf("listener domain keys %v, want %v", got, tc.listener)
			}
			shared := per["envoy.filters.http.ratelimit/infra/gw-rl"]
			if (shared != nil) != tc.gatewayRule {
				t.Fatalf("Gateway policy's shared rule in effect: %v, want %v (have %v)", shared != nil, tc.gatewayRule, slices.Sorted(maps.Keys(per)))
			}
			if shared != nil {
				if got := keys(shared.GetRateLimits()); !slices.EqualFunc(got, [][]string{{"infra/gw-rl/rule/0", "rule-0-match--1"}}, slices.Equal) {
					t.Errorf("shared keys %v", got)
				}
			}
		})
	}
}

// TestRateLimitGatewayOnly: a route policy without a rate limit merged
// into a Gateway policy with one keeps the Gateway policy's rules and
// names (backendtrafficpolicy-strategic-merge-only-gw-rl).
func TestRateLimitGatewayOnly(t *testing.T) {
	in := policy.FieldInput{Key: "rateLimit", Strategy: policy.StrategicMerge,
		Values:       []any{json.RawMessage(`{"global": {"rules": [{"limit": {"requests": 1, "unit": "Hour"}, "shared": true}]}}`)},
		Contributors: []string{"gateway.envoyproxy.io/BackendTrafficPolicy/infra/gw-rl"}}
	per, _, _ := perRoute(t, in)
	if got := keys(per["envoy.filters.http.ratelimit/infra/gw-rl"].GetRateLimits()); !slices.EqualFunc(got, [][]string{{"infra/gw-rl/rule/0", "rule-0-match--1"}}, slices.Equal) {
		t.Errorf("keys %v", got)
	}
}

func TestFractionalPercent(t *testing.T) {
	d := func(v int32) *int32 { return &v }
	tests := []struct {
		f    *gwapiv1.Fraction
		want *typev3.FractionalPercent
	}{
		{nil, nil},
		{&gwapiv1.Fraction{Numerator: 5}, &typev3.FractionalPercent{Numerator: 5}},
		{&gwapiv1.Fraction{Numerator: 1, Denominator: d(1000)}, &typev3.FractionalPercent{Numerator: 10, Denominator: typev3.FractionalPercent_TEN_THOUSAND}},
		{&gwapiv1.Fraction{Numerator: 3, Denominator: d(100000)}, &typev3.FractionalPercent{Numerator: 30, Denominator: typev3.FractionalPercent_MILLION}},
		{&gwapiv1.Fraction{Numerator: 2, Denominator: d(3)}, &typev3.FractionalPercent{Numerator: 666666, Denominator: typev3.FractionalPercent_MILLION}},
	}
	for _, tc := range tests {
		got := fractionalPercent(tc.f)
		if (got == nil) != (tc.want == nil) || got.GetNumerator() != tc.want.GetNumerator() || got.GetDenominator() != tc.want.GetDenominator() {
			t.Errorf("fractionalPercent(%+v) = %v, want %v", tc.f, got, tc.want)
		}
	}
}

func TestRouteNames(t *testing.T) {
	onSet := policy.RouteSite{Kind: "GRPCRoute", Namespace: "a", Name: "g", Rule: 0, RuleName: "r", Match: -1, Hostname: "*",
		Gateway: policy.GatewayName{Namespace: "infra", Name: "gw"}, ListenerSet: policy.GatewayName{Namespace: "team", Name: "ls"}, Listener: "l1"}
	tests := []struct {
		site                 policy.RouteSite
		name, stat, listener string
	}{
		{site, route, "HTTPRoute/app/web/-", "infra/gw/http"},
		{onSet, "grpcroute/a/g/rule/0/match/-1/*", "GRPCRoute/a/g/r", "infra/gw/team/ls/l1"},
	}
	for _, tc := range tests {
		if got := egListenerName(tc.site); got != tc.listener {
			t.Errorf("egListenerName = %q, want %q", got, tc.listener)
		}
		if got := egRouteName(tc.site); got != tc.name {
			t.Errorf("egRouteName = %q, want %q", got, tc.name)
		}
		if got := routeStatName("%ROUTE_KIND%/%ROUTE_NAMESPACE%/%ROUTE_NAME%/%ROUTE_RULE_NAME%", tc.site); got != tc.stat {
			t.Errorf("routeStatName = %q, want %q", got, tc.stat)
		}
	}
}

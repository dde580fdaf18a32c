package explain_test

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/pipeline"
)

func TestParseTarget(t *testing.T) {
	tests := []struct {
		in, ns  string
		want    explain.TargetSpec
		wantErr bool
	}{
		{"httproute/shop/orders", "", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders"}, false},
		{"HTTPRoutes/shop/orders/#1", "", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders", Section: "#1"}, false},
		{"hr/orders", "shop", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders"}, false},
		{"httproute/orders/create", "shop", explain.TargetSpec{Kind: "HTTPRoute", Namespace: "shop", Name: "orders", Section: "create"}, false},
		{"gw/infra/public/https", "", explain.TargetSpec{Kind: "Gateway", Namespace: "infra", Name: "public", Section: "https"}, false},
		{"grpcroutes/payments/ledger-api", "", explain.TargetSpec{Kind: "GRPCRoute", Namespace: "payments", Name: "ledger-api"}, false},
		{"deployment/x/y", "", explain.TargetSpec{}, true},
		{"httproute/orders", "", explain.TargetSpec{}, true},
		{"httproute", "", explain.TargetSpec{}, true},
	}
	for _, tt := range tests {
		got, err := explain.ParseTarget(tt.in, tt.ns)
		if (err != nil) != tt.wantErr {
			t.Errorf("%s: err = %v", tt.in, err)
			continue
		}
		if err != nil && diag.KindOf(err) != diag.Usage {
			t.Errorf("%s: %v is not a usage error", tt.in, err)
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.in, diff)
		}
	}
}

func TestPolicyKindOf(t *testing.T) {
	reg := pipeline.Registry()
	tests := []struct {
		target, want string
	}{
		{"trafficpolicy/a/b", "TrafficPolicy"},
		{"TrafficPolicies/a/b", "TrafficPolicy"},
		{"haproxyroutepolicy/b", "HAProxyRoutePolicy"},
		{"apipolicies/a/b", "APIPolicy"},
		{"restapis/a/b", "RestApi"},
		{"httproute/a/b", ""},
		{"policy/a/b", ""},
	}
	for _, tt := range tests {
		k, ok := explain.PolicyKindOf(tt.target, reg)
		got := ""
		if ok {
			got = k.GroupKind().Kind
		}
		if got != tt.want {
			t.Errorf("PolicyKindOf(%q) = %q, want %q", tt.target, got, tt.want)
		}
	}
}

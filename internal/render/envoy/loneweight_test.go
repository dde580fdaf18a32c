package envoy_test

import (
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// loneWeightBase: one Gateway of kgateway's and one of Envoy Gateway's,
// each serving an HTTPRoute whose first rule has one backendRef of weight
// 0 and whose second has two.
var loneWeightBase = "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: kgw}\nspec: {controllerName: kgateway.dev/kgateway}\n---\n" +
	egClass + egService("infra", "svc", "{port: 80}", "{port: 81}")

func loneWeightGateway(name, class, host string) string {
	return `---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ` + name + `, namespace: infra}
spec:
  gatewayClassName: ` + class + `
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: ` + name + `, namespace: infra}
spec:
  parentRefs: [{name: ` + name + `}]
  hostnames: [` + host + `]
  rules:
  - matches: [{path: {type: PathPrefix, value: /lone}}]
    backendRefs: [{name: svc, port: 80, weight: 0}]
  - matches: [{path: {type: PathPrefix, value: /both}}]
    backendRefs: [{name: svc, port: 80, weight: 0}, {name: svc, port: 81, weight: 0}]
`
}

// TestLoneBackendOfWeightZero: kgateway writes a rule's only backendRef as
// the route's cluster without its weight (irtranslator/route.go:
// translateRouteAction, one cluster), so a lone backendRef of weight 0
// still takes the traffic (policy.Controller.LoneBackendIgnoresWeight);
// Envoy Gateway's lone weight 0 takes none, and under both a rule whose
// backendRefs all weigh 0 answers 500.
func TestLoneBackendOfWeightZero(t *testing.T) {
	in := loneWeightBase + loneWeightGateway("k", "kgw", "k.example") + loneWeightGateway("e", "eg", "e.example")
	objs, err := manifest.Parse("fixture.yaml", []byte(in), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: "kgateway"})
	for _, tt := range []struct {
		host, path string
		cluster    string // "": a direct response 500
	}{
		{"k.example", "/lone", "kube_infra_svc_80"},
		{"k.example", "/both", ""},
		{"e.example", "/lone", ""},
		{"e.example", "/both", ""},
	} {
		found := false
		for _, g := range out.Gateways {
			for _, rc := range g.RouteConfigurations {
				for _, vh := range rc.VirtualHosts {
					if len(vh.Domains) == 0 || vh.Domains[0] != tt.host {
						continue
					}
					for _, r := range vh.Routes {
						if r.GetMatch().GetPathSeparatedPrefix() != tt.path {
							continue
						}
						found = true
						got := r.GetRoute().GetCluster()
						if tt.cluster == "" && r.GetDirectResponse().GetStatus() != 500 || got != tt.cluster {
							t.Errorf("%s%s: cluster %q, direct response %d; want cluster %q (500 when none)", tt.host, tt.path, got, r.GetDirectResponse().GetStatus(), tt.cluster)
						}
					}
				}
			}
		}
		if !found {
			t.Errorf("%s%s: no route", tt.host, tt.path)
		}
	}
}

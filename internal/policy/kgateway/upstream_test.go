package kgateway_test

import (
	"testing"

	routerv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/router/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestExtProcAfterRouteRunsUpstream: a processor whose extension runs
// after the route stage is one of the router's upstream filters (before
// the upstream codec), not in the connection manager's chain; the route
// still configures it by name.
func TestExtProcAfterRouteRunsUpstream(t *testing.T) {
	const input = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: default}
spec:
  gatewayClassName: kgateway
  listeners: [{name: http, protocol: HTTP, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: default}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: default}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: ep, namespace: default}
spec: {ports: [{port: 9000}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: late, namespace: default}
spec:
  type: ExtProc
  extProc:
    grpcService: {backendRef: {name: ep, port: 9000}}
    filterStage: {stage: Route, predicate: After}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: p, namespace: default}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  extProc: {extensionRef: {name: late}}
`
	res := compileInline(t, input, policy.Config{})
	out, err := envoy.Render(res, envoy.Options{Target: "kgateway"})
	if err != nil {
		t.Fatal(err)
	}
	if len(out.Diagnostics) > 0 {
		t.Fatalf("diagnostics: %v", out.Diagnostics)
	}
	g := out.Gateways[0]
	hcm := &hcmv3.HttpConnectionManager{}
	if err := g.Listeners[0].GetFilterChains()[0].GetFilters()[0].GetTypedConfig().UnmarshalTo(hcm); err != nil {
		t.Fatal(err)
	}
	var router routerv3.Router
	for _, f := range hcm.GetHttpFilters() {
		if f.GetName() == "ext_proc/default/late" {
			t.Errorf("the processor is in the connection manager's chain")
		}
		if f.GetName() == "envoy.filters.http.router" {
			if err := f.GetTypedConfig().UnmarshalTo(&router); err != nil {
				t.Fatal(err)
			}
		}
	}
	up := router.GetUpstreamHttpFilters()
	if len(up) != 2 || up[0].GetName() != "ext_proc/default/late" || up[1].GetName() != "envoy.filters.http.upstream_codec" {
		t.Fatalf("router upstream filters %v, want the processor then the upstream codec", up)
	}
	r := g.RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0]
	if r.GetTypedPerFilterConfig()["ext_proc/default/late"] == nil {
		t.Errorf("route %s does not configure the processor", r.GetName())
	}
}

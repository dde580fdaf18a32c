package status_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// refusalPlatform is an Envoy Gateway class naming the EnvoyProxy
// infra/class-ep (when the case defines one), a Gateway infra/gw with an
// HTTP listener (its spec lines after gatewayClassName: gwSpec), a second
// Gateway infra/other of the class, a route with a parentRef to each, and
// a BackendTrafficPolicy on infra/gw.
func refusalPlatform(gwSpec, extra string) string {
	return `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec:
  controllerName: gateway.envoyproxy.io/gatewayclass-controller
  parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: class-ep, namespace: infra}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: eg
` + gwSpec + `  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 8080}]}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: infra}
spec: {ports: [{name: http, port: 8080}]}
` + btp("infra", "gw-policy", "Gateway/gw", "") + extra
}

func ep(name, spec string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: EnvoyProxy\nmetadata: {name: " + name + ", namespace: infra}\nspec:\n" + spec
}

const gwProxy = "  infrastructure: {parametersRef: {group: gateway.envoyproxy.io, kind: EnvoyProxy, name: gw-ep}}\n"

// TestEnvoyGatewayRefusedGateway: a Gateway Envoy Gateway refuses whole
// (GetRelevantGateways; the provider's processGatewayParamsRef) is not
// Accepted, with the reason and message it writes, and nothing of it is
// translated — one verdict (topology.Gateway.Refused) that every view
// reads: status writes Accepted False alone and no listener, no route
// parent and no policy ancestor there; render builds no listener for it;
// lint reports it (GWP222). An accepted Gateway keeps all of them. The
// EnvoyProxy judged is the one the merged configuration is named after:
// the Gateway's own when it has one, else its class's.
func TestEnvoyGatewayRefusedGateway(t *testing.T) {
	cycle := "  filterOrder:\n  - {name: envoy.filters.http.cors, before: envoy.filters.http.lua}\n  - {name: envoy.filters.http.lua, before: envoy.filters.http.cors}\n"
	tests := []struct {
		name, gwSpec, extra string
		want                string // the Gateway's Accepted condition when refused; "" when accepted
	}{
		{name: "a valid class EnvoyProxy", extra: ep("class-ep", "  logging: {level: {default: info}}\n")},
		{name: "a class EnvoyProxy whose filter order has a cycle", extra: ep("class-ep", cycle),
			want: "Accepted=False/InvalidParameters: Invalid parametersRef:: there is a cycle in the filter order: envoy.filters.http.lua -> envoy.filters.http.cors"},
		{name: "a filter ordered before itself", extra: ep("class-ep", "  filterOrder: [{name: envoy.filters.http.rbac, before: envoy.filters.http.rbac}]\n"),
			want: "Accepted=False/InvalidParameters: Invalid parametersRef:: there is a cycle in the filter order: envoy.filters.http.rbac -> envoy.filters.http.rbac"},
		{name: "two problems are joined, each once", extra: ep("class-ep", "  telemetry: {metrics: {clusterStatName: '%ROUTE_NAME%.%FOO%'}}\n"+cycle),
			want: "Accepted=False/InvalidParameters: Invalid parametersRef:: [unable to configure Cluster Stat Name: unsupported operators: [%FOO%], there is a cycle in the filter order: envoy.filters.http.lua -> envoy.filters.http.cors]"},
		{name: "a stat name with a lone percent sign", extra: ep("class-ep", "  telemetry: {metrics: {clusterStatName: '50%'}}\n"),
			want: "Accepted=False/InvalidParameters: Invalid parametersRef:: unable to configure Cluster Stat Name: unable to configure stat name with invalid operator"},
		{name: "the Gateway's own invalid EnvoyProxy replaces the class's valid one", gwSpec: gwProxy,
			extra: ep("class-ep", "  logging: {level: {default: info}}\n") + ep("gw-ep", cycle),
			want:  "Accepted=False/InvalidParameters: Invalid parametersRef:: there is a cycle in the filter order: envoy.filters.http.lua -> envoy.filters.http.cors"},
		{name: "the Gateway's own valid EnvoyProxy replaces the class's invalid one", gwSpec: gwProxy,
			extra: ep("class-ep", cycle) + ep("gw-ep", "  logging: {level: {default: info}}\n")},
		{name: "merged over an invalid class EnvoyProxy, the Gateway's valid one is judged", gwSpec: gwProxy,
			extra: ep("class-ep", cycle) + ep("gw-ep", "  mergeType: StrategicMerge\n  logging: {level: {default: info}}\n")},
		{name: "an address of a type Envoy Gateway does not assign", gwSpec: "  addresses: [{type: NamedAddress, value: edge}]\n",
			want: "Accepted=False/UnsupportedAddress: Gateway has an address with an unsupported type: NamedAddress"},
		{name: "IP and hostname addresses", gwSpec: "  addresses: [{type: IPAddress, value: 10.0.0.1}, {type: Hostname, value: edge.example.com}]\n"},
		{name: "a parametersRef that is not an EnvoyProxy", gwSpec: "  infrastructure: {parametersRef: {group: '', kind: ConfigMap, name: params}}\n",
			want: "Accepted=False/InvalidParameters: unsupported parametersRef for gateway infra/gw"},
		{name: "a parametersRef while the class merges Gateways", gwSpec: gwProxy,
			extra: ep("class-ep", "  mergeGateways: true\n") + ep("gw-ep", "  logging: {level: {default: info}}\n"),
			want:  "Accepted=False/InvalidParameters: infrastructure.parametersref must be nil when MergeGateways feature is enabled by gatewayclass"},
		{name: "a class that merges Gateways and backends", extra: ep("class-ep", "  mergeGateways: true\n  mergeBackends: {}\n"),
			want: "Accepted=False/InvalidParameters: mergeGateways and mergeBackends cannot both be enabled"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := compileFull(t, refusalPlatform(tc.gwSpec, tc.extra))
			rep := status.Compute(c.Result, status.Options{})
			gw := gatewayStatus(t, rep, "gw")
			refused := tc.want != ""
			if got := acceptedOf(gw.Conditions); refused && got != tc.want || !refused && !strings.HasPrefix(got, "Accepted=True") {
				t.Errorf("Gateway Accepted %q, want %q", got, tc.want)
			}
			if refused && (len(gw.Conditions) != 1 || len(gw.Listeners) != 0) {
				t.Errorf("refused Gateway: conditions %v, listeners %v; want Accepted alone and no listener", gw.Conditions, gw.Listeners)
			}
			if !refused && len(gw.Listeners) != 1 {
				t.Errorf("accepted Gateway: listeners %v, want one", gw.Listeners)
			}
			parents := 0
			for _, r := range rep.Routes {
				parents += len(r.Parents)
			}
			ancestors := 0
			for _, p := range rep.Policies {
				if p.Name == "gw-policy" {
					ancestors = len(p.Ancestors)
				}
			}
			if want := map[bool]int{true: 0, false: 1}[refused]; parents != want || ancestors != want {
				t.Errorf("route parents %d, policy ancestors %d; want %d each", parents, ancestors, want)
			}
			out, err := envoy.Render(c.Result, envoy.Options{Target: "envoygateway"})
			if err != nil {
				t.Fatal(err)
			}
			listeners := 0
			for _, g := range out.Gateways {
				listeners += len(g.Listeners)
			}
			if want := map[bool]int{true: 0, false: 1}[refused]; listeners != want {
				t.Errorf("rendered %d listeners, want %d", listeners, want)
			}
			found := false
			for _, d := range c.Diagnostics() {
				if d.Code == "GWP222" {
					found = true
					if !strings.Contains(d.Message, strings.SplitN(tc.want, ": ", 2)[len(strings.SplitN(tc.want, ": ", 2))-1]) {
						t.Errorf("GWP222 %q does not say %q", d.Message, tc.want)
					}
				}
			}
			if found != refused {
				t.Errorf("GWP222 reported: %v, want %v", found, refused)
			}
		})
	}
}

func acceptedOf(cs []status.Condition) string {
	for _, c := range cs {
		if c.Type == "Accepted" {
			return c.Type + "=" + c.Status + "/" + c.Reason + ": " + c.Message
		}
	}
	return ""
}

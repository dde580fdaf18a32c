package envoy_test

import (
	"slices"
	"strings"
	"testing"

	udpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/udp/udp_proxy/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestUDPListeners: a UDP listener is rendered for the controllers that
// serve UDP, as their source builds it. Envoy Gateway (route.go:
// processUDPRouteParentRefs; xds translator: a UDP listener with a
// udp_proxy listener filter) serves on each UDP listener the oldest
// UDPRoute of exactly one rule, proxying every datagram to its backend;
// the other UDPRoutes there are reported (GWP213). kgateway serves no
// UDP listener (validation.go: HTTP, HTTPS, TCP, TLS only): none is
// rendered, and lint says so (GWP216).
func TestUDPListeners(t *testing.T) {
	const svc = "---\napiVersion: v1\nkind: Service\nmetadata: {name: dns, namespace: infra}\nspec: {ports: [{name: dns, port: 53, protocol: UDP}]}\n" +
		"---\napiVersion: v1\nkind: Service\nmetadata: {name: dns2, namespace: infra}\nspec: {ports: [{name: dns, port: 53, protocol: UDP}]}\n"
	gateway := func(controller string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: GatewayClass\nmetadata: {name: c}\nspec: {controllerName: " + controller + "}\n" +
			"---\napiVersion: gateway.networking.k8s.io/v1\nkind: Gateway\nmetadata: {name: gw, namespace: infra}\nspec:\n  gatewayClassName: c\n  listeners:\n" +
			"  - {name: dns, protocol: UDP, port: 53}\n  - {name: tcp, protocol: TCP, port: 5353}\n"
	}
	route := func(name, created, rules string) string {
		return "---\napiVersion: gateway.networking.k8s.io/v1\nkind: UDPRoute\nmetadata: {name: " + name + ", namespace: infra, creationTimestamp: '" + created + "'}\n" +
			"spec:\n  parentRefs: [{name: gw, sectionName: dns}]\n  rules: " + rules + "\n"
	}
	const eg, kg = "gateway.envoyproxy.io/gatewayclass-controller", "kgateway.dev/kgateway"
	one := "[{backendRefs: [{name: dns, port: 53}]}]"
	tests := []struct {
		name, input string
		cluster     string // the cluster the UDP listener proxies to; "" when none is rendered
		codes       []string
	}{
		{"one UDPRoute", gateway(eg) + svc + route("a", "2024-01-01T00:00:00Z", one), "kube_infra_dns_53", nil},
		{"the oldest UDPRoute of two", gateway(eg) + svc + route("a", "2024-02-01T00:00:00Z", one) +
			route("b", "2024-01-01T00:00:00Z", "[{backendRefs: [{name: dns2, port: 53}]}]"), "kube_infra_dns2_53", []string{"GWP213"}},
		{"a UDPRoute of two rules is refused, the next one served", gateway(eg) + svc +
			route("a", "2024-01-01T00:00:00Z", "[{backendRefs: [{name: dns2, port: 53}]}, {backendRefs: [{name: dns2, port: 53}]}]") +
			route("b", "2024-02-01T00:00:00Z", one), "kube_infra_dns_53", []string{"GWP212", "GWP213"}},
		{"datagrams to two weighted backends", gateway(eg) + svc +
			route("a", "2024-01-01T00:00:00Z", "[{backendRefs: [{name: dns, port: 53, weight: 1}, {name: dns2, port: 53, weight: 3}]}]"), "", []string{"GWP404"}},
		{"kgateway serves no UDP listener", gateway(kg) + svc + route("a", "2024-01-01T00:00:00Z", one), "", []string{"GWP216"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(tc.input), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			res := compile(t, &manifest.Set{Objects: objs}, policy.Config{})
			target := "envoygateway"
			if strings.Contains(tc.input, kg) {
				target = "kgateway"
			}
			out := render(t, res, envoy.Options{Target: target})
			cluster := ""
			for _, l := range out.Gateways[0].Listeners {
				if l.GetAddress().GetSocketAddress().GetProtocol().String() != "UDP" {
					continue
				}
				var proxy udpproxyv3.UdpProxyConfig
				if err := l.GetListenerFilters()[0].GetTypedConfig().UnmarshalTo(&proxy); err != nil {
					t.Fatal(err)
				}
				var r udpproxyv3.Route
				if err := proxy.GetMatcher().GetOnNoMatch().GetAction().GetTypedConfig().UnmarshalTo(&r); err != nil {
					t.Fatal(err)
				}
				cluster = r.GetCluster()
				if l.GetAddress().GetSocketAddress().GetPortValue() != 53 {
					t.Errorf("UDP listener on port %d, want 53", l.GetAddress().GetSocketAddress().GetPortValue())
				}
			}
			if cluster != tc.cluster {
				t.Errorf("UDP listener proxies to %q, want %q", cluster, tc.cluster)
			}
			var codes []string
			for _, d := range append(res.Graph.Diagnostics, append(res.Attach.Diagnostics, out.Diagnostics...)...) {
				if !slices.Contains(codes, d.Code) {
					codes = append(codes, d.Code)
				}
			}
			slices.Sort(codes)
			for _, c := range tc.codes {
				if !slices.Contains(codes, c) {
					t.Errorf("findings %v, want %s among them", codes, c)
				}
			}
			if tc.codes == nil && slices.ContainsFunc(codes, func(c string) bool { return c == "GWP213" || c == "GWP216" || c == "GWP404" }) {
				t.Errorf("findings %v, want none about UDP", codes)
			}
		})
	}
}

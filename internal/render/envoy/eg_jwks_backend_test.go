package envoy_test

import (
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	jwtauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestEnvoyGatewayJWKSThroughService: a remote JWKS fetched through one
// Service port is fetched, as Envoy Gateway v1.9 builds it
// (buildRemoteJWKS, translateExtServiceBackendRefs; xds jwt.go
// patchResources → createExtServiceXDSCluster), through the provider's
// cluster securitypolicy/<ns>/<name>/jwt/<i>: the port's endpoints, a
// 10s connect timeout, plain HTTP/1.1 whatever the URI's scheme, the
// provider's request timeout and retries from backendSettings; the
// route is served (before: GWP404, the routes 503); backendSettings
// shape the cluster as a service's no route owns (serviceClusterParts).
// Only backendRefs are read: without them the JWKS is fetched through
// its URI's cluster, which backendSettings shape too. A BackendTLSPolicy
// on the port is not built yet: GWP404 naming that cluster.
func TestEnvoyGatewayJWKSThroughService(t *testing.T) {
	sp := func(remote string) string {
		return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: infra}\n" +
			"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n" +
			"  jwt: {providers: [{name: idp, remoteJWKS: {uri: 'https://idp.example.com/jwks', " + remote + "}}]}\n"
	}
	btls := "---\napiVersion: gateway.networking.k8s.io/v1\nkind: BackendTLSPolicy\nmetadata: {name: tls, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: '', kind: Service, name: jwks}]\n  validation: {wellKnownCACertificates: System, hostname: idp.example.com}\n"
	base := egClass + egGateway("infra", egHTTP80) + egService("infra", "web", "{port: 80}") + egService("infra", "jwks", "{port: 8443}") + egShop("HTTPRoute")
	tokens := "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: SecurityPolicy\nmetadata: {name: sp, namespace: infra}\n" +
		"spec:\n  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: shop}]\n" +
		"  jwt: {providers: [{name: idp, recomputeRoute: true, extractFrom: {headers: [{name: X-Token}]}, remoteJWKS: {uri: 'https://idp.example.com/jwks', backendRefs: [{name: jwks, port: 8443}]}}]}\n"
	const own = "securitypolicy/infra/sp/jwt/0"
	const uri = "idp_example_com_443"
	plain := func(c *clusterv3.Cluster, _ *jwtauthnv3.JwtProvider) string {
		if c.GetEdsClusterConfig().GetServiceName() != policy.ServiceCluster("infra", "jwks", 8443) || c.GetConnectTimeout().AsDuration().Seconds() != 10 ||
			c.GetTransportSocket() != nil || len(c.GetTypedExtensionProtocolOptions()) != 0 {
			return "want the port's endpoints, 10s, plain HTTP/1.1"
		}
		return ""
	}
	for _, tc := range []struct {
		name, extra string
		unsupported bool
		// cluster: the one the JWKS is fetched through; check: what it
		// and the provider must hold ("" when they do)
		cluster string
		check   func(*clusterv3.Cluster, *jwtauthnv3.JwtProvider) string
	}{
		{"one Service port, the provider's timeout and retry", sp("backendRefs: [{name: jwks, port: 8443}], backendSettings: {timeout: {http: {requestTimeout: 3s}}, retry: {numRetries: 2}}"), false, own, plain},
		{"the deprecated backendRef is not read: the URI's cluster", sp("backendRef: {name: jwks, port: 8443}"), false, uri, func(c *clusterv3.Cluster, _ *jwtauthnv3.JwtProvider) string {
			if c.GetType() != clusterv3.Cluster_STRICT_DNS {
				return "want the URI's DNS cluster"
			}
			return ""
		}},
		{"a BackendTLSPolicy on the port", sp("backendRefs: [{name: jwks, port: 8443}]") + btls, true, own, nil},
		{"backendSettings shaping the cluster", sp("backendRefs: [{name: jwks, port: 8443}], backendSettings: {circuitBreaker: {maxConnections: 10}, connection: {bufferLimit: 1Mi}}"), false, own,
			func(c *clusterv3.Cluster, _ *jwtauthnv3.JwtProvider) string {
				th := c.GetCircuitBreakers().GetThresholds()
				if len(th) != 1 || th[0].GetMaxConnections().GetValue() != 10 || c.GetPerConnectionBufferLimitBytes().GetValue() != 1<<20 || c.GetEdsClusterConfig() == nil {
					return "want the port's endpoints, 10 connections, a 1 MiB buffer"
				}
				return ""
			}},
		{"backendSettings alone shape the URI's cluster", sp("backendSettings: {timeout: {tcp: {connectTimeout: 4s}, http: {requestTimeout: 3s}}}"), false, uri,
			func(c *clusterv3.Cluster, p *jwtauthnv3.JwtProvider) string {
				if c.GetConnectTimeout().AsDuration().Seconds() != 4 || c.GetTransportSocket() == nil || p.GetRemoteJwks().GetHttpUri().GetTimeout().AsDuration().Seconds() != 3 {
					return "want the URI's TLS cluster with a 4s connect timeout, the fetch timing out after 3s"
				}
				return ""
			}},
		{"through backends, the token sources kept", tokens, false, own,
			func(_ *clusterv3.Cluster, p *jwtauthnv3.JwtProvider) string {
				if !p.GetClearRouteCache() || len(p.GetFromHeaders()) != 1 {
					return "want the provider recomputing the route and reading X-Token"
				}
				return ""
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(base+tc.extra), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			out := render(t, compile(t, &manifest.Set{Objects: objs}, policy.Config{}), envoy.Options{Target: "envoygateway"})
			var unsupported bool
			for _, d := range out.Diagnostics {
				if d.Code == "GWP404" && strings.Contains(d.Message, "remoteJWKS.backendRefs") && strings.Contains(d.Message, own) {
					unsupported = true
				} else if d.Severity.String() == "error" {
					t.Errorf("diagnostic %s", d.Message)
				}
			}
			if unsupported != tc.unsupported {
				t.Fatalf("unsupported %v, want %v: %v", unsupported, tc.unsupported, out.Diagnostics)
			}
			if tc.unsupported || len(out.Gateways) != 1 {
				return
			}
			gw := out.Gateways[0]
			r := gw.RouteConfigurations[0].VirtualHosts[0].Routes[0]
			if r.GetRoute() == nil {
				t.Fatalf("route %v, want it forwarding", r.Action)
			}
			var cluster *clusterv3.Cluster
			for _, c := range gw.Clusters {
				if c.GetName() == tc.cluster {
					cluster = c
				}
			}
			if cluster == nil {
				t.Fatalf("no cluster %s among %v", tc.cluster, clusterNames(gw))
			}
			var jwt *jwtauthnv3.JwtAuthentication
			for _, f := range hcmOf(t, gw.Listeners[0].FilterChains[0]).GetHttpFilters() {
				if f.GetName() == "envoy.filters.http.jwt_authn" {
					jwt = &jwtauthnv3.JwtAuthentication{}
					if err := f.GetTypedConfig().UnmarshalTo(jwt); err != nil {
						t.Fatal(err)
					}
				}
			}
			if len(jwt.GetProviders()) != 1 {
				t.Fatalf("jwt filter %v, want one provider", jwt)
			}
			for _, p := range jwt.GetProviders() {
				if got := p.GetRemoteJwks().GetHttpUri().GetCluster(); got != tc.cluster {
					t.Errorf("JWKS fetched through %q, want %q", got, tc.cluster)
				}
				if why := tc.check(cluster, p); why != "" {
					t.Errorf("cluster %v, provider %v: %s", cluster, p, why)
				}
			}
		})
	}
}

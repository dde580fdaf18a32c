package envoy_test

import (
	"fmt"
	"testing"

	"github.com/gwpol/gwpol/internal/secret/secrettest"
)

// TestRedirectPort: a RequestRedirect's Location leaves out the port that
// is the well-known one of the scheme it uses — the filter's scheme, else
// the listener's (https on an HTTPS listener, http otherwise) — whether
// the filter names the port or the listener gives it, as the Gateway API
// asks and kgateway's applyRedirectPortPostProcessing does
// (krtcollections/builtin.go@15b44643); any other port is kept. Before, a
// port the filter named without a scheme was always kept. Envoy Gateway
// (Target.RedirectPortsByNumber) takes the filter's port, else the
// scheme's well-known one, else the listener's
// (processHTTPRouteParentRefListener), and leaves out 80 and 443 whatever
// the scheme (xds route.go: buildXdsRedirectAction); each of its shapes
// was checked with egctl x translate v1.9.0 --to xds.
func TestRedirectPort(t *testing.T) {
	cert, key := secrettest.KeyPair()
	for _, tc := range []struct {
		name     string
		protocol string // the listener's
		port     int    // the listener's
		filter   string // the RequestRedirect's scheme and port
		want     uint32 // port_redirect, 0 for none
		eg       uint32 // port_redirect under envoygateway
	}{
		{"HTTP 80, nothing named", "HTTP", 80, "", 0, 0},
		{"HTTP 8080, nothing named", "HTTP", 8080, "", 8080, 8080},
		{"HTTPS 443, nothing named", "HTTPS", 443, "", 0, 0},
		{"HTTPS 8443, nothing named", "HTTPS", 8443, "", 8443, 8443},
		{"HTTP listener, port 80 named", "HTTP", 8080, "port: 80", 0, 0},
		{"HTTP listener, port 443 named", "HTTP", 80, "port: 443", 443, 0},
		{"HTTPS listener, port 443 named", "HTTPS", 8443, "port: 443", 0, 0},
		{"HTTPS listener, port 80 named", "HTTPS", 8443, "port: 80", 80, 0},
		{"https named on an HTTP listener", "HTTP", 8080, "scheme: https", 0, 0},
		{"https and 443 named", "HTTP", 8080, "scheme: https, port: 443", 0, 0},
		{"https and 80 named", "HTTP", 8080, "scheme: https, port: 80", 80, 0},
		{"http named on an HTTPS listener", "HTTPS", 8443, "scheme: http", 0, 0},
		{"http and the listener's port named", "HTTPS", 8443, "scheme: http, port: 8443", 8443, 8443},
		{"http named on an HTTP listener", "HTTP", 8080, "scheme: http", 0, 0},
		{"HTTP listener on 443, nothing named", "HTTP", 443, "", 443, 0},
		{"HTTPS listener on 80, nothing named", "HTTPS", 80, "", 80, 0},
		{"https and another port named", "HTTP", 8081, "scheme: https, port: 8443", 8443, 8443},
	} {
		for _, target := range []string{"kgateway", "envoy", "envoygateway"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				tls := ""
				if tc.protocol == "HTTPS" {
					tls = ", tls: {certificateRefs: [{name: cert}]}"
				}
				input := fmt.Sprintf(`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: l, protocol: %s, port: %d%s}
---
%stype: kubernetes.io/tls
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules: [{filters: [{type: RequestRedirect, requestRedirect: {hostname: x.example.com, %s}}]}]
`, tc.protocol, tc.port, tls, secrettest.SecretYAML("infra", "cert", "tls.crt", cert, "tls.key", key), tc.filter)
				gw := renderInline(t, input, target)
				found := false
				for _, rc := range gw.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							if rd := r.GetRedirect(); rd != nil {
								found = true
								want := tc.want
								if target == "envoygateway" {
									want = tc.eg
								}
								if got := rd.GetPortRedirect(); got != want {
									t.Errorf("port_redirect %d, want %d", got, want)
								}
							}
						}
					}
				}
				if !found {
					t.Fatal("no redirect route")
				}
			})
		}
	}
}

package envoy_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"
)

// TestVirtualHostOwner: on a port several HTTP listeners share, a
// hostname's virtual host is served by the most specific listener that
// covers it — an exact hostname before a wildcard, a longer wildcard
// before a shorter one whatever their order, any hostname before none,
// the first of equals — and only that listener's routes are programmed
// there (kgateway's translateHttpFilterChain takes the policies of the
// covering listener with the longest hostname, at every stored revision;
// the Gateway API's listener isolation asks the same).
func TestVirtualHostOwner(t *testing.T) {
	for _, tc := range []struct {
		name      string
		listeners []string // hostnames in listener order, "" for none
		host      string   // every listener's route claims it
		want      int      // index of the listener whose route serves it
	}{
		{"longer wildcard listed second", []string{"*.example.com", "*.foo.example.com"}, "a.foo.example.com", 1},
		{"longer wildcard listed first", []string{"*.foo.example.com", "*.example.com"}, "a.foo.example.com", 0},
		{"three wildcards, the deepest last", []string{"*.com", "*.example.com", "*.foo.example.com"}, "a.foo.example.com", 2},
		{"exact after wildcards", []string{"*.example.com", "*.foo.example.com", "a.foo.example.com"}, "a.foo.example.com", 2},
		{"no hostname after a wildcard", []string{"*.example.com", ""}, "a.example.com", 0},
		{"wildcard after no hostname", []string{"", "*.example.com"}, "a.example.com", 1},
		{"equal wildcards: the first", []string{"*.example.com", "*.example.com"}, "b.example.com", 0},
	} {
		for _, target := range envoyTargets() {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				var ls, routes strings.Builder
				for i, h := range tc.listeners {
					host := ""
					if h != "" {
						host = fmt.Sprintf(", hostname: %q", h)
					}
					fmt.Fprintf(&ls, "  - {name: l%d, protocol: HTTP, port: 8080%s}\n", i, host)
					fmt.Fprintf(&routes, `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r%d, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: l%d}]
  hostnames: [%q]
  rules: [{matches: [{path: {type: PathPrefix, value: /r%d}}], backendRefs: [{name: web, port: 80}]}]
`, i, i, tc.host, i)
				}
				input := `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
` + ls.String() + `---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
` + routes.String()
				gw := renderInline(t, input, target)
				var served []string
				for _, rc := range gw.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						if !slices.Contains(vh.Domains, tc.host) {
							continue
						}
						for _, r := range vh.Routes {
							p := r.GetMatch().GetPathSeparatedPrefix() + r.GetMatch().GetPrefix()
							served = append(served, p)
						}
					}
				}
				if want := []string{fmt.Sprintf("/r%d", tc.want)}; !slices.Equal(served, want) {
					t.Errorf("%s serves %v, want %v", tc.host, served, want)
				}
			})
		}
	}
}

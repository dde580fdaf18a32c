package status_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/status"
)

// bothClasses are kgateway's GatewayClass kgw and Envoy Gateway's eg: a
// test of one controller's rule shows the other's Gateways untouched.
const bothClasses = kgClassDoc + "---\n" + egClassDoc + "---\n"

// TestKgatewayXListenerSetReported: kgateway at the pin reads a
// gateway.networking.x-k8s.io XListenerSet as a ListenerSet of its parent
// (pluginsdk/collections/setup.go: InitCollections joins the converted
// legacy XListenerSets to the v1 ListenerSets under
// enableExperimentalGatewayAPIFeatures, keeping their kind); gwpol does
// not model it, so the object is reported where it is (GWP406), not
// dropped silently, whatever the Gateway's controller, while the v1
// ListenerSet beside it is read as before. Shapes no public case has: an
// XListenerSet under a kgateway Gateway with a route naming it, one
// under an Envoy Gateway Gateway (which reads none), and a v1 ListenerSet
// with the same spec.
func TestKgatewayXListenerSetReported(t *testing.T) {
	const base = bothClasses + `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: CLASS
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
`
	set := func(apiVersion, kind string) string {
		return `---
apiVersion: ` + apiVersion + `
kind: ` + kind + `
metadata: {name: extra, namespace: infra}
spec:
  parentRef: {group: gateway.networking.k8s.io, kind: Gateway, name: gw}
  listeners: [{name: more, protocol: HTTP, port: 8080, hostname: more.example.com}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: more, namespace: infra}
spec:
  parentRefs: [{group: ` + strings.Split(apiVersion, "/")[0] + `, kind: ` + kind + `, name: extra}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
`
	}
	for _, tc := range []struct {
		name, class, apiVersion, kind string
		reported, attached            bool
	}{
		{"an XListenerSet under kgateway", "kgw", "gateway.networking.x-k8s.io/v1alpha1", "XListenerSet", true, false},
		{"an XListenerSet under Envoy Gateway", "eg", "gateway.networking.x-k8s.io/v1alpha1", "XListenerSet", true, false},
		{"a v1 ListenerSet under kgateway", "kgw", "gateway.networking.k8s.io/v1", "ListenerSet", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := compileFull(t, strings.Replace(base, "CLASS", tc.class, 1)+set(tc.apiVersion, tc.kind))
			reported := 0
			for _, d := range c.Diagnostics() {
				if d.Code != "GWP406" {
					continue
				}
				reported++
				if d.Object.Kind != "XListenerSet" || d.Pos.Line == 0 || !strings.Contains(d.Message, "gateway.networking.k8s.io/v1 ListenerSet") {
					t.Errorf("GWP406 on %v at %v: %s", d.Object, d.Pos, d.Message)
				}
			}
			if (reported == 1) != tc.reported || reported > 1 {
				t.Errorf("GWP406 findings %d, want reported %v", reported, tc.reported)
			}
			rep := status.Compute(c.Result, status.Options{})
			attached := false
			for _, r := range rep.Routes {
				if r.Name != "more" {
					continue
				}
				for _, p := range r.Parents {
					if condOf(p.Conditions, "Accepted") == "True/Accepted" {
						attached = true
					}
				}
			}
			if attached != tc.attached {
				t.Errorf("route through the set attached %v, want %v", attached, tc.attached)
			}
		})
	}
}

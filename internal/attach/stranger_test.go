package attach_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
)

// strangers are Gateways of two registered controllers (kgateway and Envoy
// Gateway), one whose class names a controller no family holds, one whose
// class is not in the input, a ListenerSet on the Envoy Gateway one, and
// routes on each and on two of them.
const strangers = `
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kg}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: eg}
spec: {controllerName: gateway.envoyproxy.io/gatewayclass-controller}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: other}
spec: {controllerName: example.com/other}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: kgw, namespace: app, labels: {edge: "yes"}}
spec:
  gatewayClassName: kg
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: egw, namespace: app, labels: {edge: "yes"}}
spec:
  gatewayClassName: eg
  allowedListeners: {namespaces: {from: Same}}
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: ListenerSet
metadata: {name: set, namespace: app}
spec:
  parentRef: {name: egw}
  listeners: [{name: extra, protocol: HTTP, port: 8080}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: ogw, namespace: app}
spec:
  gatewayClassName: other
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: nogw, namespace: app}
spec:
  gatewayClassName: absent
  listeners: [{name: http, protocol: HTTP, port: 80}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: app}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-kg, namespace: app}
spec:
  parentRefs: [{name: kgw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: on-both, namespace: app}
spec:
  parentRefs: [{name: kgw}, {name: egw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
`

func btp(name, targets string) string {
	return "---\napiVersion: gateway.envoyproxy.io/v1alpha1\nkind: BackendTrafficPolicy\nmetadata: {name: " + name + ", namespace: app}\nspec:\n" + targets + "  timeout: {http: {requestTimeout: 7s}}\n"
}

func ref(kind, name, section string) string {
	s := "  - {group: gateway.networking.k8s.io, kind: " + kind + ", name: " + name
	if section != "" {
		s += ", sectionName: " + section
	}
	return s + "}\n"
}

// TestStrangerTargets: a family's policy kinds attach only to the
// Gateways (and their listeners, ListenerSets and routes) of its own
// controller's GatewayClasses; a Gateway whose class names a controller
// no family holds, or is not in the input, takes every kind. Shapes no
// public case has: every case mixes controllers.
func TestStrangerTargets(t *testing.T) {
	for _, tc := range []struct {
		name   string
		policy string
		// attached are the targets the policy attaches to ("Gateway
		// ns/name", "listener ns/gw/l", "ListenerSet ns/name", "HTTPRoute
		// ns/name"), sorted; strangers the number of GWP224 findings.
		attached  []string
		strangers int
		// want is a part of the first finding's message.
		want string
	}{
		{name: "Envoy Gateway policy on a kgateway Gateway", policy: btp("p", "  targetRefs:\n"+ref("Gateway", "kgw", "")),
			strangers: 1, want: "BackendTrafficPolicy is Envoy Gateway's kind and Gateway app/kgw is kgateway's (its GatewayClass names kgateway.dev/kgateway)"},
		{name: "kgateway TrafficPolicy on an Envoy Gateway listener", policy: tp("p", "", "  targetRefs:\n"+ref("Gateway", "egw", "http")),
			strangers: 1, want: "TrafficPolicy is kgateway's kind and Gateway app/egw is Envoy Gateway's"},
		{name: "kgateway TrafficPolicy on a ListenerSet of an Envoy Gateway Gateway", policy: tp("p", "", "  targetRefs:\n"+ref("ListenerSet", "set", "")),
			strangers: 1, want: "ListenerSet app/set's Gateway app/egw is Envoy Gateway's"},
		{name: "targets on both: only its own controller's Gateway", policy: tp("p", "", "  targetRefs:\n"+ref("Gateway", "kgw", "")+ref("Gateway", "egw", "")),
			attached: []string{"Gateway app/kgw"}, strangers: 1},
		{name: "a route whose every Gateway is another controller's", policy: btp("p", "  targetRefs:\n"+ref("HTTPRoute", "on-kg", "")),
			strangers: 1, want: "every Gateway of HTTPRoute app/on-kg (app/kgw)"},
		{name: "a route with a Gateway of its own controller among others", policy: btp("p", "  targetRefs:\n"+ref("HTTPRoute", "on-both", "")),
			attached: []string{"HTTPRoute app/on-both"}},
		{name: "a selector skips another controller's Gateway, without a finding",
			policy:   btp("p", "  targetSelectors: [{group: gateway.networking.k8s.io, kind: Gateway, matchLabels: {edge: \"yes\"}}]\n"),
			attached: []string{"Gateway app/egw"}},
		{name: "a class naming a controller no family holds takes every kind", policy: btp("p", "  targetRefs:\n"+ref("Gateway", "ogw", "")) + tp("q", "", "  targetRefs:\n"+ref("Gateway", "ogw", "")),
			attached: []string{"Gateway app/ogw", "Gateway app/ogw"}},
		{name: "a class not in the input takes every kind", policy: btp("p", "  targetRefs:\n"+ref("Gateway", "nogw", "")) + tp("q", "", "  targetRefs:\n"+ref("Gateway", "nogw", "")),
			attached: []string{"Gateway app/nogw", "Gateway app/nogw"}},
		{name: "the Gateway API's BackendTLSPolicy is every controller's", policy: `---
apiVersion: gateway.networking.k8s.io/v1
kind: BackendTLSPolicy
metadata: {name: p, namespace: app}
spec:
  targetRefs: [{group: "", kind: Service, name: svc}]
  validation: {hostname: svc.example.com, wellKnownCACertificates: System}
`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			objs, err := manifest.Parse("t.yaml", []byte(strangers+tc.policy), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			a := c.Result.Attach
			got := attachedTo(a)
			if !slices.Equal(got, tc.attached) {
				t.Errorf("attached to %q, want %q", got, tc.attached)
			}
			var msgs []string
			for _, d := range a.Diagnostics {
				if d.Code == attach.LintTargetOtherController.Code {
					msgs = append(msgs, d.Message)
				}
			}
			if len(msgs) != tc.strangers {
				t.Fatalf("GWP224 findings %q, want %d", msgs, tc.strangers)
			}
			if tc.want != "" && !strings.Contains(msgs[0], tc.want) {
				t.Errorf("GWP224 says %q, want it to say %q", msgs[0], tc.want)
			}
			for p, why := range a.Unresolved {
				t.Errorf("%s unresolved (%q): a Gateway of another controller is there, not missing", p.Obj.Name, why)
			}
		})
	}
}

// attachedTo lists every target of a Gateway, listener, ListenerSet or
// route attachment, sorted.
func attachedTo(a *attach.Result) []string {
	var out []string
	for gw, l := range a.Gateway {
		for range l {
			out = append(out, "Gateway "+gw.Namespace+"/"+gw.Name)
		}
	}
	for l, as := range a.Listener {
		for range as {
			out = append(out, "listener "+l.ID())
		}
	}
	for s, as := range a.ListenerSet {
		for range as {
			out = append(out, "ListenerSet "+s.Namespace+"/"+s.Name)
		}
	}
	for rt, as := range a.Route {
		for range as {
			out = append(out, rt.Kind+" "+rt.Meta.Namespace+"/"+rt.Meta.Name)
		}
	}
	slices.Sort(out)
	return out
}

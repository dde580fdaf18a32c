package topology

import (
	"slices"
	"strings"
	"testing"
)

// TestStreamRouteRule: the routes a stream listener programs are its
// Gateway's controller's (Controller.StreamRoutes), else
// Options.StreamRoutes', else every route attached; a route the rule
// leaves out is reported (GWP213) with the rule's reason, at its field.
func TestStreamRouteRule(t *testing.T) {
	const in = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cls}
spec: {controllerName: example.com/own}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: ns}
spec:
  gatewayClassName: cls
  listeners:
  - {name: tls, protocol: TLS, port: 8443, tls: {mode: Passthrough}}
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: ns}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: a, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TLSRoute
metadata: {name: b, namespace: ns}
spec:
  parentRefs: [{name: gw}]
  rules: [{backendRefs: [{name: svc, port: 80}]}]`
	only := func(name string) StreamRouteRule {
		return StreamRouteRule{
			Served: func(l *Listener) []*Attachment {
				return slices.DeleteFunc(slices.Clone(l.Routes), func(a *Attachment) bool { return a.Route.Meta.Name != name })
			},
			Why: func(l *Listener, a *Attachment) (string, string) {
				return "spec.parentRefs[0]", "only " + name + " is served"
			},
		}
	}
	cases := []struct {
		name string
		opt  Options
		want []string
		gap  string // why b gets no chain
	}{
		{"no rule: every route", Options{}, []string{"a", "b"}, ""},
		{"the default rule", Options{StreamRoutes: only("a")}, []string{"a"}, "only a is served"},
		{"the controller's own rule first", Options{StreamRoutes: only("b"), Controllers: map[string]Controller{"example.com/own": {StreamRoutes: only("a")}}}, []string{"a"}, "only a is served"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			g := graph(t, c.opt, in)
			l := g.Gateway("ns", "gw").Listener("tls")
			var got []string
			for _, a := range l.StreamRoutes() {
				got = append(got, a.Route.Meta.Name)
			}
			if !slices.Equal(got, c.want) {
				t.Errorf("StreamRoutes = %q, want %q", got, c.want)
			}
			b := l.Routes[slices.IndexFunc(l.Routes, func(a *Attachment) bool { return a.Route.Meta.Name == "b" })]
			if gap := l.StreamRouteGap(b); gap != c.gap {
				t.Errorf("StreamRouteGap(b) = %q, want %q", gap, c.gap)
			}
			var reported []string
			for _, d := range g.Diagnostics {
				if d.Code == LintStreamRouteNotProgrammed.Code {
					reported = append(reported, d.Field+": "+d.Message)
				}
			}
			if c.gap == "" && len(reported) > 0 || c.gap != "" && (len(reported) != 1 || !strings.HasPrefix(reported[0], "spec.parentRefs[0]: ") || !strings.HasSuffix(reported[0], c.gap)) {
				t.Errorf("GWP213 findings %q, want one for b saying %q", reported, c.gap)
			}
		})
	}
}

package envoy_test

import (
	"fmt"
	"slices"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
)

// TestHeaderModifierOrder: a Gateway API header modifier's entries are
// written in the order the target's controller converts them, since Envoy
// applies them in order and a header both added and set ends with the
// value of the last: kgateway writes the adds, then the sets
// (krtcollections/builtin.go: convertHeaderModifierIR), on the route, on
// a backendRef's share of weighted clusters and on a redirect alike;
// upstream Envoy's target keeps the sets first.
func TestHeaderModifierOrder(t *testing.T) {
	const svc = `
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: infra}
spec: {ports: [{port: 80}]}
`
	// the filter, in request and response form, with X-Both added and set
	filter := func(kind string) string {
		return fmt.Sprintf(`{type: %s, %s: {set: [{name: X-Both, value: s}, {name: X-Set, value: s}], add: [{name: X-Both, value: a}, {name: X-Add, value: a}]}}`,
			kind, map[string]string{"RequestHeaderModifier": "requestHeaderModifier", "ResponseHeaderModifier": "responseHeaderModifier"}[kind])
	}
	route := func(rule string) string {
		return behaviourBase + svc + `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: a}]
  rules:
  - ` + rule + "\n"
	}
	addsFirst := []string{"X-Both=a+", "X-Add=a+", "X-Both=s", "X-Set=s"}
	setsFirst := []string{"X-Both=s", "X-Set=s", "X-Both=a+", "X-Add=a+"}
	for _, tc := range []struct {
		name, rule string
		// where reads the options compared from the rule's Envoy route
		where func(*routev3.Route) []*corev3.HeaderValueOption
	}{
		{"request headers on the route", `{filters: [` + filter("RequestHeaderModifier") + `], backendRefs: [{name: web, port: 80}]}`,
			(*routev3.Route).GetRequestHeadersToAdd},
		{"response headers on the route", `{filters: [` + filter("ResponseHeaderModifier") + `], backendRefs: [{name: web, port: 80}]}`,
			(*routev3.Route).GetResponseHeadersToAdd},
		{"a redirect's headers", `{filters: [{type: RequestRedirect, requestRedirect: {hostname: x.example.com}}, ` + filter("RequestHeaderModifier") + `]}`,
			(*routev3.Route).GetRequestHeadersToAdd},
		{"a backendRef's share of weighted clusters", `{backendRefs: [{name: web, port: 80, filters: [` + filter("RequestHeaderModifier") + `]}, {name: other, port: 80}]}`,
			func(r *routev3.Route) []*corev3.HeaderValueOption {
				for _, c := range r.GetRoute().GetWeightedClusters().GetClusters() {
					if len(c.RequestHeadersToAdd) > 0 {
						return c.RequestHeadersToAdd
					}
				}
				return nil
			}},
	} {
		for _, target := range []string{"kgateway", "envoy"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				gw := renderInline(t, route(tc.rule), target)
				var got []string
				for _, rc := range gw.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							for _, o := range tc.where(r) {
								s := o.Header.Key + "=" + o.Header.Value
								if o.AppendAction == corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD {
									s += "+"
								}
								got = append(got, s)
							}
						}
					}
				}
				want := setsFirst
				if target == "kgateway" {
					want = addsFirst
				}
				if !slices.Equal(got, want) {
					t.Errorf("header options %v, want %v", got, want)
				}
			})
		}
	}
}

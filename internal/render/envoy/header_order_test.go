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
// upstream Envoy's target keeps the sets first. Envoy Gateway writes the
// adds first too, and a set of a name an add already has is dropped
// (Target.HeaderNamesOnce; TestHeaderNamesOnce).
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
	addsOnce := []string{"X-Both=a+", "X-Add=a+", "X-Set=s"}
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
		for _, target := range []string{"kgateway", "envoy", "envoygateway"} {
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
				want := map[string][]string{"kgateway": addsFirst, "envoy": setsFirst, "envoygateway": addsOnce}[target]
				if !slices.Equal(got, want) {
					t.Errorf("header options %v, want %v", got, want)
				}
			})
		}
	}
}

// TestHeaderNamesOnce: under Envoy Gateway (Target.HeaderNamesOnce) a
// rule's header filters, and each backendRef's, write a header name once
// per direction, whatever its letters' case: the first add of it (adds
// are written first), else its first set; a later add or set of the name
// is dropped, and a header removed twice is removed once
// (processRequestHeaderModifierFilter and processResponseHeaderModifierFilter
// compare names with strings.EqualFold against every header the filters
// already add, set or remove). Other targets write every entry. The shapes
// were checked with egctl x translate v1.9.0 --to xds.
func TestHeaderNamesOnce(t *testing.T) {
	const svc = `
---
apiVersion: v1
kind: Service
metadata: {name: other, namespace: infra}
spec: {ports: [{port: 80}]}
`
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
	const req = `{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: X-Both, value: s}, {name: X-Set, value: s}, {name: x-add2, value: s2}, {name: x-set, value: s3}],
    add: [{name: X-Both, value: a}, {name: X-Add, value: a}, {name: x-both, value: a2}, {name: X-Add2, value: v}], remove: [X-R, x-r, X-Q]}}`
	const resp = `{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: X-Both, value: s}, {name: X-Set, value: s}],
    add: [{name: X-Both, value: a}, {name: X-Add, value: a}, {name: x-both, value: a2}], remove: [X-R, x-r]}}`
	view := func(opts []*corev3.HeaderValueOption, removed []string) []string {
		var out []string
		for _, o := range opts {
			s := o.Header.Key + "=" + o.Header.Value
			if o.AppendAction == corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD {
				s += "+"
			}
			out = append(out, s)
		}
		for _, r := range removed {
			out = append(out, "-"+r)
		}
		return out
	}
	for _, tc := range []struct {
		name, rule string
		where      func(*routev3.Route) []string
		want       map[string][]string
	}{
		{"request headers, names in two cases", `{filters: [` + req + `], backendRefs: [{name: web, port: 80}]}`,
			func(r *routev3.Route) []string { return view(r.RequestHeadersToAdd, r.RequestHeadersToRemove) },
			map[string][]string{
				"envoygateway": {"X-Both=a+", "X-Add=a+", "X-Add2=v+", "X-Set=s", "-X-R", "-X-Q"},
				"envoy":        {"X-Both=s", "X-Set=s", "x-add2=s2", "x-set=s3", "X-Both=a+", "X-Add=a+", "x-both=a2+", "X-Add2=v+", "-X-R", "-x-r", "-X-Q"},
			}},
		{"response headers, counted apart from the request's", `{filters: [` + req + `, ` + resp + `], backendRefs: [{name: web, port: 80}]}`,
			func(r *routev3.Route) []string { return view(r.ResponseHeadersToAdd, r.ResponseHeadersToRemove) },
			map[string][]string{
				"envoygateway": {"X-Both=a+", "X-Add=a+", "X-Set=s", "-X-R"},
				"envoy":        {"X-Both=s", "X-Set=s", "X-Both=a+", "X-Add=a+", "x-both=a2+", "-X-R", "-x-r"},
			}},
		{"a backendRef's filters, a list of their own", `{filters: [` + req + `], backendRefs: [{name: web, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: x-both, value: s}], add: [{name: X-Add, value: b}, {name: X-ADD, value: c}]}}]}, {name: other, port: 80}]}`,
			func(r *routev3.Route) []string {
				for _, c := range r.GetRoute().GetWeightedClusters().GetClusters() {
					if len(c.RequestHeadersToAdd) > 0 {
						return view(c.RequestHeadersToAdd, c.RequestHeadersToRemove)
					}
				}
				return nil
			},
			map[string][]string{
				"envoygateway": {"X-Add=b+", "x-both=s"},
				"envoy":        {"x-both=s", "X-Add=b+", "X-ADD=c+"},
			}},
	} {
		for _, target := range []string{"envoygateway", "envoy"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				gw := renderInline(t, route(tc.rule), target)
				var got []string
				for _, rc := range gw.RouteConfigurations {
					for _, vh := range rc.VirtualHosts {
						for _, r := range vh.Routes {
							got = append(got, tc.where(r)...)
						}
					}
				}
				if want := tc.want[target]; !slices.Equal(got, want) {
					t.Errorf("headers %v, want %v", got, want)
				}
			})
		}
	}
}

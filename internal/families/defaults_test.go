package families

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/pipeline"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

const defaultsGateway = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: apps}
spec:
  gatewayClassName: eg
  listeners:
  - {name: http, port: 80, protocol: HTTP%s}
---
`

// TestModelReadsDefaultedObjects: the model reads what the API server
// stores — each object pruned and defaulted from its CRD — so a field the
// input leaves out holds the CRD's default, a field it sets holds what it
// sets, and the YAML tree (every position) stays as written; whether the
// input is read whole or decoded as it is read (Predecode).
func TestModelReadsDefaultedObjects(t *testing.T) {
	type check struct {
		path string // a field that is the CRD's default (Defaulted), or written when written is true
		got  func(m *model.Model) any
		want any
	}
	route := func(m *model.Model) *model.Route { return m.Route("HTTPRoute", "apps", "r") }
	tests := []struct {
		name     string
		listener string // added to the listener
		rule     string // one HTTPRoute rule, as a flow mapping
		written  bool   // the checked field is the input's
		checks   []check
	}{
		{name: "rule without matches", rule: `{backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.rules[0].matches", func(m *model.Model) any {
				t, v := route(m).HTTP.Spec.Rules[0].Matches[0].Path.Type, route(m).HTTP.Spec.Rules[0].Matches[0].Path.Value
				return string(*t) + " " + *v
			}, "PathPrefix /"},
		}},
		{name: "match without path", rule: `{matches: [{method: GET}], backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.rules[0].matches[0].path", func(m *model.Model) any {
				p := route(m).HTTP.Spec.Rules[0].Matches[0].Path
				return string(*p.Type) + " " + *p.Value
			}, "PathPrefix /"},
		}},
		{name: "path without type", rule: `{matches: [{path: {value: /a}}], backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.rules[0].matches[0].path.type", func(m *model.Model) any {
				p := route(m).HTTP.Spec.Rules[0].Matches[0].Path
				return string(*p.Type) + " " + *p.Value
			}, "PathPrefix /a"},
		}},
		{name: "path type written", written: true, rule: `{matches: [{path: {type: Exact, value: /a}}], backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.rules[0].matches[0].path.type", func(m *model.Model) any { return string(*route(m).HTTP.Spec.Rules[0].Matches[0].Path.Type) }, "Exact"},
		}},
		{name: "backendRef without weight, group or kind", rule: `{backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.rules[0].backendRefs[0].weight", func(m *model.Model) any { return *route(m).HTTP.Spec.Rules[0].BackendRefs[0].Weight }, int32(1)},
			{"spec.rules[0].backendRefs[0].kind", func(m *model.Model) any { return string(*route(m).HTTP.Spec.Rules[0].BackendRefs[0].Kind) }, "Service"},
			{"spec.rules[0].backendRefs[0].group", func(m *model.Model) any { return string(*route(m).HTTP.Spec.Rules[0].BackendRefs[0].Group) }, ""},
		}},
		{name: "backendRef weight written", written: true, rule: `{backendRefs: [{name: s, port: 80, weight: 0}]}`, checks: []check{
			{"spec.rules[0].backendRefs[0].weight", func(m *model.Model) any { return *route(m).HTTP.Spec.Rules[0].BackendRefs[0].Weight }, int32(0)},
		}},
		{name: "redirect without statusCode", rule: `{filters: [{type: RequestRedirect, requestRedirect: {hostname: b.example.com}}]}`, checks: []check{
			{"spec.rules[0].filters[0].requestRedirect.statusCode", func(m *model.Model) any {
				return *route(m).HTTP.Spec.Rules[0].Filters[0].RequestRedirect.StatusCode
			}, 302},
		}},
		{name: "redirect statusCode written", written: true, rule: `{filters: [{type: RequestRedirect, requestRedirect: {statusCode: 301}}]}`, checks: []check{
			{"spec.rules[0].filters[0].requestRedirect.statusCode", func(m *model.Model) any {
				return *route(m).HTTP.Spec.Rules[0].Filters[0].RequestRedirect.StatusCode
			}, 301},
		}},
		{name: "parentRef without group or kind", rule: `{backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.parentRefs[0].kind", func(m *model.Model) any { return string(*route(m).ParentRefs[0].Kind) }, "Gateway"},
			{"spec.parentRefs[0].group", func(m *model.Model) any { return string(*route(m).ParentRefs[0].Group) }, gwv1.GroupName},
		}},
		{name: "listener without allowedRoutes", rule: `{backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.listeners[0].allowedRoutes", func(m *model.Model) any {
				return string(*m.Gateway("apps", "gw").Spec.Listeners[0].AllowedRoutes.Namespaces.From)
			}, "Same"},
		}},
		{name: "allowedRoutes without from", listener: `, allowedRoutes: {kinds: [{kind: HTTPRoute}]}`, rule: `{backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.listeners[0].allowedRoutes.namespaces", func(m *model.Model) any {
				return string(*m.Gateway("apps", "gw").Spec.Listeners[0].AllowedRoutes.Namespaces.From)
			}, "Same"},
			{"spec.listeners[0].allowedRoutes.kinds[0].group", func(m *model.Model) any {
				return string(*m.Gateway("apps", "gw").Spec.Listeners[0].AllowedRoutes.Kinds[0].Group)
			}, gwv1.GroupName},
		}},
		{name: "allowedRoutes from written", written: true, listener: `, allowedRoutes: {namespaces: {from: All}}`, rule: `{backendRefs: [{name: s, port: 80}]}`, checks: []check{
			{"spec.listeners[0].allowedRoutes.namespaces.from", func(m *model.Model) any {
				return string(*m.Gateway("apps", "gw").Spec.Listeners[0].AllowedRoutes.Namespaces.From)
			}, "All"},
		}},
	}
	dir := t.TempDir()
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := filepath.Join(dir, "in.yaml")
			src := []byte(fmt.Sprintf(defaultsGateway, tc.listener) + `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: apps}
spec:
  parentRefs: [{name: gw}]
  rules:
  - ` + tc.rule + "\n")
			if err := os.WriteFile(in, src, 0o600); err != nil {
				t.Fatal(err)
			}
			cfg := &pipeline.Config{}
			for _, opt := range []manifest.Options{{}, {Each: Predecode(cfg)}} {
				set, err := manifest.Load([]string{in}, opt)
				if err != nil {
					t.Fatal(err)
				}
				c := Compile(set, cfg)
				if errs := c.Errors(); len(errs) > 0 {
					t.Fatalf("errors: %v", errs)
				}
				for _, ck := range tc.checks {
					if got := ck.got(c.Model); got != ck.want {
						t.Errorf("predecoded %v: %s = %v (%T), want %v (%T)", opt.Each != nil, ck.path, got, got, ck.want, ck.want)
					}
					kind := "HTTPRoute"
					if strings.HasPrefix(ck.path, "spec.listeners") {
						kind = "Gateway"
					}
					var o *manifest.Object
					for _, x := range set.Objects {
						if x.Kind == kind {
							o = x
						}
					}
					if tc.written != o.Has(ck.path) || o.Defaulted(ck.path) == tc.written {
						t.Errorf("%s: written %v, defaulted %v; want written %v", ck.path, o.Has(ck.path), o.Defaulted(ck.path), tc.written)
					}
				}
			}
		})
	}
}

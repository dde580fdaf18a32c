package kgateway_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/render/envoy"
	"github.com/gwpol/gwpol/internal/status"
)

// instanceBase is Gateway shop/gw with HTTPRoute shop/cart, and two
// GatewayExtensions of each kind (a and b) calling Service shop/svc.
const instanceBase = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: kgw
  listeners: [{name: web, port: 8080, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: shop}
spec: {ports: [{port: 80}, {port: 9000}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: r0, backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: auth-a, namespace: shop}
spec: {extAuth: {grpcService: {backendRef: {name: svc, port: 9000}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: auth-b, namespace: shop}
spec: {extAuth: {grpcService: {backendRef: {name: svc, port: 9000}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: proc-a, namespace: shop}
spec: {extProc: {grpcService: {backendRef: {name: svc, port: 9000}}}}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: proc-b, namespace: shop}
spec: {extProc: {grpcService: {backendRef: {name: svc, port: 9000}}}}
`

// instancePolicy is a TrafficPolicy on the route (on rule r0 with
// section) created at second n with one field given as a flow mapping.
func instancePolicy(name string, n int, section, field string) string {
	sec := ""
	if section != "" {
		sec = ", sectionName: " + section
	}
	return fmt.Sprintf(`---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: %s, namespace: shop, creationTimestamp: "2026-01-01T00:00:%02dZ"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: cart%s}]
  %s
`, name, n, sec, field)
}

// TestDeepMergeOnePerInstance: kgateway deep-merges extAuth and extProc
// (policyMerge DeepMerge) provider by provider — a policy calling a
// GatewayExtension that a policy merged before it already calls is not
// merged (mergeExtAuth/mergeExtProc: `!providerNames.IsSuperset`), so its
// settings for that provider are dropped, it is no merge origin, and a
// policy left with no field merged is Overridden; policies calling other
// extensions, and a disable, merge. Render, status, the merge metadata and
// explain agree.
func TestDeepMergeOnePerInstance(t *testing.T) {
	for _, tt := range []struct {
		name, key, policies string
		origins             []string          // the merge origins of the field
		attached            map[string]string // policy → its Attached condition
		calls               []string          // the check settings or processing modes render writes, by provider
	}{
		{"extAuth: the same extension twice, the older kept whole", "extAuth",
			instancePolicy("older", 1, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: older}}") +
				instancePolicy("newer", 2, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: newer}}"),
			[]string{"older"}, map[string]string{"older": "True/Attached", "newer": "False/Overridden"}, []string{"ext_auth/shop/auth-a who=older"}},
		{"extAuth: other extensions both merge", "extAuth",
			instancePolicy("older", 1, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: older}}") +
				instancePolicy("newer", 2, "", "extAuth: {extensionRef: {name: auth-b}, contextExtensions: {who: newer}}"),
			[]string{"newer", "older"}, map[string]string{"older": "True/Attached", "newer": "True/Attached"},
			[]string{"ext_auth/shop/auth-a who=older", "ext_auth/shop/auth-b who=newer"}},
		{"extAuth: the rule's policy first, the route's for the same extension dropped", "extAuth",
			instancePolicy("route", 1, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: route}}") +
				instancePolicy("rule", 2, "r0", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: rule}}"),
			[]string{"rule"}, map[string]string{"rule": "True/Attached", "route": "False/Overridden"}, []string{"ext_auth/shop/auth-a who=rule"}},
		{"extAuth: three policies, the middle one's extension taken", "extAuth",
			instancePolicy("a", 1, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: a}}") +
				instancePolicy("b", 2, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: b}}") +
				instancePolicy("c", 3, "", "extAuth: {extensionRef: {name: auth-b}, contextExtensions: {who: c}}"),
			[]string{"a", "c"}, map[string]string{"a": "True/Attached", "b": "False/Overridden", "c": "True/Attached"},
			[]string{"ext_auth/shop/auth-a who=a", "ext_auth/shop/auth-b who=c"}},
		{"extProc: the same extension twice, the older kept", "extProc",
			instancePolicy("older", 1, "", "extProc: {extensionRef: {name: proc-a}, processingMode: {requestHeaderMode: SKIP}}") +
				instancePolicy("newer", 2, "", "extProc: {extensionRef: {name: proc-a}, processingMode: {requestHeaderMode: SEND}}"),
			[]string{"older"}, map[string]string{"older": "True/Attached", "newer": "False/Overridden"}, nil},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(instanceBase+tt.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			settings := map[string]any{kgateway.PolicyMerge.Key: map[string]any{"trafficPolicy": map[string]any{tt.key: "DeepMerge"}}}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default", Settings: settings})
			cfg := policy.Config{}.WithSetting(kgateway.PolicyMerge.Key, settings[kgateway.PolicyMerge.Key])
			res := c.Result

			got := map[string]string{}
			for _, p := range status.Compute(res, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					for _, cond := range a.Conditions {
						if cond.Type == "Attached" {
							got[p.Name] = cond.Status + "/" + cond.Reason
						}
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.attached) {
				t.Errorf("Attached %v, want %v", got, tt.attached)
			}

			out, err := envoy.Render(res, envoy.Options{Target: "kgateway", Config: cfg, MergeKeyCompat: true})
			if err != nil || len(out.Diagnostics) > 0 {
				t.Fatalf("render: %v %v", err, out.Diagnostics)
			}
			r := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0]
			var origins []string
			for _, v := range r.GetMetadata().GetFilterMetadata()["merge.TrafficPolicy.gateway.kgateway.dev"].GetFields()[tt.key].GetListValue().GetValues() {
				origins = append(origins, strings.TrimPrefix(v.GetStringValue(), "gateway.kgateway.dev/TrafficPolicy/shop/"))
			}
			if !slices.Equal(origins, tt.origins) {
				t.Errorf("merge origins %v, want %v", origins, tt.origins)
			}
			if tt.calls != nil {
				var calls []string
				for name, a := range r.GetTypedPerFilterConfig() {
					if !strings.HasPrefix(name, "ext_auth/") {
						continue
					}
					var per extauthzv3.ExtAuthzPerRoute
					if err := a.UnmarshalTo(&per); err != nil {
						t.Fatal(err)
					}
					calls = append(calls, name+" who="+per.GetCheckSettings().GetContextExtensions()["who"])
				}
				slices.Sort(calls)
				if !slices.Equal(calls, tt.calls) {
					t.Errorf("per-provider settings %v, want %v", calls, tt.calls)
				}
			}

			// explain: the owner and contributors are the origins, the dropped policy a loser told why.
			rt := res.Graph.Routes[0]
			view := explain.Rule(res, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{Field: tt.key})
			if len(view.Fields) != 1 {
				t.Fatalf("explain: %+v", view.Fields)
			}
			var contributors []string
			for _, id := range view.Fields[0].Contributors {
				contributors = append(contributors, strings.TrimPrefix(id, "gateway.kgateway.dev/TrafficPolicy/shop/"))
			}
			slices.Sort(contributors)
			if !slices.Equal(contributors, tt.origins) {
				t.Errorf("explain contributors %v, want %v", contributors, tt.origins)
			}
			for _, d := range view.Fields[0].Decisions {
				if !strings.Contains(d.Reason, "takes each named instance from the first value") {
					t.Errorf("explain: decision against %s: %q", d.Loser, d.Reason)
				}
			}
		})
	}
}

// TestDeepMergeDisableWins: a disable deep-merged with policies calling
// extensions disables the family on the route, whichever policy is
// preferred: kgateway's merged IR has disableAllProviders, and its route
// pass writes the family's disable marker (and, for extAuth, the blank
// auth metadata) and returns before any provider's filter or per-route
// settings (extauth_policy.go: handleExtAuth, extproc_policy.go:
// handleExtProc). Before, gwpol wrote the marker and the providers both.
// The merge records a disable merged after other values as the field's
// only origin so far (mergeOrigins.SetOne): the policies merged before it
// are no origin and, with no other field, Overridden; those merged after
// it are (DeepResetter). Status, the merge metadata and explain agree.
func TestDeepMergeDisableWins(t *testing.T) {
	for _, tt := range []struct {
		name, key, policies string
		origins             []string          // the merge origins of the field, sorted
		attached            map[string]string // policy → its Attached condition
	}{
		{"extAuth: the older calls, the newer disables", "extAuth",
			instancePolicy("older", 1, "", "extAuth: {extensionRef: {name: auth-a}, contextExtensions: {who: older}}") +
				instancePolicy("newer", 2, "", "extAuth: {disable: {}}"),
			[]string{"newer"}, map[string]string{"older": "False/Overridden", "newer": "True/Attached"}},
		{"extAuth: the older disables, two newer call", "extAuth",
			instancePolicy("older", 1, "", "extAuth: {disable: {}}") +
				instancePolicy("mid", 2, "", "extAuth: {extensionRef: {name: auth-a}}") +
				instancePolicy("newer", 3, "", "extAuth: {extensionRef: {name: auth-b}, contextExtensions: {who: newer}}"),
			[]string{"mid", "newer", "older"}, map[string]string{"older": "True/Attached", "mid": "True/Attached", "newer": "True/Attached"}},
		{"extAuth: two disables, the later the origin", "extAuth",
			instancePolicy("older", 1, "", "extAuth: {disable: {}}") +
				instancePolicy("newer", 2, "", "extAuth: {disable: {}}"),
			[]string{"newer"}, map[string]string{"older": "False/Overridden", "newer": "True/Attached"}},
		{"extAuth: a call, a disable, a call of the first's extension dropped", "extAuth",
			instancePolicy("a", 1, "", "extAuth: {extensionRef: {name: auth-a}}") +
				instancePolicy("b", 2, "", "extAuth: {disable: {}}") +
				instancePolicy("c", 3, "", "extAuth: {extensionRef: {name: auth-a}}") +
				instancePolicy("d", 4, "", "extAuth: {extensionRef: {name: auth-b}}"),
			[]string{"b", "d"}, map[string]string{"a": "False/Overridden", "b": "True/Attached", "c": "False/Overridden", "d": "True/Attached"}},
		{"extAuth: the rule's policy disables, the route's calls", "extAuth",
			instancePolicy("route", 1, "", "extAuth: {extensionRef: {name: auth-a}}") +
				instancePolicy("rule", 2, "r0", "extAuth: {disable: {}}"),
			[]string{"route", "rule"}, map[string]string{"route": "True/Attached", "rule": "True/Attached"}},
		{"extProc: the older calls, the newer disables", "extProc",
			instancePolicy("older", 1, "", "extProc: {extensionRef: {name: proc-a}, processingMode: {requestHeaderMode: SKIP}}") +
				instancePolicy("newer", 2, "", "extProc: {disable: {}}"),
			[]string{"newer"}, map[string]string{"older": "False/Overridden", "newer": "True/Attached"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			objs, err := manifest.Parse("inline.yaml", []byte(instanceBase+tt.policies), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			settings := map[string]any{kgateway.PolicyMerge.Key: map[string]any{"trafficPolicy": map[string]any{tt.key: "DeepMerge"}}}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default", Settings: settings})
			cfg := policy.Config{}.WithSetting(kgateway.PolicyMerge.Key, settings[kgateway.PolicyMerge.Key])
			got := map[string]string{}
			for _, p := range status.Compute(c.Result, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					for _, cond := range a.Conditions {
						if cond.Type == "Attached" {
							got[p.Name] = cond.Status + "/" + cond.Reason
						}
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.attached) {
				t.Errorf("Attached %v, want %v", got, tt.attached)
			}
			out, err := envoy.Render(c.Result, envoy.Options{Target: "kgateway", Config: cfg, MergeKeyCompat: true})
			if err != nil || len(out.Diagnostics) > 0 {
				t.Fatalf("render: %v %v", err, out.Diagnostics)
			}
			family := map[string]string{"extAuth": "ext_auth", "extProc": "ext_proc"}[tt.key]
			r := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0]
			var names []string
			for name := range r.GetTypedPerFilterConfig() {
				if strings.Contains(name, family) {
					names = append(names, name)
				}
			}
			slices.Sort(names)
			want := []string{"global_disable/" + family}
			if !slices.Equal(names, want) {
				t.Errorf("the route's %s per-filter configs %v, want %v", family, names, want)
			}
			var origins []string
			for _, v := range r.GetMetadata().GetFilterMetadata()["merge.TrafficPolicy.gateway.kgateway.dev"].GetFields()[tt.key].GetListValue().GetValues() {
				origins = append(origins, strings.TrimPrefix(v.GetStringValue(), "gateway.kgateway.dev/TrafficPolicy/shop/"))
			}
			slices.Sort(origins)
			if !slices.Equal(origins, tt.origins) {
				t.Errorf("merge origins %v, want %v", origins, tt.origins)
			}
			rt := c.Result.Graph.Routes[0]
			view := explain.Rule(c.Result, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{Field: tt.key})
			if len(view.Fields) != 1 {
				t.Fatalf("explain: %+v", view.Fields)
			}
			var contributors []string
			for _, id := range view.Fields[0].Contributors {
				contributors = append(contributors, strings.TrimPrefix(id, "gateway.kgateway.dev/TrafficPolicy/shop/"))
			}
			slices.Sort(contributors)
			if !slices.Equal(contributors, tt.origins) {
				t.Errorf("explain contributors %v, want %v", contributors, tt.origins)
			}
			for _, d := range view.Fields[0].Decisions {
				if !strings.Contains(d.Reason, "takes each named instance") && !strings.Contains(d.Reason, "only origin so far") {
					t.Errorf("explain: decision against %s: %q", d.Loser, d.Reason)
				}
			}
			for _, l := range out.Gateways[0].Listeners {
				if s := fmt.Sprint(l); strings.Contains(s, family+"/shop/") {
					t.Errorf("a provider's filter is in the chain though the only route disables the family")
				}
			}
		})
	}
}

// delegatedDisableBase is Gateway shop/gw, HTTPRoute shop/top delegating
// /shop to HTTPRoute shop/kid under DeepMergePreferChild, and
// GatewayExtension shop/auth-a; TOP and KID are the extAuth values of a
// TrafficPolicy on each route.
const delegatedDisableBase = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: shop}
spec:
  gatewayClassName: kgw
  listeners: [{name: web, port: 8080, protocol: HTTP}]
---
apiVersion: v1
kind: Service
metadata: {name: svc, namespace: shop}
spec: {ports: [{port: 80}, {port: 9000}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: GatewayExtension
metadata: {name: auth-a, namespace: shop}
spec: {extAuth: {grpcService: {backendRef: {name: svc, port: 9000}}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: top, namespace: shop, annotations: {kgateway.dev/inherited-policy-priority: DeepMergePreferChild}}
spec:
  parentRefs: [{name: gw}]
  rules: [{matches: [{path: {type: PathPrefix, value: /shop}}], backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: kid, namespace: shop}
spec:
  rules: [{matches: [{path: {type: PathPrefix, value: /shop/x}}], backendRefs: [{name: svc, port: 80}]}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: top-tp, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: top}]
  extAuth: TOP
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: kid-tp, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: kid}]
  extAuth: KID
`

// TestDeepMergeDisableWinsDelegated: under a DeepMerge inherited priority
// the child's policies merge first and the parent's after them
// (MergeTrafficPolicies with the child's as p1), so a parent's disable is
// recorded alone as the origin and the child's call is dropped, while a
// child's disable stays beside the parent's call; the route is disabled
// either way.
func TestDeepMergeDisableWinsDelegated(t *testing.T) {
	for _, tt := range []struct {
		name, top, kid string
		origins        []string
		attached       map[string]string
	}{
		{"the parent disables, the child calls", "{disable: {}}", "{extensionRef: {name: auth-a}}",
			[]string{"top-tp"}, map[string]string{"top-tp": "True/Attached", "kid-tp": "False/Overridden"}},
		{"the child disables, the parent calls", "{extensionRef: {name: auth-a}}", "{disable: {}}",
			[]string{"kid-tp", "top-tp"}, map[string]string{"top-tp": "True/Attached", "kid-tp": "True/Attached"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			in := strings.NewReplacer("TOP", tt.top, "KID", tt.kid).Replace(delegatedDisableBase)
			objs, err := manifest.Parse("inline.yaml", []byte(in), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			c := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"})
			got := map[string]string{}
			for _, p := range status.Compute(c.Result, status.Options{}).Policies {
				for _, a := range p.Ancestors {
					for _, cond := range a.Conditions {
						if cond.Type == "Attached" {
							got[p.Name] = cond.Status + "/" + cond.Reason
						}
					}
				}
			}
			if fmt.Sprint(got) != fmt.Sprint(tt.attached) {
				t.Errorf("Attached %v, want %v", got, tt.attached)
			}
			out, err := envoy.Render(c.Result, envoy.Options{Target: "kgateway", Config: policy.Config{}, MergeKeyCompat: true})
			if err != nil || len(out.Diagnostics) > 0 {
				t.Fatalf("render: %v %v", err, out.Diagnostics)
			}
			var r *routev3.Route
			for _, x := range out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes() {
				if x.GetMatch().GetPrefix() == "/shop/x" || x.GetMatch().GetPathSeparatedPrefix() == "/shop/x" {
					r = x
				}
			}
			if r == nil {
				t.Fatalf("no route for /shop/x: %v", out.Gateways[0].RouteConfigurations[0])
			}
			var names []string
			for name := range r.GetTypedPerFilterConfig() {
				if strings.Contains(name, "ext_auth") {
					names = append(names, name)
				}
			}
			if !slices.Equal(names, []string{"global_disable/ext_auth"}) {
				t.Errorf("the route's ext_auth per-filter configs %v, want the disable alone", names)
			}
			var origins []string
			for _, v := range r.GetMetadata().GetFilterMetadata()["merge.TrafficPolicy.gateway.kgateway.dev"].GetFields()["extAuth"].GetListValue().GetValues() {
				origins = append(origins, strings.TrimPrefix(v.GetStringValue(), "gateway.kgateway.dev/TrafficPolicy/shop/"))
			}
			slices.Sort(origins)
			if !slices.Equal(origins, tt.origins) {
				t.Errorf("merge origins %v, want %v", origins, tt.origins)
			}
		})
	}
}

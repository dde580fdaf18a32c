package kgateway_test

import (
	"strings"
	"testing"

	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/families"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/pipeline"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// corsDelegationBase is Gateway infra/gw, HTTPRoute infra/top delegating
// /shop to every HTTPRoute of namespace mid, HTTPRoute mid/mid delegating
// /shop/x to every route of namespace shop, and HTTPRoute shop/child with
// a rule that has its own CORS filter ("own") and one without ("none").
// TOP_ANN, TOP_CORS, MID_CORS and CHILD_POLICY are replaced per case.
const corsDelegationBase = `apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: kgw}
spec: {controllerName: kgateway.dev/kgateway}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgw
  listeners: [{name: web, port: 8080, protocol: HTTP, allowedRoutes: {namespaces: {from: All}}}]
---
apiVersion: v1
kind: Service
metadata: {name: cart, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: top, namespace: infra, annotations: {TOP_ANN}}
spec:
  parentRefs: [{name: gw}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /shop}}]
    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "*", namespace: mid}]
    filters: [TOP_CORS]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: mid, namespace: mid}
spec:
  rules:
  - matches: [{path: {type: PathPrefix, value: /shop/x}}]
    backendRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: "*", namespace: shop}]
    filters: [MID_CORS]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: child, namespace: shop}
spec:
  rules:
  - name: own
    matches: [{path: {type: PathPrefix, value: /shop/x/own}}]
    backendRefs: [{name: cart, port: 80}]
    filters: [{type: CORS, cors: {allowOrigins: ["https://child.example"]}}]
  - name: none
    matches: [{path: {type: PathPrefix, value: /shop/x/none}}]
    backendRefs: [{name: cart, port: 80}]
CHILD_POLICY`

func corsFilter(origin string) string {
	return `{type: CORS, cors: {allowOrigins: ["https://` + origin + `.example"]}}`
}

const childPolicyCORS = `---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp, namespace: shop}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: child}]
  cors: {allowOrigins: ["https://policy.example"]}
`

// TestDelegatedRouteCORS: an HTTPRoute rule's own CORS filter is one of
// the rule's built-in policies, which kgateway writes on the route
// directly (corsIr.apply) while a TrafficPolicy's cors goes into the
// route's per-filter config map, copied onto the route only where the
// route has no entry yet (computeRoute) — so any built-in CORS beats every
// TrafficPolicy cors. A delegating rule's built-in policies are applied to
// each child route after the child's own, each only where settable under
// the parent route's inherited-policy-priority: a child without a CORS
// filter takes the nearest ancestor's, one with its own keeps it unless
// the ancestor's route prefers the parent (ShallowMergePreferParent or
// DeepMergePreferParent; CORS does not deep-merge). Render writes it,
// explain names the same owner.
func TestDelegatedRouteCORS(t *testing.T) {
	for _, tt := range []struct {
		name                 string
		topAnn, top, mid, tp string
		wantOwn, wantNone    string // the allowed origin's host prefix on each child rule's route
	}{
		{"a parent's CORS fills the child rule without one, ahead of the child's TrafficPolicy", "", corsFilter("top"), "", childPolicyCORS, "child", "top"},
		{"the nearest ancestor's CORS first", "", corsFilter("top"), corsFilter("mid"), "", "child", "mid"},
		{"no ancestor has CORS: the child's TrafficPolicy fills the rule without one", "", "", "", childPolicyCORS, "child", "policy"},
		{"ShallowMergePreferParent: the parent's replaces the child's own", "kgateway.dev/inherited-policy-priority: ShallowMergePreferParent", corsFilter("top"), "", childPolicyCORS, "top", "top"},
		{"DeepMergePreferParent: as shallow, CORS does not deep-merge", "kgateway.dev/inherited-policy-priority: DeepMergePreferParent", corsFilter("top"), "", "", "top", "top"},
		{"DeepMergePreferChild: the child's own kept", "kgateway.dev/inherited-policy-priority: DeepMergePreferChild", corsFilter("top"), "", "", "child", "top"},
		{"the top route prefers the parent over the nearer mid route's too", "kgateway.dev/inherited-policy-priority: ShallowMergePreferParent", corsFilter("top"), corsFilter("mid"), "", "top", "top"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			input := strings.NewReplacer("TOP_ANN", tt.topAnn, "TOP_CORS", tt.top, "MID_CORS", tt.mid, "CHILD_POLICY", tt.tp).Replace(corsDelegationBase)
			cfg := policy.Config{}
			objs, err := manifest.Parse("inline.yaml", []byte(input), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			res := families.Compile(&manifest.Set{Objects: objs}, &pipeline.Config{Namespace: "default"}).Result
			out, err := envoy.Render(res, envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil || len(out.Diagnostics) > 0 {
				t.Fatalf("render: %v %v", err, out.Diagnostics)
			}
			got := map[string]string{}
			for _, vh := range out.Gateways[0].RouteConfigurations[0].GetVirtualHosts() {
				for _, r := range vh.GetRoutes() {
					a := r.GetTypedPerFilterConfig()["envoy.filters.http.cors"]
					if a == nil {
						continue
					}
					var c corsv3.CorsPolicy
					if err := a.UnmarshalTo(&c); err != nil {
						t.Fatal(err)
					}
					origin := strings.TrimSuffix(strings.TrimPrefix(c.GetAllowOriginStringMatch()[0].GetExact(), "https://"), ".example")
					for _, rule := range []string{"own", "none"} {
						if strings.Contains(r.GetName(), "-"+rule+"-matcher") {
							got[rule] = origin
						}
					}
				}
			}
			if got["own"] != tt.wantOwn || got["none"] != tt.wantNone {
				t.Errorf("CORS origins own=%s none=%s, want own=%s none=%s", got["own"], got["none"], tt.wantOwn, tt.wantNone)
			}
			// explain names the route whose filter render wrote.
			owners := map[string]string{"top": "HTTPRoute infra/top", "mid": "HTTPRoute mid/mid", "child": "HTTPRoute shop/child", "policy": "gateway.kgateway.dev/TrafficPolicy/shop/tp"}
			for _, rt := range res.Graph.Routes {
				if rt.Meta.Name != "child" {
					continue
				}
				for _, rule := range rt.Rules {
					want := map[string]string{"own": tt.wantOwn, "none": tt.wantNone}[rule.Section()]
					view := explain.Rule(res, rt, rule, res.Graph.Gateways[0].Listeners[0], explain.Options{Field: "cors"})
					if len(view.Fields) != 1 || !strings.HasPrefix(view.Fields[0].Owner, owners[want]) {
						t.Errorf("explain %s: %+v, want owner %s", rule.Section(), view.Fields, owners[want])
						continue
					}
					for _, d := range view.Fields[0].Decisions {
						// an ancestor's filter beats the child's policy as a rule's own value, not by level
						if want != "child" && strings.Contains(d.Loser, "TrafficPolicy") && !strings.Contains(d.Reason, "comes before every policy") {
							t.Errorf("explain %s: decision against %s: %q", rule.Section(), d.Loser, d.Reason)
						}
					}
				}
			}
		})
	}
}

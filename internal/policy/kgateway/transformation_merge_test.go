package kgateway_test

import (
	"fmt"
	"strings"
	"testing"

	dynmodulefilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/dynamic_modules/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/explain"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/kgateway"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// transformationPolicy is a TrafficPolicy on HTTPRoute shop/cart (on its
// rule r0 with section "r0", on Gateway shop/gw with section "gw") with
// the transformation given as a flow mapping, created at second n.
func transformationPolicy(name string, n int, section, transformation string) string {
	target := "kind: HTTPRoute, name: cart"
	switch section {
	case "":
	case "gw":
		target = "kind: Gateway, name: gw"
	default:
		target += ", sectionName: " + section
	}
	return fmt.Sprintf(`---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: %s, namespace: shop, creationTimestamp: "2026-01-01T00:00:%02dZ"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, %s}]
  transformation: %s
`, name, n, target, transformation)
}

const cartRoute = `---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules: [{name: r0, backendRefs: [{name: cart, port: 80}]}]
`

// TestTransformationDeepMerge: kgateway deep-merges transformations
// (policyMerge trafficPolicy.transformation: DeepMerge) on the policies'
// JSON, the less preferred policy's as the base the preferred one is
// folded into: header lists of the less preferred first, the preferred
// policy's body, the least preferred request's (or response's)
// dynamicMetadata only, and the JSON written back with its keys sorted —
// for one policy too. Shallow merging keeps the preferred policy whole,
// its keys in the API's order. Shapes no public case has (the one public
// deep merge of transformations, a delegation's, adds response headers
// only).
func TestTransformationDeepMerge(t *testing.T) {
	const (
		md1 = `{request: {dynamicMetadata: [{namespace: ns1, key: k1, value: {stringValue: v1}}], set: [{name: x-a, value: a}]}}`
		md2 = `{request: {dynamicMetadata: [{namespace: ns2, key: k2, value: {stringValue: v2}}], add: [{name: x-b, value: b}]}}`
	)
	for _, tt := range []struct {
		name     string
		deep     bool
		policies string
		want     string // the route's per-route JSON
	}{
		{"one policy, deep: keys sorted", true,
			transformationPolicy("p", 1, "", `{request: {set: [{name: x-a, value: a}], add: [{name: x-b, value: b}], body: {value: "{{ body() }}"}, dynamicMetadata: [{namespace: ns, key: k, value: {stringValue: v}}]}}`),
			`{"request":{"add":[{"name":"x-b","value":"b"}],"body":{"parseAs":"AsString","value":"{{ body() }}"},"dynamicMetadata":[{"key":"k","namespace":"ns","value":{"stringValue":"v"}}],"set":[{"name":"x-a","value":"a"}]}}`},
		{"one policy, shallow: the API's order", false,
			transformationPolicy("p", 1, "", `{request: {set: [{name: x-a, value: a}], add: [{name: x-b, value: b}], dynamicMetadata: [{namespace: ns, key: k, value: {stringValue: v}}]}}`),
			`{"request":{"set":[{"name":"x-a","value":"a"}],"add":[{"name":"x-b","value":"b"}],"dynamicMetadata":[{"namespace":"ns","key":"k","value":{"stringValue":"v"}}]}}`},
		{"two policies: the newer's lists first, the older's body, the newer's dynamicMetadata", true,
			transformationPolicy("old", 1, "", `{request: {set: [{name: x-a, value: old}], body: {parseAs: AsJson}, dynamicMetadata: [{namespace: ns1, key: k1, value: {stringValue: v1}}]}}`) +
				transformationPolicy("new", 2, "", `{request: {set: [{name: x-a, value: new}], body: {parseAs: None}, dynamicMetadata: [{namespace: ns2, key: k2, value: {stringValue: v2}}]}}`),
			`{"request":{"body":{"parseAs":"AsJson"},"dynamicMetadata":[{"key":"k2","namespace":"ns2","value":{"stringValue":"v2"}}],"set":[{"name":"x-a","value":"new"},{"name":"x-a","value":"old"}]}}`},
		{"the less preferred without dynamicMetadata drops the preferred's", true,
			transformationPolicy("old", 1, "", md1) + transformationPolicy("new", 2, "", `{request: {remove: [x-c]}}`),
			`{"request":{"remove":["x-c"],"set":[{"name":"x-a","value":"a"}]}}`},
		{"a less preferred policy without a request keeps the preferred's whole", true,
			transformationPolicy("old", 1, "", md1) + transformationPolicy("new", 2, "", `{response: {remove: [server]}}`),
			`{"request":{"dynamicMetadata":[{"key":"k1","namespace":"ns1","value":{"stringValue":"v1"}}],"set":[{"name":"x-a","value":"a"}]},"response":{"remove":["server"]}}`},
		{"three policies: the least preferred with a request gives dynamicMetadata", true,
			transformationPolicy("a", 1, "", md1) + transformationPolicy("b", 2, "", md2) + transformationPolicy("c", 3, "", `{response: {add: [{name: x-r, value: r}]}}`),
			`{"request":{"add":[{"name":"x-b","value":"b"}],"dynamicMetadata":[{"key":"k2","namespace":"ns2","value":{"stringValue":"v2"}}],"set":[{"name":"x-a","value":"a"}]},"response":{"add":[{"name":"x-r","value":"r"}]}}`},
		{"an empty transformation takes no part", true,
			transformationPolicy("a", 1, "", `{}`) + transformationPolicy("b", 2, "", md2),
			`{"request":{"add":[{"name":"x-b","value":"b"}],"dynamicMetadata":[{"key":"k2","namespace":"ns2","value":{"stringValue":"v2"}}]}}`},
		{"shallow: the older policy whole", false,
			transformationPolicy("a", 1, "", md1) + transformationPolicy("b", 2, "", md2),
			`{"request":{"set":[{"name":"x-a","value":"a"}],"dynamicMetadata":[{"namespace":"ns1","key":"k1","value":{"stringValue":"v1"}}]}}`},
		{"a rule's policy and the route's are one level: the rule's preferred, the route's dynamicMetadata", true,
			transformationPolicy("route", 1, "", md1) + transformationPolicy("rule", 2, "r0", md2),
			`{"request":{"add":[{"name":"x-b","value":"b"}],"dynamicMetadata":[{"key":"k1","namespace":"ns1","value":{"stringValue":"v1"}}],"set":[{"name":"x-a","value":"a"}]}}`},
		{"the Gateway's policy configures the virtual host, not the route", true,
			transformationPolicy("gateway", 1, "gw", md1) + transformationPolicy("route", 2, "", md2),
			`{"request":{"add":[{"name":"x-b","value":"b"}],"dynamicMetadata":[{"key":"k2","namespace":"ns2","value":{"stringValue":"v2"}}]}}`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			cfg := policy.Config{}
			if tt.deep {
				cfg = cfg.WithSetting(kgateway.PolicyMerge.Key, map[string]any{"trafficPolicy": map[string]any{"transformation": "DeepMerge"}})
			}
			res := compileInline(t, httpGatewayInput+cartRoute+tt.policies, cfg)
			out, err := envoy.Render(res, envoy.Options{Target: "kgateway", Config: cfg})
			if err != nil || len(out.Diagnostics) > 0 {
				t.Fatalf("render: %v %v", err, out.Diagnostics)
			}
			r := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0]
			a := r.GetTypedPerFilterConfig()["dynamic_modules/simple_mutations"]
			if a == nil {
				t.Fatal("no transformation on the route")
			}
			var per dynmodulefilterv3.DynamicModuleFilterPerRoute
			if err := a.UnmarshalTo(&per); err != nil {
				t.Fatal(err)
			}
			var s wrapperspb.StringValue
			if err := per.GetFilterConfig().UnmarshalTo(&s); err != nil {
				t.Fatal(err)
			}
			if s.GetValue() != tt.want {
				t.Errorf("per-route config\n %s\nwant\n %s", s.GetValue(), tt.want)
			}
			// explain names the strategy render merged with.
			rt := res.Graph.Routes[0]
			view := explain.Rule(res, rt, rt.Rules[0], rt.Parents[0].Listeners[0], explain.Options{Field: "transformation"})
			if len(view.Fields) != 1 || strings.Contains(view.Fields[0].Strategy, "Deep") != tt.deep {
				t.Errorf("explain: %+v, deep %v", view.Fields, tt.deep)
			}
		})
	}
}

package kgateway_test

import (
	"testing"

	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestMirrorFraction: kgateway writes a RequestMirror's percent as a
// share of a hundred and its fraction as a share of a million computed
// in float64 and truncated (krtcollections/builtin.go:
// getFractionPercent), so 41/80 mirrors 512499 millionths where the
// exact share is 512500; a mirror with neither mirrors every request (no
// runtime fraction). Upstream Envoy's target keeps the exact share.
func TestMirrorFraction(t *testing.T) {
	for _, tt := range []struct {
		name, mirror string // the requestMirror flow mapping, after its backendRef
		target       string
		num          uint32
		den          typev3.FractionalPercent_DenominatorType
		none         bool // no runtime fraction
	}{
		{"fraction the float rounds down", `fraction: {numerator: 41, denominator: 80}`, "kgateway", 512499, typev3.FractionalPercent_MILLION, false},
		{"another one", `fraction: {numerator: 201, denominator: 400}`, "kgateway", 502499, typev3.FractionalPercent_MILLION, false},
		{"fraction over the default denominator", `fraction: {numerator: 57}`, "kgateway", 570000, typev3.FractionalPercent_MILLION, false},
		{"a third", `fraction: {numerator: 1, denominator: 3}`, "kgateway", 333333, typev3.FractionalPercent_MILLION, false},
		{"percent", `percent: 35`, "kgateway", 35, typev3.FractionalPercent_HUNDRED, false},
		{"neither", ``, "kgateway", 0, 0, true},
		{"upstream Envoy keeps the exact share", `fraction: {numerator: 41, denominator: 80}`, "envoy", 512500, typev3.FractionalPercent_MILLION, false},
	} {
		t.Run(tt.name, func(t *testing.T) {
			mirror := `{backendRef: {name: audit, port: 80}`
			if tt.mirror != "" {
				mirror += ", " + tt.mirror
			}
			mirror += "}"
			input := httpGatewayInput + `---
apiVersion: v1
kind: Service
metadata: {name: audit, namespace: shop}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: cart, namespace: shop}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: cart, port: 80}]
    filters:
    - type: RequestMirror
      requestMirror: ` + mirror + "\n"
			cfg := policy.Config{}
			out, err := envoy.Render(compileInline(t, input, cfg), envoy.Options{Target: tt.target, Config: cfg})
			if err != nil {
				t.Fatal(err)
			}
			mp := out.Gateways[0].RouteConfigurations[0].GetVirtualHosts()[0].GetRoutes()[0].GetRoute().GetRequestMirrorPolicies()
			if len(mp) != 1 {
				t.Fatalf("%d mirror policies, want 1", len(mp))
			}
			rf := mp[0].GetRuntimeFraction()
			if tt.none {
				if rf != nil {
					t.Errorf("runtime fraction %v, want none", rf)
				}
				return
			}
			if got := rf.GetDefaultValue(); got.GetNumerator() != tt.num || got.GetDenominator() != tt.den {
				t.Errorf("share %d/%v, want %d/%v", got.GetNumerator(), got.GetDenominator(), tt.num, tt.den)
			}
		})
	}
}

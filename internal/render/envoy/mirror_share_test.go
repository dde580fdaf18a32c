package envoy_test

import (
	"fmt"
	"strings"
	"testing"

	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
)

// TestMirrorShares: the share of requests a RequestMirror copies is the
// target's (Target.MirrorFraction). Envoy Gateway computes a float32
// percentage — the fraction when there is one (100*num/den in float32),
// else the percent — and writes a positive one as uint32(p*10000)
// millionths, truncated, so some fractions land a millionth above or
// below their exact share (20/21 is 952381, 453/466 972102); a zero one
// as no mirror policy (its cluster is still written); a mirror with
// neither as 100 out of a hundred (filters.go:
// processRequestMirrorFilter; route.go: mirrorPercentByPolicy,
// fractionalpercent.FromFloat32). kgateway keeps a percent out of a
// hundred, a fraction in float64 millionths, neither as no runtime
// fraction; upstream Envoy's target the exact share. Each Envoy Gateway
// share was checked with egctl x translate v1.9.0 --to xds.
func TestMirrorShares(t *testing.T) {
	const none = "none" // no runtime fraction: every request
	const off = "off"   // no mirror policy
	for _, tc := range []struct {
		name, mirror string // the requestMirror's share fields
		want         map[string]string
	}{
		{"a fraction the float32 rounds up", "fraction: {numerator: 20, denominator: 21}",
			map[string]string{"envoygateway": "952381/MILLION", "kgateway": "952380/MILLION", "envoy": "952380/MILLION"}},
		{"a fraction the float32 rounds down", "fraction: {numerator: 453, denominator: 466}",
			map[string]string{"envoygateway": "972102/MILLION", "kgateway": "972103/MILLION", "envoy": "972103/MILLION"}},
		{"a third", "fraction: {numerator: 1, denominator: 3}",
			map[string]string{"envoygateway": "333333/MILLION", "kgateway": "333333/MILLION", "envoy": "333333/MILLION"}},
		{"the float64 rounds down, the float32 does not", "fraction: {numerator: 41, denominator: 80}",
			map[string]string{"envoygateway": "512500/MILLION", "kgateway": "512499/MILLION", "envoy": "512500/MILLION"}},
		{"over the default denominator", "fraction: {numerator: 57}",
			map[string]string{"envoygateway": "570000/MILLION", "kgateway": "570000/MILLION", "envoy": "570000/MILLION"}},
		{"a millionth", "fraction: {numerator: 1, denominator: 1000000}",
			map[string]string{"envoygateway": "1/MILLION", "kgateway": "1/MILLION", "envoy": "1/MILLION"}},
		{"a zero fraction", "fraction: {numerator: 0, denominator: 7}",
			map[string]string{"envoygateway": off, "kgateway": "0/MILLION", "envoy": "0/MILLION"}},
		{"a whole fraction", "fraction: {numerator: 9, denominator: 9}",
			map[string]string{"envoygateway": "1000000/MILLION", "kgateway": "1000000/MILLION", "envoy": "1000000/MILLION"}},
		{"a percent", "percent: 33",
			map[string]string{"envoygateway": "330000/MILLION", "kgateway": "33/HUNDRED", "envoy": "33/HUNDRED"}},
		{"a zero percent", "percent: 0",
			map[string]string{"envoygateway": off, "kgateway": "0/HUNDRED", "envoy": "0/HUNDRED"}},
		{"a whole percent", "percent: 100",
			map[string]string{"envoygateway": "1000000/MILLION", "kgateway": "100/HUNDRED", "envoy": "100/HUNDRED"}},
		{"neither", "",
			map[string]string{"envoygateway": "100/HUNDRED", "kgateway": none, "envoy": none}},
	} {
		for _, target := range []string{"envoygateway", "kgateway", "envoy"} {
			t.Run(tc.name+"/"+target, func(t *testing.T) {
				mirror := "{name: copy, port: 80}"
				share := ""
				if tc.mirror != "" {
					share = ", " + tc.mirror
				}
				input := mirrorShareInput + fmt.Sprintf(`
    filters:
    - type: RequestMirror
      requestMirror: {backendRef: %s%s}
`, mirror, share)
				gw := renderInline(t, input, target)
				clusters := map[string]bool{}
				for _, c := range gw.Clusters {
					clusters[c.Name] = true
				}
				routes := 0
				for _, vh := range gw.RouteConfigurations[0].VirtualHosts {
					for _, r := range vh.Routes {
						routes++
						mp := r.GetRoute().GetRequestMirrorPolicies()
						got := off
						switch {
						case len(mp) > 1:
							t.Fatalf("route %s: %d mirror policies, want at most one", r.Name, len(mp))
						case len(mp) == 1 && mp[0].GetRuntimeFraction() == nil:
							got = none
						case len(mp) == 1:
							v := mp[0].GetRuntimeFraction().GetDefaultValue()
							got = fmt.Sprintf("%d/%s", v.GetNumerator(), typev3.FractionalPercent_DenominatorType_name[int32(v.GetDenominator())])
						}
						if got != tc.want[target] {
							t.Errorf("route %s mirrors %s, want %s", r.Name, got, tc.want[target])
						}
					}
				}
				if routes == 0 {
					t.Fatal("no route rendered")
				}
				// the mirror's cluster is written whatever the share
				found := false
				for c := range clusters {
					found = found || strings.Contains(c, "copy")
				}
				if !found {
					t.Errorf("no cluster for the mirror's backend among %v", clusters)
				}
			})
		}
	}
}

const mirrorShareInput = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: any
  listeners:
  - {name: http, protocol: HTTP, port: 80}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: v1
kind: Service
metadata: {name: copy, namespace: infra}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: shop, namespace: infra}
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs: [{name: web, port: 80}]`

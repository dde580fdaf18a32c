package envoy_test

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// TestUnsupportedOnStreams: a whole-Gateway field the target cannot
// express fails the HTTP routes closed, but the TCP chains it reaches
// never answer with a direct response: they keep forwarding without it,
// and the GWP404 finding says so (and says nothing of TCP where the
// Gateway serves none).
func TestUnsupportedOnStreams(t *testing.T) {
	const base = `apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80}
  - {name: pg, protocol: TCP, port: 5432}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: infra}
spec: {ports: [{port: 80}, {port: 5432}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  rules: [{backendRefs: [{name: web, port: 80}]}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: gw-transform, namespace: infra}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: Gateway, name: gw}]
  transformation: {request: {set: [{name: x-a, value: b}]}}
`
	const tcp = `---
apiVersion: gateway.networking.k8s.io/v1alpha2
kind: TCPRoute
metadata: {name: pg, namespace: infra}
spec:
  parentRefs: [{name: gw, sectionName: pg}]
  rules: [{backendRefs: [{name: web, port: 5432}]}]
`
	const streams = "the TCP and TLS routes it applies to keep forwarding without it"
	for _, tt := range []struct {
		input   string
		streams bool
	}{{base, false}, {base + tcp, true}} {
		objs, err := manifest.Parse("inline.yaml", []byte(tt.input), manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		res := compile(t, &manifest.Set{Objects: objs}, policy.Config{}.WithSetting("referenceGrantMode", "Strict"))
		out := render(t, res, envoy.Options{Target: "envoy"})
		var msgs []string
		for _, d := range out.Diagnostics {
			if d.Code == "GWP404" {
				msgs = append(msgs, d.Message)
			}
		}
		if len(msgs) != 1 || !strings.Contains(msgs[0], "fail closed (503)") || strings.Contains(msgs[0], streams) != tt.streams {
			t.Errorf("with TCP routes %v: GWP404 %q", tt.streams, msgs)
		}
		if !tt.streams {
			continue
		}
		var proxied bool
		for _, l := range out.Gateways[0].Listeners {
			for _, fc := range l.FilterChains {
				for _, f := range fc.Filters {
					proxied = proxied || f.Name == "envoy.filters.network.tcp_proxy"
				}
			}
		}
		if !proxied {
			t.Errorf("no tcp_proxy chain: the TCP route must keep forwarding")
		}
	}
}

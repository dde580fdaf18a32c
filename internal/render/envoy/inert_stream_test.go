package envoy_test

import (
	"bytes"
	"io"
	"testing"

	"github.com/gwpol/gwpol/internal/inert"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

// escapesEverywhere puts runes inert.JSON escapes (a bidi control, a C1
// control, the line separator) in a route's own values (a header value,
// which the CRD's pattern refuses but render still writes) and in a
// cluster that Gateways share (a backend policy's health check), so
// that the escaping of a virtual host inside its RouteConfiguration and
// of a shared cluster are both exercised.
const escapesEverywhere = `
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-a, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw-b, namespace: infra}
spec:
  gatewayClassName: kgateway
  listeners:
  - {name: http, protocol: HTTP, port: 80, allowedRoutes: {namespaces: {from: All}}}
---
apiVersion: v1
kind: Service
metadata: {name: api, namespace: apps}
spec: {ports: [{port: 8080}]}
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: BackendConfigPolicy
metadata: {name: api, namespace: apps}
spec:
  targetRefs: [{group: "", kind: Service, name: api}]
  healthCheck:
    timeout: 1s
    interval: 5s
    unhealthyThreshold: 2
    healthyThreshold: 2
    http: {path: "/health\u202e\u0085\u2028"}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: apps}
spec:
  parentRefs: [{name: gw-a, namespace: infra}]
  rules:
  - matches: [{path: {type: PathPrefix, value: /}}]
    filters:
    - type: RequestHeaderModifier
      requestHeaderModifier:
        set: [{name: x-note, value: "a\u202eb\u0085c"}]
    backendRefs: [{name: api, port: 8080}]
`

// TestInertStreamWritesWhatTheInertWriterWould: NewInertStream escapes
// each unit where it is written and a shared cluster once; the document
// must be, byte for byte, the plain stream's passed through
// inert.NewJSONWriter, on every golden input, the generated platforms'
// shape (shared clusters) and an input with such runes everywhere.
func TestInertStreamWritesWhatTheInertWriterWould(t *testing.T) {
	cases := map[string]func(t *testing.T) *manifest.Set{
		"shared-unrouted": func(t *testing.T) *manifest.Set { return load(t, "testdata/shared-unrouted/input.yaml") },
		"escapes": func(t *testing.T) *manifest.Set {
			objs, err := manifest.Parse("inline.yaml", []byte(escapesEverywhere), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			return &manifest.Set{Objects: objs}
		},
	}
	for name, inputs := range goldenCases() {
		cases[name] = func(t *testing.T) *manifest.Set { return load(t, inputs...) }
	}
	escaped := 0
	for name, set := range cases {
		t.Run(name, func(t *testing.T) {
			res := compile(t, set(t), policy.Config{Values: deployedSettings()})
			for _, target := range envoy.Registry().TargetNames() {
				opt := envoy.Options{Target: target, MergeKeyCompat: target == "kgateway"}
				plain := stream(t, res, opt, envoy.NewStream)
				var want bytes.Buffer
				jw := inert.NewJSONWriter(&want)
				if _, err := jw.Write(plain); err != nil {
					t.Fatal(err)
				}
				if err := jw.Close(); err != nil {
					t.Fatal(err)
				}
				got := stream(t, res, opt, envoy.NewInertStream)
				if !bytes.Equal(got, want.Bytes()) {
					t.Fatalf("%s: the inert stream differs from the inert writer's: %s", target, firstDiff(want.Bytes(), got))
				}
				if !bytes.Equal(plain, got) {
					escaped++
				}
			}
		})
	}
	if escaped == 0 {
		t.Fatal("no document had anything to escape: the comparison shows nothing")
	}
}

// stream renders res through a stream made by newStream, as JSON.
func stream(t *testing.T, res *merge.Result, opt envoy.Options, newStream func(io.Writer, string, envoy.ResourceType) *envoy.Stream) []byte {
	t.Helper()
	var out bytes.Buffer
	s := newStream(&out, "json", envoy.TypeAll)
	opt.EachGateway = s.Gateway
	render(t, res, opt)
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	return out.Bytes()
}

package manifest

import (
	"encoding/json"
	"reflect"
	"testing"
)

// FuzzLoad feeds arbitrary bytes to Parse with small limits. Whatever the
// input, Parse must not panic or hang, every object it returns must render
// as valid JSON (or say why not), and its field lookups must not panic.
func FuzzLoad(f *testing.F) {
	seeds := []string{
		`apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata:
  name: gw
  namespace: infra
spec:
  gatewayClassName: kgateway
  listeners:
  - name: http
    port: 80
    protocol: HTTP
    allowedRoutes: {namespaces: {from: All}}
`,
		`apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, labels: {app: web}}
spec:
  parentRefs: [{name: gw, sectionName: http}]
  hostnames: ["*.example.com"]
  rules:
  - backendRefs: &be [{name: svc, port: 8080, weight: 2}]
  - backendRefs: *be
---
apiVersion: v1
kind: Service
metadata:
  name: svc
spec:
  ports: [{port: 8080, targetPort: "http"}]
`,
		`{"apiVersion":"v1","kind":"List","items":[{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"data":{"k":"dmFsdWU="}}]}`,
		`apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata:
  name: p
  annotations: {kgateway.dev/policy-weight: "10"}
spec:
  targetRefs: [{group: gateway.networking.k8s.io, kind: HTTPRoute, name: r}]
  rateLimit: {local: {tokenBucket: {maxTokens: 10, tokensPerFill: 1, fillInterval: 1s}}}
`,
		"a: &a [*a]\n",
		"apiVersion: v1\nkind: ConfigMap\nmetadata: &m {name: x}\nextra: {<<: *m, n: !!int 0x10, f: .inf, b: !!binary aGk=}\n",
		"%YAML 1.2\n---\napiVersion: v1\nkind: Namespace\nmetadata: {name: ns}\n...\n",
		"---\n---\n~\n",
	}
	for _, s := range seeds {
		f.Add([]byte(s))
	}
	lim := Limits{MaxFileBytes: 1 << 16, MaxDepth: 16, MaxAliasNodes: 1000}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) > int(lim.MaxFileBytes) {
			return // Load refuses these before parsing
		}
		objs, err := Parse("fuzz.yaml", data, lim)
		if err != nil {
			return
		}
		for _, o := range objs {
			if o.Kind == "" || o.APIVersion == "" {
				t.Errorf("object without kind or apiVersion: %+v", o)
			}
			if js, err := o.JSON(); err == nil && !json.Valid(js) {
				t.Errorf("JSON() is not valid JSON: %q", js)
			}
			for _, p := range []string{"metadata.name", "spec.rules[0].backendRefs[1].port", "items[0]", "spec[0].x"} {
				_ = o.FieldPos(p)
				_ = o.KeyPos(p)
				_, _ = o.FieldJSON(p)
			}
			var v map[string]any
			_ = o.Decode(&v)
			_ = o.UnknownFields(reflect.TypeFor[fuzzShape]())
		}
	})
}

// fuzzShape gives UnknownFields structs, lists and maps to walk.
type fuzzShape struct {
	APIVersion string `json:"apiVersion"`
	Kind       string `json:"kind"`
	Metadata   struct {
		Name   string            `json:"name"`
		Labels map[string]string `json:"labels"`
	} `json:"metadata"`
	Spec struct {
		Rules []struct {
			BackendRefs []struct {
				Name string `json:"name"`
				Port *int32 `json:"port"`
			} `json:"backendRefs"`
		} `json:"rules"`
	} `json:"spec"`
}

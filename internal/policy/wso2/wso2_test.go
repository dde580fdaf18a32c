package wso2

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/google/go-cmp/cmp"
	yaml "go.yaml.in/yaml/v3"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policyversion"
)

func definitions(t *testing.T) *policyversion.Definitions {
	t.Helper()
	schema := json.RawMessage(`{"type":"object","additionalProperties":false,"properties":{"key":{"type":"string"},"in":{"enum":["header","query"]}},"required":["key","in"]}`)
	return policyversion.NewDefinitions(
		policyversion.NewDefinition("api-key-auth", "v1.2.1", schema, diag.Position{File: "defs/api-key-auth.yaml", Line: 2, Col: 10}),
		policyversion.NewDefinition("set-headers", "v1.0.0", nil, diag.Position{File: "defs/set-headers.yaml", Line: 2, Col: 10}),
	)
}

func engine(t *testing.T) *policyversion.EngineManifest {
	t.Helper()
	m, ds, err := policyversion.ParseEngineManifest("build-manifest.yaml", []byte("policies:\n  - name: api-key-auth\n    version: v1.2.0\n  - name: set-headers\n    version: v1.0.0\n"))
	if err != nil || len(ds) > 0 {
		t.Fatal(err, ds)
	}
	return m
}

// decode reads YAML objects and decodes the WSO2 ones with ks.
func decode(t *testing.T, ks *Kinds, src string) []*policy.Policy {
	t.Helper()
	objs, err := manifest.Parse("in.yaml", []byte(src), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := policy.NewRegistry(ks.All()...)
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: reg.GroupKinds()})
	return reg.Decode(&policy.Env{Model: m}).Policies
}

func codes(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code+"@"+d.Field)
	}
	return out
}

const apiPolicies = `
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIPolicy
metadata: {name: api, namespace: ns}
spec:
  targetRef: {kind: HTTPRoute, name: hello}
  policies:
    - name: api-key-auth
      version: v1
      params: {key: X-API-Key, in: cookie}
    - name: set-headers
      version: v1.0.0
---
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIPolicy
metadata: {name: rule, namespace: ns}
spec:
  policies:
    - name: set-headers
      version: v1
      executionCondition: request.method == "GET"
---
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIPolicy
metadata: {name: empty, namespace: ns}
spec:
  policies: []
---
apiVersion: gateway.api-platform.wso2.com/v1beta9
kind: APIPolicy
metadata: {name: future, namespace: ns}
spec:
  policies: [{name: set-headers, version: v1}]
`

func TestDecodeAPIPolicy(t *testing.T) {
	ps := decode(t, New(definitions(t), engine(t)), apiPolicies)
	byName := map[string]*policy.Policy{}
	for _, p := range ps {
		byName[p.Obj.Name] = p
	}
	api := byName["api"]
	if diff := cmp.Diff([]string{"GWP506@spec.policies[0].params.in", "GWP501@spec.policies[1].version"}, codes(api.Invalid)); diff != "" {
		t.Errorf("api invalid (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GWP504@spec.policies[0].version"}, codes(api.Findings)); diff != "" {
		t.Errorf("api findings (-want +got):\n%s", diff)
	}
	if want := []policy.TargetRef{{Group: model.GatewayGroup, Kind: "HTTPRoute", Name: "hello", Path: "spec.targetRef"}}; !cmp.Equal(want, api.Targets) {
		t.Errorf("targets: %+v", api.Targets)
	}
	ch, ok := ChainOf(api)
	if !ok || ch.Level != LevelAPI || ch.Source != "gateway.api-platform.wso2.com/APIPolicy/ns/api" || len(ch.Refs) != 2 {
		t.Fatalf("api chain: %+v", ch)
	}
	if r := ch.Refs[0]; r.Identity() != "api-key-auth:v1" || r.Definition() != "v1.2.1" || r.EngineVersion() != "v1.2.0" || !slices.Equal(r.Problems, []string{"GWP504", "GWP506"}) {
		t.Errorf("ref 0: %s %s %s %v", r.Identity(), r.Definition(), r.EngineVersion(), r.Problems)
	}
	if r := ch.Refs[1]; r.Identity() != "set-headers:v1.0.0" || r.Definition() != "" {
		t.Errorf("ref 1: %s %s", r.Identity(), r.Definition())
	}
	rule := byName["rule"]
	if !rule.IsValid() || len(rule.Targets) != 0 {
		t.Errorf("rule: invalid %v, targets %v", rule.Invalid, rule.Targets)
	}
	if ch, _ := ChainOf(rule); ch.Level != LevelRule || ch.Refs[0].ExecutionCondition != `request.method == "GET"` {
		t.Errorf("rule chain: %+v", ch)
	}
	if diff := cmp.Diff([]string{"GWP401@spec"}, codes(byName["empty"].Invalid)); diff != "" {
		t.Errorf("empty (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GWP111@apiVersion"}, codes(byName["future"].Invalid)); diff != "" {
		t.Errorf("future (-want +got):\n%s", diff)
	}
}

// Without definitions only the form of a version is checked; without an
// engine manifest the engine is not checked at all.
func TestDecodeWithoutVersions(t *testing.T) {
	ps := decode(t, New(nil, nil), apiPolicies)
	for _, p := range ps {
		if p.Obj.Name != "api" {
			continue
		}
		if diff := cmp.Diff([]string{"GWP501@spec.policies[1].version"}, codes(p.Invalid)); diff != "" {
			t.Errorf("invalid (-want +got):\n%s", diff)
		}
		if len(p.Findings) != 0 {
			t.Errorf("findings: %v", p.Findings)
		}
		ch, _ := ChainOf(p)
		if r := ch.Refs[0]; r.DefinitionsLoaded || !r.Engine.Skipped || r.Identity() != "api-key-auth:v1" {
			t.Errorf("ref 0: %+v", r)
		}
	}
}

func TestDecodeRestAPI(t *testing.T) {
	src := `
apiVersion: gateway.api-platform.wso2.com/v1
kind: RestApi
metadata: {name: petstore}
spec:
  displayName: Petstore
  version: 1.0
  context: /petstore
  upstream: {main: {url: "http://petstore:8080"}}
  policies:
    - {name: api-key-auth, version: v1, params: {key: k, in: header}, paramz: {}}
  operations:
    - method: GET
      path: /pet
      policies:
        - {name: set-headers, version: v2}
    - method: POST
      path: /pet
`
	ps := decode(t, New(definitions(t), engine(t)), src)
	p := ps[0]
	api, ok := RestAPIOf(p)
	if !ok {
		t.Fatalf("not a RestApi: %v", p.Invalid)
	}
	if api.Upstream != "http://petstore:8080" || string(api.Spec.Version) != "1.0" || len(api.Operations) != 2 {
		t.Errorf("api: %+v", api)
	}
	if diff := cmp.Diff([]string{"GWP502@spec.operations[0].policies[0].version"}, codes(p.Invalid)); diff != "" {
		t.Errorf("invalid (-want +got):\n%s", diff)
	}
	if diff := cmp.Diff([]string{"GWP102@spec.policies[0].paramz", "GWP504@spec.policies[0].version"}, codes(p.Findings)); diff != "" {
		t.Errorf("findings (-want +got):\n%s", diff)
	}
	sys := &Chain{Level: LevelSystem, Source: SourceConfig, Refs: []*Reference{{Name: "analytics", Version: "v1"}}}
	var got []string
	for _, e := range Effective(api.Operations[0].Chain, api.API, nil, sys) {
		got = append(got, e.Identity+"@"+string(e.Level))
	}
	if diff := cmp.Diff([]string{"analytics:v1@system", "api-key-auth:v1@api", "set-headers:v2@operation"}, got); diff != "" {
		t.Errorf("chain (-want +got):\n%s", diff)
	}
}

func TestScalar(t *testing.T) {
	for in, want := range map[string]string{`"v1"`: "v1", `1`: "1", `1.0`: "1.0", `null`: "", `true`: "true"} {
		var s Scalar
		if err := json.Unmarshal([]byte(in), &s); err != nil || string(s) != want {
			t.Errorf("%s → %q, %v; want %q", in, s, err, want)
		}
	}
	var s Scalar
	if err := json.Unmarshal([]byte(`{"a":1}`), &s); err == nil {
		t.Error("an object is not a version")
	}
}

func TestSystemPolicies(t *testing.T) {
	cfg := func(v any) policy.Config { return policy.Config{Values: map[string]any{"wso2.systempolicies": v}} }
	sps, err := SystemPolicies(cfg([]any{map[string]any{"Name": "analytics", "version": 1, "params": map[any]any{"a": true}}}))
	if err != nil || len(sps) != 1 || sps[0].Version != "1" || string(sps[0].Params) != `{"a":true}` {
		t.Errorf("%+v %v", sps, err)
	}
	for _, bad := range []any{"analytics", []any{"analytics"}, []any{map[string]any{"version": "v1"}}, []any{map[string]any{"name": "a", "vesion": "v1"}}} {
		if _, err := SystemPolicies(cfg(bad)); err == nil {
			t.Errorf("%v: no error", bad)
		}
	}
	ks := New(definitions(t), engine(t))
	ch, ds := ks.System(cfg([]any{map[string]any{"name": "set-headers", "version": "v1"}, map[string]any{"name": "api-key-auth", "version": "v1"}}),
		func(p string) diag.Position {
			return diag.Position{File: ".gwpol.yaml", Line: strings.Count(p, "[1]") + 5}
		})
	if len(ch.Refs) != 2 || ch.Level != LevelSystem {
		t.Errorf("chain: %+v", ch)
	}
	if diff := cmp.Diff([]string{"GWP504@wso2.systemPolicies[1].version", "GWP506@wso2.systemPolicies[1].params"}, codes(ds)); diff != "" {
		t.Errorf("diagnostics (-want +got):\n%s", diff)
	}
}

func TestRenderField(t *testing.T) {
	ks := New(definitions(t), nil)
	ps := decode(t, ks, apiPolicies)
	var values []any
	for _, p := range ps {
		if p.Obj.Name == "rule" {
			values = append(values, p.Values[FieldChain])
		}
	}
	k := ks.APIPolicy()
	frags, err := k.RenderField(policy.FieldInput{Key: FieldChain, Values: values, Contributors: []string{"gateway.api-platform.wso2.com/APIPolicy/ns/rule"}}, &policy.Env{})
	if err != nil || len(frags) != 1 {
		t.Fatalf("%v %v", frags, err)
	}
	rt, ok := frags[0].TypedRoute.(*routev3.Route)
	if !ok {
		t.Fatalf("route is a %T", frags[0].TypedRoute)
	}
	md := rt.GetMetadata().GetFilterMetadata()["merge.gateway.api-platform.wso2.com/APIPolicy"].AsMap()
	if _, ok := md["engine"]; ok {
		t.Error("no engine manifest, yet engine versions in the metadata")
	}
	if got, _ := json.Marshal(md); string(got) != `{"chain":["set-headers:v1"],"policies":["gateway.api-platform.wso2.com/APIPolicy/ns/rule"],"resolved":{"set-headers:v1":"v1.0.0"}}` {
		t.Errorf("metadata: %s", got)
	}
	// The gateway-controller's default: the policy engine on its Unix socket.
	if c, _ := frags[0].TypedClusters[0].(*clusterv3.Cluster); c.GetName() != DefaultEngineCluster || c.GetType() != clusterv3.Cluster_STATIC ||
		c.GetLoadAssignment().GetEndpoints()[0].GetLbEndpoints()[0].GetEndpoint().GetAddress().GetPipe().GetPath() != EngineSocket {
		t.Errorf("cluster: %v", frags[0].TypedClusters[0])
	}
	// An address Envoy would refuse as the engine's endpoint: no port,
	// no host, a port out of range.
	for _, addr := range []string{"policy-engine", ":9001", "[]:9001", "policy-engine:0", "policy-engine:65536"} {
		bad := &policy.Env{Config: policy.Config{Values: map[string]any{"wso2.policyEngineAddress": addr}}}
		if _, err := k.RenderField(policy.FieldInput{Key: FieldChain, Values: values}, bad); err == nil {
			t.Errorf("engine address %q renders", addr)
		}
	}
	if _, err := k.RenderField(policy.FieldInput{Key: "cors"}, nil); err == nil {
		t.Error("an unknown field renders")
	}
}

// TestDecodeCurrentCRDShapes: both served versions of both kinds are read
// without GWP104 (v1 is the storage version, v1alpha1 is not marked
// deprecated); spec.targetRef.namespace is a field of both APIPolicy
// versions; the APIPolicy CRD requires a version on every entry.
func TestDecodeCurrentCRDShapes(t *testing.T) {
	const docs = `
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: storage, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: hello, namespace: ns}
  policies: [{name: set-headers, version: v1}]
---
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIPolicy
metadata: {name: elsewhere, namespace: ns}
spec:
  targetRef: {group: gateway.networking.k8s.io, kind: HTTPRoute, name: hello, namespace: other}
  policies: [{name: set-headers, version: v1}]
---
apiVersion: gateway.api-platform.wso2.com/v1
kind: APIPolicy
metadata: {name: versionless, namespace: ns}
spec:
  policies: [{name: set-headers}]
---
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: RestApi
metadata: {name: old, namespace: ns}
spec:
  displayName: Old
  version: v1
  context: /old
  upstream: {main: {url: "http://old:8080"}}
  operations: [{method: GET, path: /}]
  policies: [{name: set-headers}]
`
	tests := []struct {
		name              string
		invalid, findings []string
		targets           int
	}{
		{name: "storage", targets: 1},
		{name: "elsewhere", invalid: []string{"GWP201@spec.targetRef.namespace"}},
		{name: "versionless", invalid: []string{"GWP501@spec.policies[0].version"}},
		{name: "old", findings: []string{"GWP508@spec.policies[0].version"}},
	}
	byName := map[string]*policy.Policy{}
	for _, p := range decode(t, New(definitions(t), engine(t)), docs) {
		byName[p.Obj.Name] = p
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := byName[tt.name]
			if p == nil {
				t.Fatal("not decoded")
			}
			if diff := cmp.Diff(tt.invalid, codes(p.Invalid)); diff != "" {
				t.Errorf("invalid (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.findings, codes(p.Findings)); diff != "" {
				t.Errorf("findings (-want +got):\n%s", diff)
			}
			if len(p.Targets) != tt.targets {
				t.Errorf("targets = %+v, want %d", p.Targets, tt.targets)
			}
		})
	}
	if msg := byName["versionless"].Invalid[0].Message; !strings.Contains(msg, "APIPolicy CRD requires one") || !strings.Contains(msg, "set version: v1 (the latest") {
		t.Errorf("versionless message: %s", msg)
	}
}

// TestPolicyLists: the policy lists of the other API kinds are found
// wherever they are under spec, including a policies mapping of lists
// (WebSubApi's per-flow lists); other lists and mappings are not.
func TestPolicyLists(t *testing.T) {
	const doc = `
policies: [{name: a}]
hub:
  policies: [{name: b}]
  channels:
    - name: issues
      policies: [{name: c}]
flows:
  policies:
    subscribe: [{name: d}]
    inbound: []
    note: text
tools: [{policies: "not a list"}]
`
	var n yaml.Node
	if err := yaml.Unmarshal([]byte(doc), &n); err != nil {
		t.Fatal(err)
	}
	var got []string
	policyLists(n.Content[0], "spec", &got)
	want := []string{"spec.policies", "spec.hub.policies", "spec.hub.channels[0].policies", "spec.flows.policies.subscribe", "spec.flows.policies.inbound"}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("lists (-want +got):\n%s", diff)
	}
}

// TestUncheckableSchemaRefusesTheAPI: a definition whose parameters
// schema does not compile makes the gateway-controller's
// validatePolicyParams fail ("Failed to validate policy parameters"), so
// every API referencing it is refused — with params or without, since
// absent params are validated as an empty object.
func TestUncheckableSchemaRefusesTheAPI(t *testing.T) {
	bad := policyversion.NewDefinition("bad-schema", "v1.0.0", json.RawMessage(`{"type":"object","properties":{"count":{"type":"integr"}}}`), diag.Position{File: "defs/bad.yaml", Line: 2, Col: 10})
	good := policyversion.NewDefinition("set-headers", "v1.0.0", nil, diag.Position{File: "defs/set-headers.yaml", Line: 2, Col: 10})
	src := `
apiVersion: gateway.api-platform.wso2.com/v1alpha1
kind: APIPolicy
metadata: {name: api, namespace: ns}
spec:
  policies:
    - {name: bad-schema, version: v1}
    - {name: bad-schema, version: v1, params: {count: 3}}
    - {name: set-headers, version: v1}
`
	ps := decode(t, New(policyversion.NewDefinitions(bad, good), nil), src)
	if diff := cmp.Diff([]string{"GWP506@spec.policies[0].params", "GWP506@spec.policies[1].params"}, codes(ps[0].Invalid)); diff != "" {
		t.Fatalf("invalid (-want +got):\n%s", diff)
	}
	if msg := ps[0].Invalid[0].Message; !strings.Contains(msg, "Failed to validate policy parameters") || !strings.Contains(msg, "refuses the API") {
		t.Errorf("message: %s", msg)
	}
}

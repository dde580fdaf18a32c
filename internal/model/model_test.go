package model_test

import (
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/schema"
	"github.com/gwpol/gwpol/internal/secret"
	"k8s.io/apimachinery/pkg/labels"
)

// set parses files (name → YAML), in the order given.
func set(t *testing.T, files ...string) *manifest.Set {
	t.Helper()
	if len(files)%2 != 0 {
		t.Fatal("set wants name, content pairs")
	}
	s := &manifest.Set{}
	for i := 0; i < len(files); i += 2 {
		objs, err := manifest.Parse(files[i], []byte(files[i+1]), manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		s.Objects = append(s.Objects, objs...)
	}
	for i, o := range s.Objects {
		o.Seq = i
	}
	return s
}

func build(t *testing.T, yaml string) *model.Model {
	t.Helper()
	return model.Build(set(t, "in.yaml", yaml), model.Options{})
}

func codes(ds []diag.Diagnostic) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Code)
	}
	return out
}

func TestNamespaceDefaulting(t *testing.T) {
	src := `apiVersion: v1
kind: Service
metadata: {name: plain}
---
apiVersion: v1
kind: Service
metadata: {name: placed, namespace: apps}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GatewayClass
metadata: {name: cls}
spec: {controllerName: example.com/gw}
---
apiVersion: v1
kind: Namespace
metadata: {name: apps, labels: {team: a}}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: gw}
spec:
  gatewayClassName: cls
  listeners: [{name: http, port: 80, protocol: HTTP}]
---
apiVersion: gateway.kgateway.dev/v1alpha1
kind: TrafficPolicy
metadata: {name: tp}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: dep}
`
	tests := []struct {
		name    string
		opt     model.Options
		ns      string // where unplaced namespaced objects go
		extraOK bool
	}{
		{"default namespace", model.Options{}, "default", false},
		{"--namespace", model.Options{DefaultNamespace: "team"}, "team", false},
		{"extra kind registered", model.Options{Extra: map[model.GroupKind]bool{{Group: "gateway.kgateway.dev", Kind: "TrafficPolicy"}: true}}, "default", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := model.Build(set(t, "in.yaml", src), tt.opt)
			if len(m.Diagnostics) != 0 {
				t.Fatalf("diagnostics: %+v", m.Diagnostics)
			}
			if s := m.Service(tt.ns, "plain"); s == nil || s.Namespace != tt.ns || s.Src.Namespace != tt.ns {
				t.Errorf("Service plain not in %s: %+v", tt.ns, s)
			}
			if m.Service("apps", "placed") == nil {
				t.Error("Service apps/placed missing")
			}
			gw := m.Gateway(tt.ns, "gw")
			if gw == nil {
				t.Fatalf("Gateway %s/gw missing", tt.ns)
			}
			if gw.Namespace != tt.ns || gw.Key() != model.GatewayAPIKey("Gateway", tt.ns, "gw") {
				t.Errorf("typed Gateway namespace %q, key %+v", gw.Namespace, gw.Key())
			}
			// Cluster-scoped kinds get no namespace.
			if len(m.GatewayClasses) != 1 || m.GatewayClasses[0].Namespace != "" {
				t.Errorf("GatewayClasses = %+v", m.GatewayClasses)
			}
			if _, ok := m.Object(model.Key{Kind: "Namespace", Name: "apps"}); !ok {
				t.Error("Namespace apps not indexed without a namespace")
			}
			// Kinds gwpol does not read are skipped silently.
			if objs := m.OfKind(model.GroupKind{Group: "apps", Kind: "Deployment"}); len(objs) != 0 {
				t.Errorf("Deployment indexed: %v", objs)
			}
			tp := model.GroupKind{Group: "gateway.kgateway.dev", Kind: "TrafficPolicy"}
			_, ok := m.Object(model.Key{Group: tp.Group, Kind: tp.Kind, Namespace: tt.ns, Name: "tp"})
			if ok != tt.extraOK || (len(m.OfKind(tp)) == 1) != tt.extraOK {
				t.Errorf("extra kind kept = %v, want %v", ok, tt.extraOK)
			}
			if _, typed := m.Typed(model.Key{Group: tp.Group, Kind: tp.Kind, Namespace: tt.ns, Name: "tp"}); typed {
				t.Error("extra kind decoded by model; its package decodes it")
			}
		})
	}
}

const svcA = `apiVersion: v1
kind: Service
metadata:
  name: dup
  namespace: ns
spec:
  ports: [{port: 80}]
`

const svcB = `apiVersion: v1
kind: Service
metadata:
  namespace: ns
  name: dup
spec:
  ports: [{port: 9090}]
`

func TestDuplicates(t *testing.T) {
	oneFile := svcA + "---\n" + svcB
	tests := []struct {
		name      string
		files     []string
		reverse   bool
		wantPort  int32
		wantPos   diag.Position
		firstAt   string
		objsAfter int
	}{
		// The one applied last wins: -f order, then document order.
		{"same file", []string{"a.yaml", oneFile}, false, 9090, diag.Position{File: "a.yaml", Line: 4, Col: 9}, "a.yaml:13:9", 1},
		{"same file, reversed input order", []string{"a.yaml", oneFile}, true, 80, diag.Position{File: "a.yaml", Line: 13, Col: 9}, "a.yaml:4:9", 1},
		{"two files", []string{"a.yaml", svcA, "b.yaml", svcB}, false, 9090, diag.Position{File: "a.yaml", Line: 4, Col: 9}, "b.yaml:5:9", 1},
		{"two files, reversed", []string{"a.yaml", svcA, "b.yaml", svcB}, true, 80, diag.Position{File: "b.yaml", Line: 5, Col: 9}, "a.yaml:4:9", 1},
		{"b given first", []string{"b.yaml", svcA, "a.yaml", svcB}, false, 9090, diag.Position{File: "b.yaml", Line: 4, Col: 9}, "a.yaml:5:9", 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := set(t, tt.files...)
			if tt.reverse {
				slices.Reverse(s.Objects)
			}
			m := model.Build(s, model.Options{})
			if got := codes(m.Diagnostics); !slices.Equal(got, []string{"GWP103"}) {
				t.Fatalf("diagnostics = %+v, want one GWP103", m.Diagnostics)
			}
			d := m.Diagnostics[0]
			if d.Pos != tt.wantPos || d.Field != "metadata.name" || d.Severity != diag.Error {
				t.Errorf("GWP103 at %v field %q severity %v, want %v metadata.name error", d.Pos, d.Field, d.Severity, tt.wantPos)
			}
			if want := (diag.ObjectRef{Kind: "Service", Namespace: "ns", Name: "dup"}); d.Object != want {
				t.Errorf("Object = %+v", d.Object)
			}
			if !strings.Contains(d.Message, tt.firstAt) {
				t.Errorf("message %q does not name the definition that replaces it, %s", d.Message, tt.firstAt)
			}
			svc := m.Service("ns", "dup")
			if svc == nil || len(svc.Spec.Ports) != 1 || svc.Spec.Ports[0].Port != tt.wantPort {
				t.Errorf("winner = %+v, want the object with port %d", svc, tt.wantPort)
			}
			if len(m.Services) != tt.objsAfter || len(m.OfKind(model.GroupKind{Kind: "Service"})) != tt.objsAfter {
				t.Errorf("Services = %d, OfKind = %d", len(m.Services), len(m.OfKind(model.GroupKind{Kind: "Service"})))
			}
		})
	}
}

func TestDuplicateAfterDefaulting(t *testing.T) {
	m := build(t, `apiVersion: v1
kind: ConfigMap
metadata: {name: c}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: default}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: c, namespace: other}
---
apiVersion: v1
kind: Secret
metadata: {name: c}
`)
	if got := codes(m.Diagnostics); !slices.Equal(got, []string{"GWP103"}) {
		t.Fatalf("diagnostics = %+v, want one GWP103", m.Diagnostics)
	}
	// The explicit-namespace copy sorts first by content and is kept; the
	// finding points at the other.
	if d := m.Diagnostics[0]; d.Pos.Line != 3 {
		t.Errorf("GWP103 at %v, want line 3", d.Pos)
	}
	if len(m.ConfigMaps) != 2 || len(m.Secrets) != 1 {
		t.Errorf("ConfigMaps %d Secrets %d", len(m.ConfigMaps), len(m.Secrets))
	}
}

func TestUnknownFieldDiagnostics(t *testing.T) {
	m := build(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata:
  name: r
spec:
  parentRefs: [{name: gw}]
  rules:
  - backendRefs:
    - name: svc
      port: 80
      wieght: 2
status:
  whatever: true
---
apiVersion: v1
kind: Service
metadata: {name: svc}
spec:
  ports: [{port: 80}]
  selector: {app: web}
  sessionAffinity: None
`)
	if got := codes(m.Diagnostics); !slices.Equal(got, []string{"GWP102"}) {
		t.Fatalf("diagnostics = %+v, want one GWP102", m.Diagnostics)
	}
	d := m.Diagnostics[0]
	want := diag.Diagnostic{
		Code: "GWP102", Severity: diag.Error, Field: "spec.rules[0].backendRefs[0].wieght",
		Object: diag.ObjectRef{Group: model.GatewayGroup, Kind: "HTTPRoute", Namespace: "default", Name: "r"},
		Pos:    diag.Position{File: "in.yaml", Line: 11, Col: 7},
	}
	d.Message = ""
	if d != want {
		t.Errorf("GWP102 = %+v\nwant %+v", d, want)
	}
	// The route is still decoded: the rest of it is analysed.
	if m.Route("HTTPRoute", "default", "r") == nil {
		t.Error("route with an unknown field was dropped")
	}
	if !strings.Contains(m.Diagnostics[0].Message, "did you mean weight?") {
		t.Errorf("message %q lacks the suggestion", m.Diagnostics[0].Message)
	}
	lenient := model.Build(set(t, "in.yaml", "apiVersion: gateway.networking.k8s.io/v1\nkind: HTTPRoute\nmetadata: {name: r}\nspec: {parentRefs: [{name: gw}], hostnaems: [a]}\n"),
		model.Options{LenientFields: true})
	if len(lenient.Diagnostics) != 1 || lenient.Diagnostics[0].Severity != diag.Warning {
		t.Errorf("strictFields false: %+v, want one warning", lenient.Diagnostics)
	}
}

func TestDeprecatedVersions(t *testing.T) {
	tests := []struct {
		name, apiVersion, kind string
		spec                   string
		severity               diag.Severity
		decoded                bool
	}{
		{"TLSRoute v1alpha2", "gateway.networking.k8s.io/v1alpha2", "TLSRoute", "{parentRefs: [{name: gw}], hostnames: [a.example.com], rules: [{backendRefs: [{name: s, port: 443}]}]}", diag.Warning, true},
		{"TLSRoute v1alpha3", "gateway.networking.k8s.io/v1alpha3", "TLSRoute", "{parentRefs: [{name: gw}], hostnames: [a.example.com], rules: [{backendRefs: [{name: s, port: 443}]}]}", diag.Warning, true},
		{"Gateway v1beta1", "gateway.networking.k8s.io/v1beta1", "Gateway", "{gatewayClassName: c, listeners: [{name: h, port: 80, protocol: HTTP}]}", diag.Warning, true},
		{"HTTPRoute v1beta1", "gateway.networking.k8s.io/v1beta1", "HTTPRoute", "{parentRefs: [{name: gw}]}", diag.Warning, true},
		{"GRPCRoute v1alpha2", "gateway.networking.k8s.io/v1alpha2", "GRPCRoute", "{parentRefs: [{name: gw}]}", diag.Warning, true},
		{"UDPRoute v1alpha2", "gateway.networking.k8s.io/v1alpha2", "UDPRoute", "{parentRefs: [{name: gw}], rules: [{backendRefs: [{name: dns, port: 53}]}]}", diag.Warning, true},
		{"ReferenceGrant v1beta1", "gateway.networking.k8s.io/v1beta1", "ReferenceGrant", "{from: [], to: []}", diag.Warning, true},
		{"HTTPRoute v2 unserved", "gateway.networking.k8s.io/v2", "HTTPRoute", "{}", diag.Error, false},
		{"GRPCRoute v1beta1 never served", "gateway.networking.k8s.io/v1beta1", "GRPCRoute", "{}", diag.Error, false},
		{"Service v2", "v2", "Service", "{}", diag.Error, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := fmt.Sprintf("apiVersion: %s\nkind: %s\nmetadata: {name: x}\nspec: %s\n", tt.apiVersion, tt.kind, tt.spec)
			m := build(t, src)
			// Without the schema stage (no CRD), model decides: a
			// deprecated version warns (GWP104), one it does not read is
			// an error (GWP111).
			want := model.LintDeprecatedVersion.Code
			if tt.severity == diag.Error {
				want = model.LintVersionNotServed.Code
			}
			if got := codes(m.Diagnostics); !slices.Equal(got, []string{want}) {
				t.Fatalf("diagnostics = %+v, want one %s", m.Diagnostics, want)
			}
			d := m.Diagnostics[0]
			if d.Severity != tt.severity || d.Field != "apiVersion" || d.Pos != (diag.Position{File: "in.yaml", Line: 1, Col: 13}) {
				t.Errorf("%s = %+v", want, d)
			}
			if strings.Contains(d.Message, " /v1") {
				t.Errorf("message %q suggests an empty group", d.Message)
			}
			group, _, found := strings.Cut(tt.apiVersion, "/")
			if !found {
				group = ""
			}
			_, ok := m.Typed(model.Key{Group: group, Kind: tt.kind, Namespace: "default", Name: "x"})
			if ok != tt.decoded {
				t.Errorf("decoded = %v, want %v", ok, tt.decoded)
			}
		})
	}
	// The current version carries no finding.
	if m := build(t, "apiVersion: gateway.networking.k8s.io/v1\nkind: GRPCRoute\nmetadata: {name: g}\nspec: {}\n"); len(m.Diagnostics) != 0 {
		t.Errorf("v1 GRPCRoute: %+v", m.Diagnostics)
	}
}

func TestDecodeFailure(t *testing.T) {
	m := build(t, `apiVersion: v1
kind: Service
metadata: {name: ok}
spec: {ports: [{port: 80}]}
---
apiVersion: gateway.networking.k8s.io/v1
kind: Gateway
metadata: {name: bad}
spec:
  gatewayClassName: c
  listeners:
  - name: http
    port: 80
    protocol: HTTP
  - name: https
    port: "443"
    protocol: HTTPS
`)
	if got := codes(m.Diagnostics); !slices.Equal(got, []string{"GWP101"}) {
		t.Fatalf("diagnostics = %+v, want one GWP101", m.Diagnostics)
	}
	d := m.Diagnostics[0]
	if d.Pos != (diag.Position{File: "in.yaml", Line: 16, Col: 11}) {
		t.Errorf("GWP101 at %v, want the offending field in.yaml:16:11", d.Pos)
	}
	if strings.HasPrefix(d.Message, "in.yaml") || !strings.Contains(d.Message, "must be a number") {
		t.Errorf("message %q: want the problem without the position", d.Message)
	}
	if m.Gateway("default", "bad") != nil || len(m.Gateways) != 0 {
		t.Error("undecodable Gateway in the typed views")
	}
	if _, ok := m.Object(model.GatewayAPIKey("Gateway", "default", "bad")); !ok {
		t.Error("undecodable Gateway vanished from the index")
	}
	if m.Service("default", "ok") == nil {
		t.Error("one bad object hid a good one")
	}
}

func TestSecretDataNeverRetained(t *testing.T) {
	m := build(t, `apiVersion: v1
kind: Secret
metadata:
  name: creds
  labels: {team: a}
type: Opaque
immutable: true
data:
  api-key: c3VwZXItc2VjcmV0
  other: dG9wLXNlY3JldA==
stringData:
  password: hunter2
---
apiVersion: v1
kind: ConfigMap
metadata: {name: cfg}
data:
  policies.yaml: "waf: on"
binaryData:
  blob: AAEC
`)
	if len(m.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", m.Diagnostics)
	}
	s := m.Secret("default", "creds")
	if s == nil {
		t.Fatal("Secret missing")
	}
	if want := []string{"api-key", "other", "password"}; !slices.Equal(s.Keys, want) {
		t.Errorf("Keys = %v, want %v", s.Keys, want)
	}
	if !s.Immutable || s.Kind != "Secret" || s.Name != "creds" || s.Namespace != "default" || s.Labels["team"] != "a" {
		t.Errorf("Secret view = %+v", s)
	}
	secrets := []string{"c3VwZXItc2VjcmV0", "dG9wLXNlY3JldA==", "hunter2", "super-secret", "top-secret"}
	view := *s
	view.Src = nil // the source object is the input itself, not a copy of it
	if dump := fmt.Sprintf("%#v", view); containsAny(dump, secrets) {
		t.Errorf("Secret view holds a value: %s", dump)
	}
	if len(m.Secrets) != 1 || m.Secrets[0] != s {
		t.Errorf("Secrets = %v", m.Secrets)
	}

	c := m.ConfigMap("default", "cfg")
	if c == nil {
		t.Fatal("ConfigMap missing")
	}
	if want := []string{"blob", "policies.yaml"}; !slices.Equal(c.Keys, want) || c.Immutable {
		t.Errorf("ConfigMap view = %+v", c)
	}
	cv := *c
	cv.Src = nil
	if dump := fmt.Sprintf("%#v", cv); containsAny(dump, []string{"waf: on", "AAEC"}) {
		t.Errorf("ConfigMap view holds a value: %s", dump)
	}
	if len(m.ConfigMaps) != 1 || m.ConfigMaps[0] != c {
		t.Errorf("ConfigMaps = %v", m.ConfigMaps)
	}
	// The Opaque type has no field a value could hide in but values,
	// whose values print as [redacted].
	for i, typ := 0, reflect.TypeFor[model.Opaque](); i < typ.NumField(); i++ {
		switch f := typ.Field(i); f.Name {
		case "Kind", "Namespace", "Name", "Labels", "Immutable", "Keys", "Type", "Src", "Assumed": // Assumed is a bool
		case "values", "data":
			if f.Type != reflect.TypeFor[map[string]secret.Value]() {
				t.Errorf("Opaque.%s is %v, not a map of secret.Value", f.Name, f.Type)
			}
		default:
			t.Errorf("Opaque has a field %s; check it cannot carry data", f.Name)
		}
	}
}

func containsAny(s string, subs []string) bool {
	for _, sub := range subs {
		if strings.Contains(s, sub) {
			return true
		}
	}
	return false
}

func TestGrantAllows(t *testing.T) {
	m := build(t, `apiVersion: gateway.networking.k8s.io/v1beta1
kind: ReferenceGrant
metadata: {name: routes-to-backends, namespace: backends}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: HTTPRoute, namespace: apps}
  to:
  - {group: "", kind: Service}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: one-secret, namespace: certs}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: Gateway, namespace: infra}
  - {group: gateway.networking.k8s.io, kind: ListenerSet, namespace: teams}
  to:
  - {group: "", kind: Secret, name: wildcard-cert}
`)
	svc := func(ns, name string) model.ObjectRefTo {
		return model.ObjectRefTo{Kind: "Service", Namespace: ns, Name: name}
	}
	secret := func(ns, name string) model.ObjectRefTo {
		return model.ObjectRefTo{Kind: "Secret", Namespace: ns, Name: name}
	}
	tests := []struct {
		name                string
		group, kind, fromNS string
		to                  model.ObjectRefTo
		want                bool
	}{
		{"same namespace needs no grant", model.GatewayGroup, "HTTPRoute", "apps", svc("apps", "web"), true},
		{"granted: any Service", model.GatewayGroup, "HTTPRoute", "apps", svc("backends", "web"), true},
		{"granted: another Service", model.GatewayGroup, "HTTPRoute", "apps", svc("backends", "api"), true},
		{"other source namespace", model.GatewayGroup, "HTTPRoute", "other", svc("backends", "web"), false},
		{"other source kind", model.GatewayGroup, "GRPCRoute", "apps", svc("backends", "web"), false},
		{"other source group", "example.com", "HTTPRoute", "apps", svc("backends", "web"), false},
		{"grant lives in the target namespace only", model.GatewayGroup, "HTTPRoute", "apps", svc("elsewhere", "web"), false},
		{"grant is for Services, not Secrets", model.GatewayGroup, "HTTPRoute", "apps", secret("backends", "web"), false},
		{"named target", model.GatewayGroup, "Gateway", "infra", secret("certs", "wildcard-cert"), true},
		{"named target, other name", model.GatewayGroup, "Gateway", "infra", secret("certs", "other-cert"), false},
		{"second from entry", model.GatewayGroup, "ListenerSet", "teams", secret("certs", "wildcard-cert"), true},
		{"no grant at all", model.GatewayGroup, "Gateway", "infra", secret("nowhere", "x"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.GrantAllows(tt.group, tt.kind, tt.fromNS, tt.to); got != tt.want {
				t.Errorf("GrantAllows = %v, want %v", got, tt.want)
			}
		})
	}
	// The v1beta1 grant is read (with a deprecation warning).
	if got := codes(m.Diagnostics); !slices.Equal(got, []string{"GWP104"}) {
		t.Errorf("diagnostics = %+v", m.Diagnostics)
	}
}

// TestGrantRule: a rule with CoreAlias reads a group written "core" as
// the core group "" wherever it is written (the grant's from or to, the
// reference); the zero rule compares groups as written.
func TestGrantRule(t *testing.T) {
	m := build(t, `apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: core-to, namespace: vault}
spec:
  from:
  - {group: policy.example.io, kind: AuthConfig, namespace: team-a}
  to:
  - {group: core, kind: Secret, name: signing-key}
  - {group: core, kind: ConfigMap}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: core-from, namespace: pool}
spec:
  from:
  - {group: core, kind: Pod, namespace: jobs}
  to:
  - {group: "", kind: Service, name: queue}
---
apiVersion: gateway.networking.k8s.io/v1
kind: ReferenceGrant
metadata: {name: literal, namespace: edge}
spec:
  from:
  - {group: gateway.networking.k8s.io, kind: TCPRoute, namespace: lb}
  to:
  - {group: "", kind: Service}
`)
	alias := model.GrantRule{CoreAlias: true}
	ref := func(group, kind, ns, name string) model.ObjectRefTo {
		return model.ObjectRefTo{Group: group, Kind: kind, Namespace: ns, Name: name}
	}
	tests := []struct {
		name                string
		rule                model.GrantRule
		group, kind, fromNS string
		to                  model.ObjectRefTo
		want                bool
	}{
		{"to core, ref core group: alias", alias, "policy.example.io", "AuthConfig", "team-a", ref("", "Secret", "vault", "signing-key"), true},
		{"to core, ref core group: literal", model.GrantRule{}, "policy.example.io", "AuthConfig", "team-a", ref("", "Secret", "vault", "signing-key"), false},
		{"to core, ref written core: literal", model.GrantRule{}, "policy.example.io", "AuthConfig", "team-a", ref("core", "Secret", "vault", "signing-key"), true},
		{"to core, other name", alias, "policy.example.io", "AuthConfig", "team-a", ref("", "Secret", "vault", "other"), false},
		{"to core, any ConfigMap", alias, "policy.example.io", "AuthConfig", "team-a", ref("", "ConfigMap", "vault", "ca"), true},
		{"to core, kind still compared", alias, "policy.example.io", "AuthConfig", "team-a", ref("", "Service", "vault", "signing-key"), false},
		{"from core, from group empty: alias", alias, "", "Pod", "jobs", ref("", "Service", "pool", "queue"), true},
		{"from core, from group empty: literal", model.GrantRule{}, "", "Pod", "jobs", ref("", "Service", "pool", "queue"), false},
		{"ref written core, grant empty: alias", alias, model.GatewayGroup, "TCPRoute", "lb", ref("core", "Service", "edge", "db"), true},
		{"ref written core, grant empty: literal", model.GrantRule{}, model.GatewayGroup, "TCPRoute", "lb", ref("core", "Service", "edge", "db"), false},
		{"other groups are not aliased", alias, "gateway.networking.k8s.io.", "TCPRoute", "lb", ref("", "Service", "edge", "db"), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := m.GrantAllowsBy(tt.rule, tt.group, tt.kind, tt.fromNS, tt.to); got != tt.want {
				t.Errorf("GrantAllowsBy = %v, want %v", got, tt.want)
			}
		})
	}
}

func TestIndexAndRoutes(t *testing.T) {
	m := build(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: b, namespace: z, labels: {tier: web}}
spec:
  parentRefs: [{name: gw}]
  rules:
  - name: first
    backendRefs:
    - {name: svc, port: 80}
    - {name: svc2, port: 81, weight: 0, filters: [{type: ExtensionRef, extensionRef: {group: g.io, kind: P, name: p}}]}
    filters:
    - {type: ExtensionRef, extensionRef: {group: gateway.kgateway.dev, kind: TrafficPolicy, name: tp}}
  - backendRefs: [{name: svc, port: 80, weight: 3}]
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: a, namespace: z, labels: {tier: api}}
spec: {}
---
apiVersion: gateway.networking.k8s.io/v1
kind: GRPCRoute
metadata: {name: g, namespace: a}
spec:
  hostnames: [grpc.example.com]
  rules:
  - backendRefs: [{name: grpc, port: 9000}]
---
apiVersion: v1
kind: Namespace
metadata: {name: z, labels: {env: prod}}
`)
	if len(m.Diagnostics) != 0 {
		t.Fatalf("diagnostics: %+v", m.Diagnostics)
	}
	var keys []string
	for _, r := range m.Routes {
		keys = append(keys, r.Key().Kind+"/"+r.Key().Namespace+"/"+r.Key().Name)
	}
	if want := []string{"GRPCRoute/a/g", "HTTPRoute/z/a", "HTTPRoute/z/b"}; !slices.Equal(keys, want) {
		t.Errorf("Routes = %v, want %v", keys, want)
	}
	r := m.Route("HTTPRoute", "z", "b")
	if r == nil || r.HTTP == nil || r.GRPC != nil || len(r.Rules) != 2 {
		t.Fatalf("route = %+v", r)
	}
	r0, r1 := r.Rules[0], r.Rules[1]
	if r0.Section() != "first" || r1.Section() != "#1" || r1.Path != "spec.rules[1]" {
		t.Errorf("sections %q %q path %q", r0.Section(), r1.Section(), r1.Path)
	}
	if w := []int32{r0.BackendRefs[0].Weight, r0.BackendRefs[1].Weight, r1.BackendRefs[0].Weight}; !slices.Equal(w, []int32{1, 0, 3}) {
		t.Errorf("weights = %v, want [1 0 3] (unset is 1)", w)
	}
	if p := r0.BackendRefs[1].Path; p != "spec.rules[0].backendRefs[1]" {
		t.Errorf("backendRef path %q", p)
	}
	if f := r0.BackendRefs[1].Filters; len(f) != 1 || f[0].Path != "spec.rules[0].backendRefs[1].filters[0]" || f[0].ExtensionRef.Name != "p" {
		t.Errorf("backendRef filters %+v", f)
	}
	if f := r0.Filters; len(f) != 1 || f[0].Type != "ExtensionRef" || f[0].Path != "spec.rules[0].filters[0]" || f[0].ExtensionRef.Name != "tp" {
		t.Errorf("rule filters %+v", f)
	}
	if pos := r.Src.FieldPos(r0.BackendRefs[1].Path); pos.Line != 10 {
		t.Errorf("backendRef at %v", pos)
	}
	g := m.Route("GRPCRoute", "a", "g")
	if g == nil || g.GRPC == nil || len(g.Hostnames) != 1 || g.Rules[0].BackendRefs[0].Name != "grpc" {
		t.Errorf("GRPCRoute = %+v", g)
	}
	sel := labels.SelectorFromSet(labels.Set{"tier": "web"})
	if got := m.Select(model.GroupKind{Group: model.GatewayGroup, Kind: "HTTPRoute"}, "z", sel); len(got) != 1 || got[0].Name != "b" {
		t.Errorf("Select = %v", got)
	}
	if got := m.Select(model.GroupKind{Group: model.GatewayGroup, Kind: "HTTPRoute"}, "", labels.Everything()); len(got) != 2 || got[0].Name != "a" {
		t.Errorf("Select(all) = %v", got)
	}
	if got := m.Select(model.GroupKind{Group: model.GatewayGroup, Kind: "HTTPRoute"}, "a", labels.Everything()); len(got) != 0 {
		t.Errorf("Select(ns a) = %v", got)
	}
}

func TestNamespaceLabels(t *testing.T) {
	m := build(t, `apiVersion: v1
kind: Namespace
metadata:
  name: prod
  labels: {env: prod}
`)
	if got, want := m.NamespaceLabels("prod"), (labels.Set{"env": "prod", model.NamespaceNameLabel: "prod"}); !reflect.DeepEqual(got, want) {
		t.Errorf("NamespaceLabels(prod) = %v, want %v", got, want)
	}
	// A namespace not in the input still has the label the API server sets.
	if got, want := m.NamespaceLabels("dev"), (labels.Set{model.NamespaceNameLabel: "dev"}); !reflect.DeepEqual(got, want) {
		t.Errorf("NamespaceLabels(dev) = %v, want %v", got, want)
	}
}

// TestHeaderNamesAsTheCRDs: header and query parameter names in matches
// and header filters follow the Gateway API's HeaderName (1 to 256 token
// characters), paths, hostnames, durations and ranges their CRD rules,
// as the API server enforces; a route breaking one is refused at the
// field by the schema stage and left out of the model (an empty name
// would reach Envoy, whose validation refuses it), with the refusal. The
// field is where the API server reports it: a path's CEL rules are the
// path's, not its value's, and a gRPC method match's are the match's.
func TestHeaderNamesAsTheCRDs(t *testing.T) {
	route := func(kind, rule string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: ns}\nspec:\n  rules:\n  - " + rule + "\n"
	}
	tests := []struct {
		name, yaml, field string
	}{
		{"valid names", strings.Replace(route("HTTPRoute", "matches: [{headers: [{name: X-Env, value: a}], queryParams: [{name: \"q~1\", value: b}]}]\n    timeouts: {request: 1m30s, backendRequest: 500ms}\n    retry: {attempts: 2, codes: [503], backoff: 100ms}"), "spec:\n", "spec:\n  hostnames: [\"*.example.com\", a.example.com]\n", 1), ""},
		{"empty query parameter", route("HTTPRoute", "matches: [{queryParams: [{name: \"\", value: b}]}]"), "spec.rules[0].matches[0].queryParams[0].name"},
		{"pseudo header", route("HTTPRoute", "matches: [{headers: [{name: \":authority\", value: a}]}]"), "spec.rules[0].matches[0].headers[0].name"},
		{"space in a set header", route("HTTPRoute", "filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{name: \"x y\", value: v}]}}]"), "spec.rules[0].filters[0].requestHeaderModifier.set[0].name"},
		{"too long", route("HTTPRoute", "filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: "+strings.Repeat("h", 257)+", value: v}]}}]"), "spec.rules[0].filters[0].responseHeaderModifier.add[0].name"},
		{"grpc header", route("GRPCRoute", "matches: [{headers: [{name: \"\", value: a}]}]"), "spec.rules[0].matches[0].headers[0].name"},
		{"backendRef header filter without a name", route("HTTPRoute", "backendRefs: [{name: web, port: 80, filters: [{type: RequestHeaderModifier, requestHeaderModifier: {set: [{value: v}]}}]}]"), "spec.rules[0].backendRefs[0].filters[0].requestHeaderModifier.set[0].name"},
		{"grpc backendRef header filter", route("GRPCRoute", "backendRefs: [{name: web, port: 80, filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {add: [{name: \"a b\", value: v}]}}]}]"), "spec.rules[0].backendRefs[0].filters[0].responseHeaderModifier.add[0].name"},
		{"wildcard alone as a hostname", strings.Replace(route("HTTPRoute", "matches: [{path: {value: /}}]"), "spec:\n", "spec:\n  hostnames: [\"*\"]\n", 1), "spec.hostnames[0]"},
		{"upper-case redirect hostname", route("HTTPRoute", "filters: [{type: RequestRedirect, requestRedirect: {hostname: Example.com}}]"), "spec.rules[0].filters[0].requestRedirect.hostname"},
		{"relative path prefix", route("HTTPRoute", "matches: [{path: {type: PathPrefix, value: \" u\"}}]"), "spec.rules[0].matches[0].path"},
		{"query in an exact path", route("HTTPRoute", "matches: [{path: {type: Exact, value: \"/a?b\"}}]"), "spec.rules[0].matches[0].path"},
		{"dot segment in a path", route("HTTPRoute", "matches: [{path: {value: /a/../b}}]"), "spec.rules[0].matches[0].path"},
		{"encoded slash in a path", route("HTTPRoute", "matches: [{path: {value: /a%2Fb}}]"), "spec.rules[0].matches[0].path"},
		{"negative timeout", route("HTTPRoute", "timeouts: {request: \"-5s\"}"), "spec.rules[0].timeouts.request"},
		{"retry attempts below 1", route("HTTPRoute", "retry: {attempts: -3}"), "spec.rules[0].retry.attempts"},
		{"retry code outside 4xx-5xx", route("HTTPRoute", "retry: {codes: [503, 200]}"), "spec.rules[0].retry.codes[1]"},
		{"retry backoff in days", route("HTTPRoute", "retry: {backoff: 1d}"), "spec.rules[0].retry.backoff"},
		{"redirect to port 0", route("HTTPRoute", "filters: [{type: RequestRedirect, requestRedirect: {port: 0}}]"), "spec.rules[0].filters[0].requestRedirect.port"},
		{"wildcard rewrite hostname", route("HTTPRoute", "filters: [{type: URLRewrite, urlRewrite: {hostname: \"*.example.com\"}}]"), "spec.rules[0].filters[0].urlRewrite.hostname"},
		// a gRPC method match is the route's path; its CEL rules are the
		// match's (found by FuzzRender's exploration: a service holding a
		// query character became a path prefix Envoy refuses)
		{"valid grpc method", route("GRPCRoute", "matches: [{method: {service: pkg.v1.Svc, method: Get}}, {method: {type: RegularExpression, service: \"pkg\\\\..*\"}}]"), ""},
		{"query character in a grpc service", route("GRPCRoute", "matches: [{method: {service: \"a?b\"}}]"), "spec.rules[0].matches[0].method"},
		{"slash in a grpc service", route("GRPCRoute", "matches: [{method: {service: /pkg.Svc, method: Get}}]"), "spec.rules[0].matches[0].method"},
		{"regex character in a grpc method", route("GRPCRoute", "matches: [{headers: [{name: x, value: a}]}, {method: {method: \"Get(\"}}]"), "spec.rules[0].matches[1].method"},
		{"grpc service too long", route("GRPCRoute", "matches: [{method: {type: RegularExpression, service: "+strings.Repeat("s", 1025)+"}}]"), "spec.rules[0].matches[0].method.service"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := buildChecked(t, tt.yaml)
			kind := strings.TrimPrefix(strings.SplitN(tt.yaml, "\n", 3)[1], "kind: ")
			why, refused := m.Refused(model.GatewayAPIKey(kind, "ns", "r"))
			got := refusalFields(t, why)
			switch {
			case tt.field == "" && (refused || len(m.Routes) != 1):
				t.Errorf("valid route: refused at %v, %d routes", got, len(m.Routes))
			case tt.field != "" && (!slices.Contains(got, tt.field) || len(m.Routes) != 0):
				t.Errorf("refused at %v (routes built: %d), want at %s and no route", got, len(m.Routes), tt.field)
			}
		})
	}
}

// TestCarriedPastBlockingErrors: a value the model carries whose CEL
// rule refuses it leaves the route out even when an earlier error (a
// required field missing, a value outside an enum) kept the API server
// from running its CEL rules, which judge it alone (found by FuzzRender:
// a GRPCRoute whose backendRef had no name rendered its method match, a
// service holding a query character, as a path prefix Envoy refuses).
// The refusals that say why are the API server's; without a refused
// carried value, such a route is read as written.
func TestCarriedPastBlockingErrors(t *testing.T) {
	route := func(kind, rule string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: ns}\nspec:\n  rules:\n  - " + rule + "\n"
	}
	tests := []struct {
		name, yaml string
		field      string // the refusal that says why; "" when the route is read
	}{
		{"grpc service after a backendRef without a name", route("GRPCRoute", "matches: [{method: {service: \"a?b\"}}]\n    backendRefs: [{port: 80}]"), "spec.rules[0].backendRefs[0].name"},
		{"grpc method after an unknown filter type", route("GRPCRoute", "matches: [{method: {method: \"Get(\"}}]\n    filters: [{type: Bogus}]"), "spec.rules[0].filters[0].type"},
		{"query in an exact path after a backendRef without a name", route("HTTPRoute", "matches: [{path: {type: Exact, value: \"/a?b\"}}]\n    backendRefs: [{port: 80}]"), "spec.rules[0].backendRefs[0].name"},
		{"dot segment after an unknown filter type", route("HTTPRoute", "matches: [{path: {value: /a/../b}}]\n    filters: [{type: Bogus}]"), "spec.rules[0].filters[0].type"},
		{"valid method, backendRef without a name", route("GRPCRoute", "matches: [{method: {service: pkg.Svc, method: Get}}]\n    backendRefs: [{port: 80}]"), ""},
		{"valid path, unknown filter type", route("HTTPRoute", "matches: [{path: {value: /a}}]\n    filters: [{type: Bogus}]"), ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := buildChecked(t, tt.yaml)
			kind := strings.TrimPrefix(strings.SplitN(tt.yaml, "\n", 3)[1], "kind: ")
			why, refused := m.Refused(model.GatewayAPIKey(kind, "ns", "r"))
			got := refusalFields(t, why)
			switch {
			case tt.field == "" && (refused || len(m.Routes) != 1):
				t.Errorf("refused at %v, %d routes; want the route read as written", got, len(m.Routes))
			case tt.field != "" && (!slices.Equal(got, []string{tt.field}) || len(m.Routes) != 0):
				t.Errorf("refused at %v (routes built: %d), want at %s alone and no route", got, len(m.Routes), tt.field)
			}
		})
	}
}

// TestListenerNamesAsTheCRDs: a listener needs a SectionName (a DNS
// subdomain), as the API server enforces; a Gateway or ListenerSet
// without one is refused at the listener's name and not built (its Envoy
// resources would otherwise be named "").
func TestListenerNamesAsTheCRDs(t *testing.T) {
	gw := func(kind, listener string) string {
		parent := ""
		if kind == "ListenerSet" {
			parent = "  parentRef: {name: gw}\n"
		}
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: g, namespace: ns}\nspec:\n  gatewayClassName: c\n" + parent + "  listeners:\n  - " + listener + "\n"
	}
	tests := []struct {
		name, yaml string
		bad        bool
	}{
		{"valid", gw("Gateway", "{name: web.v1, port: 80, protocol: HTTP}"), false},
		{"missing", gw("Gateway", "{port: 80, protocol: HTTP}"), true},
		{"upper case", gw("Gateway", "{name: Web, port: 80, protocol: HTTP}"), true},
		{"listener set", gw("ListenerSet", "{name: \"\", port: 80, protocol: HTTP}"), true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := buildChecked(t, tt.yaml)
			kind := strings.TrimPrefix(strings.SplitN(tt.yaml, "\n", 3)[1], "kind: ")
			why, refused := m.Refused(model.GatewayAPIKey(kind, "ns", "g"))
			got := refusalFields(t, why)
			if built := len(m.Gateways) + len(m.ListenerSets); refused != tt.bad || slices.Contains(got, "spec.listeners[0].name") != tt.bad || built != map[bool]int{true: 0, false: 1}[tt.bad] {
				t.Errorf("refused at %v, %d built; want refused at the listener's name: %v", got, built, tt.bad)
			}
		})
	}
}

// buildChecked builds yaml as the pipeline does: after the schema stage,
// whose verdicts decide what the model leaves out.
func buildChecked(t *testing.T, yaml string) *model.Model {
	t.Helper()
	s := set(t, "in.yaml", yaml)
	res := schema.Validate(s.Objects, schema.NewCatalog(true), schema.Options{DefaultNamespace: "default"})
	return model.Build(s, model.Options{Schema: res.Verdict})
}

// refusalFields are the fields of an object's refusals, each of which
// must be a positioned finding with the API server's message.
func refusalFields(t *testing.T, why []diag.Diagnostic) []string {
	t.Helper()
	var out []string
	for _, d := range why {
		if d.Pos.Line < 1 || d.Severity != diag.Error || d.Message == "" {
			t.Errorf("refusal without a position or reason: %+v", d)
		}
		out = append(out, d.Field)
	}
	return out
}

// TestKeyOrder: the typed views list objects in key order (kind, group,
// namespace, name) whatever the input order, across kinds too (Routes
// holds several).
func TestKeyOrder(t *testing.T) {
	var b strings.Builder
	for i, k := range []string{"HTTPRoute", "GRPCRoute", "HTTPRoute", "GRPCRoute", "HTTPRoute", "GRPCRoute"} {
		fmt.Fprintf(&b, "---\napiVersion: gateway.networking.k8s.io/v1\nkind: %s\nmetadata: {name: r%d, namespace: ns%d}\nspec: {}\n", k, 5-i, i%3)
		fmt.Fprintf(&b, "---\napiVersion: v1\nkind: Service\nmetadata: {name: s%d, namespace: ns%d}\n", 5-i, i%2)
	}
	m := build(t, b.String())
	keys := func(n int, key func(int) model.Key) []model.Key {
		out := make([]model.Key, n)
		for i := range out {
			out[i] = key(i)
		}
		return out
	}
	for what, ks := range map[string][]model.Key{
		"routes":   keys(len(m.Routes), func(i int) model.Key { return m.Routes[i].Key() }),
		"services": keys(len(m.Services), func(i int) model.Key { return model.KeyOf(m.Services[i].Src) }),
	} {
		if len(ks) != 6 || !slices.IsSortedFunc(ks, model.Key.Compare) {
			t.Errorf("%s not in key order: %v", what, ks)
		}
	}
	if m.Routes[0].Kind != "GRPCRoute" || m.Routes[5].Kind != "HTTPRoute" {
		t.Errorf("kinds not in order: %s first, %s last", m.Routes[0].Kind, m.Routes[5].Kind)
	}
}

// TestIdenticalDuplicates: the same object written twice (the same
// GatewayClass in two example files) is one object, with no finding.
func TestIdenticalDuplicates(t *testing.T) {
	m := model.Build(set(t, "a.yaml", svcA, "b.yaml", "# the same Service, formatted differently\n"+strings.ReplaceAll(svcA, "[{port: 80}]", "\n  - port: 80")), model.Options{})
	if len(m.Diagnostics) != 0 {
		t.Fatalf("diagnostics = %+v, want none", m.Diagnostics)
	}
	if len(m.Services) != 1 {
		t.Fatalf("Services = %d, want 1", len(m.Services))
	}
}

// TestSecretEntriesMustBeMapsOfStrings: data, stringData (and a
// ConfigMap's data) the API server would refuse — a list, a scalar, a
// value that is not a string, base64 that does not decode, a key name it
// refuses — is an error at its position, names no value and no refused
// key, and the object takes no further part: nothing is read from it.
func TestSecretEntriesMustBeMapsOfStrings(t *testing.T) {
	const mark = "GWPOL-MARKER"
	for _, tc := range []struct{ name, body, field string }{
		{"data list", "data:\n  - " + mark + "-1\n  - " + mark + "-2\n", "data"},
		{"data list of maps", "data:\n  - {" + mark + "-1: " + mark + "-2}\n", "data"},
		{"stringData list", "stringData: [" + mark + "-1, " + mark + "-2]\n", "stringData"},
		{"data scalar", "data: " + mark + "-1\n", "data"},
		{"value is a list", "stringData:\n  keys: [" + mark + "-1]\n", "stringData.keys"},
		{"value is a map", "data:\n  keys: {" + mark + "-1: x}\n", "data.keys"},
		{"bad base64", "data:\n  keys: \"!" + mark + "-1\"\n", ""},
		{"bad key name", "stringData:\n  \"" + mark + " 1\": x\n", "stringData"},
		{"key with a newline", "stringData:\n  \"a\\n" + mark + "\": x\n", "stringData"},
		{"key ..", "data:\n  \"..x\": eA==\n", "data"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := build(t, "apiVersion: v1\nkind: Secret\nmetadata: {name: keys, namespace: shop}\nimmutable: true\n"+tc.body)
			if s := m.Secret("shop", "keys"); s != nil {
				t.Errorf("the Secret is in the model with keys %v", s.Keys)
			}
			if len(m.Diagnostics) == 0 {
				t.Fatal("no finding")
			}
			for _, d := range m.Diagnostics {
				if d.Code != model.LintInvalidDocument.Code || d.Severity != diag.Error || d.Pos.Line < 5 {
					t.Errorf("finding %s %s at %v: want an error at the entry", d.Code, d.Severity, d.Pos)
				}
				if tc.field != "" && d.Field != tc.field {
					t.Errorf("field %q, want %q", d.Field, tc.field)
				}
				if strings.Contains(d.Message, mark) {
					t.Errorf("message quotes the input: %s", d.Message)
				}
			}
		})
	}
	m := build(t, "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: cat, namespace: shop}\ndata: [a, b]\n")
	if m.ConfigMap("shop", "cat") != nil || len(m.Diagnostics) != 1 {
		t.Errorf("ConfigMap with list data: %v", m.Diagnostics)
	}
}

// TestSecretValues: stringData wins over data, data is base64-decoded, and
// the values are held as secret.Value.
func TestSecretValues(t *testing.T) {
	m := build(t, `apiVersion: v1
kind: Secret
metadata: {name: s}
data: {a: eA==, b: eQ==}
stringData: {b: zz, c: "123"}
`)
	s := m.Secret("default", "s")
	if s == nil {
		t.Fatalf("Secret missing: %v", m.Diagnostics)
	}
	if !slices.Equal(s.Keys, []string{"a", "b", "c"}) {
		t.Errorf("Keys = %v", s.Keys)
	}
	for k, n := range map[string]int{"a": 1, "b": 2, "c": 3} {
		v, ok := s.Value(k)
		if !ok || v.Len() != n || v.String() != secret.Redacted {
			t.Errorf("Value(%s) = %v %v, len %d", k, v, ok, v.Len())
		}
	}
	if _, ok := s.Value("d"); ok {
		t.Error("Value of a missing key")
	}
}

// TestClusterTrustBundle: a ClusterTrustBundle is read cluster-scoped with
// its trustBundle, whichever of its two served versions it is written in
// and whatever default namespace the run has; one the input lacks is
// absent unless assumeExist names the kind, then a stand-in with no
// content.
func TestClusterTrustBundle(t *testing.T) {
	src := `apiVersion: certificates.k8s.io/v1beta1
kind: ClusterTrustBundle
metadata: {name: roots}
spec: {trustBundle: PEM-A}
---
apiVersion: certificates.k8s.io/v1alpha1
kind: ClusterTrustBundle
metadata: {name: older}
spec: {signerName: example.com/signer, trustBundle: PEM-B}
`
	m := model.Build(set(t, "in.yaml", src), model.Options{DefaultNamespace: "apps"})
	if len(m.Diagnostics) > 0 {
		t.Fatalf("findings: %v", m.Diagnostics)
	}
	for name, want := range map[string]string{"roots": "PEM-A", "older": "PEM-B"} {
		b := m.ClusterTrustBundle(name)
		if b == nil || b.TrustBundle != want || b.Assumed {
			t.Errorf("ClusterTrustBundle %s = %+v, want trustBundle %q", name, b, want)
		}
	}
	if b := m.ClusterTrustBundle("nope"); b != nil {
		t.Errorf("absent ClusterTrustBundle = %+v, want nil", b)
	}
	m = model.Build(set(t, "in.yaml", src), model.Options{AssumeExist: []string{"clustertrustbundle"}})
	if b := m.ClusterTrustBundle("nope"); b == nil || !b.Assumed || b.TrustBundle != "" {
		t.Errorf("assumed ClusterTrustBundle = %+v, want a stand-in", b)
	}
	if b := m.ClusterTrustBundle("roots"); b == nil || b.Assumed {
		t.Errorf("ClusterTrustBundle in the input = %+v, want it read, not assumed", b)
	}
}

// TestRefusedElsewhereStaysIn: a route its CRD refuses at a field the
// model does not carry as written (an invalid redirect scheme) is read,
// as the controllers' translators read it (they say what they make of
// it); the schema stage's finding is the report.
func TestRefusedElsewhereStaysIn(t *testing.T) {
	m := buildChecked(t, `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: r, namespace: ns}
spec:
  rules:
  - filters: [{type: RequestRedirect, requestRedirect: {scheme: gopher}}]
`)
	if _, refused := m.Refused(model.GatewayAPIKey("HTTPRoute", "ns", "r")); refused || len(m.Routes) != 1 {
		t.Errorf("refused: %v, %d routes; want the route read", refused, len(m.Routes))
	}
}

// TestEachKeyHeldOnce: whatever duplicates the input holds — one object
// written twice, one key with three contents, an object of a kind gwpol
// does not read, one in the default namespace by omission — each key's
// one object is listed once in its kind, the one Object returns (the
// last applied), and typed.
func TestEachKeyHeldOnce(t *testing.T) {
	svc := func(name, ns string, port int) string {
		meta := "{name: " + name + "}"
		if ns != "" {
			meta = "{name: " + name + ", namespace: " + ns + "}"
		}
		return fmt.Sprintf("---\napiVersion: v1\nkind: Service\nmetadata: %s\nspec: {ports: [{port: %d}]}\n", meta, port)
	}
	in := svc("twice", "ns", 80) + svc("three", "ns", 81) + svc("twice", "ns", 80) +
		"---\napiVersion: example.com/v1\nkind: Widget\nmetadata: {name: three, namespace: ns}\n" +
		svc("three", "ns", 82) + svc("omitted", "", 83) + svc("omitted", "default", 84) + svc("three", "ns", 85)
	m := build(t, in)
	objs := m.OfKind(model.GroupKind{Group: model.CoreGroup, Kind: "Service"})
	var keys []string
	for _, o := range objs {
		k := model.KeyOf(o)
		keys = append(keys, k.Namespace+"/"+k.Name)
		if got, ok := m.Object(k); !ok || got != o {
			t.Errorf("%v: Object gives another object than the kind's list", k)
		}
		if _, ok := m.Typed(k); !ok {
			t.Errorf("%v: not typed", k)
		}
	}
	if want := []string{"default/omitted", "ns/three", "ns/twice"}; !slices.Equal(keys, want) {
		t.Fatalf("Services listed %v, want %v", keys, want)
	}
	for name, port := range map[string]int32{"three": 85, "omitted": 84} {
		ns := "ns"
		if name == "omitted" {
			ns = "default"
		}
		if s := m.Service(ns, name); s == nil || !s.HasPort(port) {
			t.Errorf("Service %s/%s is not the last applied (port %d)", ns, name, port)
		}
	}
	if len(m.Services) != 3 {
		t.Errorf("Services = %d, want 3", len(m.Services))
	}
}

package schema

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"

	envoygateway "github.com/envoyproxy/gateway"
	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	apiextensions "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"sigs.k8s.io/yaml"
)

// TestDependencyIndex: the bundle's documents are found by their group
// and kind lines exactly as a full decoding of each names them.
func TestDependencyIndex(t *testing.T) {
	want := map[GroupKind]bool{}
	for _, doc := range splitYAML(envoygateway.GatewayCRDs) {
		var crd apiextensionsv1.CustomResourceDefinition
		if err := yaml.Unmarshal(doc, &crd); err != nil {
			t.Fatal(err)
		}
		if crd.Kind == "" {
			continue // the bundle's leading comment
		}
		want[GroupKind{crd.Spec.Group, crd.Spec.Names.Kind}] = true
	}
	idx := dependencyIndex()
	if len(idx) != len(want) {
		t.Errorf("index holds %d kinds, the bundle %d", len(idx), len(want))
	}
	for gk := range want {
		if _, ok := idx[gk]; !ok {
			t.Errorf("%s missing from the index", gk)
		}
	}
	for _, gk := range []GroupKind{{"gateway.networking.k8s.io", "HTTPRoute"}, {"gateway.envoyproxy.io", "BackendTrafficPolicy"}} {
		if !want[gk] {
			t.Errorf("the bundle lacks %s", gk)
		}
	}
}

const egCELCases = "../../../shared/conformance/envoygateway-cel/cases"

// TestRulesAgreeWithTheLibrary: the CEL rules evaluated node by node with
// the memo (rules.validate), each node's compiled when first reached,
// give exactly the errors the API server's validator (every rule
// compiled at once, cel.NewValidator) gives in one call, on every Envoy
// Gateway CRD validation case, each validated twice (the second from the
// memo); the memo is shared across the cases, whose values differ in the
// fields the rules read, so a key that told too little apart would show
// here.
// TestDependencyJSONIsTheLibrarys: every CRD of the bundle reads, through
// manifest's reader, as the JSON sigs.k8s.io/yaml made of it (the
// bundle's YAML, including its scalars over lines and characters past
// ASCII, means the same to both), and decodes to the same CRD.
func TestDependencyJSONIsTheLibrarys(t *testing.T) {
	for gk, raw := range dependencyIndex() {
		want, err := yaml.YAMLToJSON(raw)
		if err != nil {
			t.Fatal(err)
		}
		got, err := dependencyJSON(raw)
		if err != nil {
			t.Fatalf("%v: %v", gk, err)
		}
		var a, b any
		if err := json.Unmarshal(got, &a); err != nil {
			t.Fatalf("%v: %v", gk, err)
		}
		if err := json.Unmarshal(want, &b); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(a, b) {
			t.Errorf("%v: the JSON differs from the library's", gk)
		}
		var ca, cb apiextensionsv1.CustomResourceDefinition
		if json.Unmarshal(got, &ca) != nil || json.Unmarshal(want, &cb) != nil || !reflect.DeepEqual(ca, cb) {
			t.Errorf("%v: the CRD decodes differently", gk)
		}
	}
}

// BenchmarkDependencyJSON reads the CRDs an Envoy Gateway platform's
// objects need through manifest's reader and through sigs.k8s.io/yaml.
func BenchmarkDependencyJSON(b *testing.B) {
	var docs [][]byte
	for _, k := range []string{"HTTPRoute", "Gateway", "GatewayClass"} {
		docs = append(docs, dependencyIndex()[GroupKind{"gateway.networking.k8s.io", k}])
	}
	for _, k := range []string{"BackendTrafficPolicy", "SecurityPolicy"} {
		docs = append(docs, dependencyIndex()[GroupKind{"gateway.envoyproxy.io", k}])
	}
	for name, read := range map[string]func([]byte) ([]byte, error){"manifest": dependencyJSON, "library": yaml.YAMLToJSON} {
		b.Run(name, func(b *testing.B) {
			for b.Loop() {
				for _, raw := range docs {
					if _, err := read(raw); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func TestRulesAgreeWithTheLibrary(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join(egCELCases, "*", "input.yaml"))
	if len(dirs) == 0 {
		t.Skip("../shared conformance cases not found; skipping")
	}
	cat := NewCatalog(true)
	compared := 0
	library := map[*version]*cel.Validator{}
	for _, file := range dirs {
		data, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		objs, err := manifest.Parse(file, data, manifest.Limits{})
		if err != nil || len(objs) != 1 {
			t.Fatalf("%s: %v", file, err)
		}
		o := objs[0]
		d := cat.lookup(GroupKind{o.Group, o.Kind})
		if d == nil || d.load() != nil {
			t.Fatalf("%s: no CRD", file)
		}
		v := d.versions[o.Version]
		if v.compile() != nil || v.rules == nil {
			continue
		}
		if library[v] == nil {
			library[v] = cel.NewValidator(v.structural, true, celconfig.PerCallLimit)
		}
		for round := 0; round < 2; round++ {
			u, err := o.Unstructured()
			if err != nil {
				t.Fatal(err)
			}
			structuraldefaulting.Default(u, v.structural)
			lib, _ := library[v].Validate(context.Background(), nil, v.structural, u, nil, celconfig.RuntimeCELCostBudget)
			ours := v.rules.validate(context.Background(), u)
			if a, b := errorStrings(lib), errorStrings(ours); !slices.Equal(a, b) {
				t.Errorf("%s (round %d):\n library: %q\n memo:    %q", file, round, a, b)
			}
			compared++
		}
	}
	if compared == 0 {
		t.Error("no case compared")
	}
}

func errorStrings(errs field.ErrorList) []string {
	out := make([]string, len(errs))
	for i, e := range errs {
		out[i] = e.Error()
	}
	slices.Sort(out)
	return out
}

// TestValidateReportsAtTheField: a finding is placed at the offending
// field's line, with the API server's message, and a defaulted field
// (targetSelectors[].group) does not count as missing.
func TestValidateReportsAtTheField(t *testing.T) {
	src := `apiVersion: gateway.envoyproxy.io/v1alpha1
kind: ClientTrafficPolicy
metadata: {name: p}
spec:
  targetSelectors:
  - kind: Gateway
    matchLabels: {a: b}
  timeout:
    http:
      idleTimeout: 5 minutes
`
	objs, err := manifest.Parse("in.yaml", []byte(src), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	r := Validate(objs, NewCatalog(true), Options{DefaultNamespace: "default"})
	if len(r.Diagnostics) != 1 {
		t.Fatalf("findings %+v, want one", r.Diagnostics)
	}
	d := r.Diagnostics[0]
	if d.Code != LintSchemaViolation.Code || d.Severity != diag.Error || d.Pos.Line != 10 || d.Field != "spec.timeout.http.idleTimeout" ||
		!strings.Contains(d.Message, "spec.timeout.http.idleTimeout in body should match") {
		t.Errorf("finding %+v", d)
	}
	if objs[0].Namespace != "default" {
		t.Errorf("namespace %q, want the default", objs[0].Namespace)
	}
	if v := r.Verdict(objs[0]); !v.Checked || !v.Served || !v.Fields["spec.timeout.http.idleTimeout"] {
		t.Errorf("verdict %+v", v)
	}
}

// TestUnrunRules: an error after which the API server runs no CEL rule
// (a required field missing, a value outside an enum) leaves the rules'
// refusals out of the findings, as the API server makes none, and in
// Verdict.Unrun; without one they are findings, and Unrun is empty.
func TestUnrunRules(t *testing.T) {
	route := func(kind, rule string) string {
		return "apiVersion: gateway.networking.k8s.io/v1\nkind: " + kind + "\nmetadata: {name: r, namespace: ns}\nspec:\n  rules:\n  - " + rule + "\n"
	}
	for _, c := range []struct {
		name, yaml string
		refusals   []string // the fields of Verdict.Refusals
		unrun      []string // the fields of Verdict.Unrun
	}{
		{"rule alone", route("GRPCRoute", "matches: [{method: {service: \"a?b\"}}]"), []string{"spec.rules[0].matches[0].method"}, nil},
		{"rule after a required field", route("GRPCRoute", "matches: [{method: {service: \"a?b\"}}]\n    backendRefs: [{port: 80}]"),
			[]string{"spec.rules[0].backendRefs[0].name"}, []string{"spec.rules[0].matches[0].method"}},
		{"rule after an enum", route("HTTPRoute", "matches: [{path: {type: Exact, value: \"/a?b\"}}]\n    filters: [{type: Bogus}]"),
			[]string{"spec.rules[0].filters[0].type"}, []string{"spec.rules[0].matches[0].path"}},
		{"required field alone", route("GRPCRoute", "matches: [{method: {service: a.B}}]\n    backendRefs: [{port: 80}]"), []string{"spec.rules[0].backendRefs[0].name"}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			objs, err := manifest.Parse("in.yaml", []byte(c.yaml), manifest.Limits{})
			if err != nil {
				t.Fatal(err)
			}
			r := Validate(objs, NewCatalog(true), Options{DefaultNamespace: "default"})
			v := r.Verdict(objs[0])
			fields := func(ds []diag.Diagnostic) []string {
				var out []string
				for _, d := range ds {
					if d.Pos.Line < 1 || d.Message == "" {
						t.Errorf("finding without a position or message: %+v", d)
					}
					out = append(out, d.Field)
				}
				return out
			}
			if got := fields(v.Refusals); !slices.Equal(got, c.refusals) {
				t.Errorf("refusals at %q, want %q", got, c.refusals)
			}
			if got := fields(v.Unrun); !slices.Equal(got, c.unrun) {
				t.Errorf("unrun at %q, want %q", got, c.unrun)
			}
			if got := fields(r.Diagnostics); !slices.Equal(got, c.refusals) {
				t.Errorf("findings at %q, want the refusals' %q", got, c.refusals)
			}
		})
	}
}

// TestProjection: what a list's rules read is the projection, not the
// whole value; an unparsable rule reads everything.
func TestProjection(t *testing.T) {
	s := structuralOf(t, `{"type":"array","items":{"type":"object","properties":{"name":{"type":"string"},"matches":{"type":"array","items":{"type":"string"}},"backend":{"type":"string"}}},
		"x-kubernetes-validations":[{"rule":"self.all(l1, !has(l1.name) || self.exists_one(l2, has(l2.name) && l1.name == l2.name))"},{"rule":"(self.size() > 0 ? self[0].matches.size() : 0) <= 8"}]}`)
	p := projectionOf(s)
	if p == nil {
		t.Fatal("no projection")
	}
	key := func(v string) string {
		var x any
		if err := json.Unmarshal([]byte(v), &x); err != nil {
			t.Fatal(err)
		}
		var b bytes.Buffer
		if !p.write(&b, x) {
			t.Fatal("not written")
		}
		return b.String()
	}
	a := key(`[{"name":"a","matches":["x"],"backend":"svc-1"}]`)
	if b := key(`[{"name":"a","matches":["y"],"backend":"svc-2"}]`); a != b {
		t.Errorf("backend and match values changed the key: %q vs %q", a, b)
	}
	if b := key(`[{"name":"b","matches":["x"],"backend":"svc-1"}]`); a == b {
		t.Error("a name the rules compare did not change the key")
	}
	if b := key(`[{"name":"a","matches":["x","y"],"backend":"svc-1"}]`); a == b {
		t.Error("a length the rules read did not change the key")
	}
	bad := structuralOf(t, `{"type":"object","x-kubernetes-validations":[{"rule":"self.(("}]}`)
	if projectionOf(bad) != nil {
		t.Error("an unparsable rule has a projection")
	}
}

func structuralOf(t *testing.T, src string) *structuralschema.Structural {
	t.Helper()
	var v1 apiextensionsv1.JSONSchemaProps
	if err := json.Unmarshal([]byte(src), &v1); err != nil {
		t.Fatal(err)
	}
	var internal apiextensions.JSONSchemaProps
	if err := apiextensionsv1.Convert_v1_JSONSchemaProps_To_apiextensions_JSONSchemaProps(&v1, &internal, nil); err != nil {
		t.Fatal(err)
	}
	s, err := structuralschema.NewStructural(&internal)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// TestRulesAgreeOnTheCorpus: the same as TestRulesAgreeWithTheLibrary on
// every object of every corpus (defaulted as the stage defaults them) and
// on values made from the first object of each CRD version by changing
// one node at a time (up to 40 objects and 200 changes per version; those
// the stage would run the rules on: of the types the schema gives), so that rules fail and nodes are reached first by
// a failing value; compiling a node's rules alone must give the errors
// the whole tree's compile gives.
func TestRulesAgreeOnTheCorpus(t *testing.T) {
	library := map[*version]*cel.Validator{}
	values, failing := 0, 0
	compare := func(v *version, name string, u any) {
		if v.rules == nil {
			return
		}
		if library[v] == nil {
			library[v] = cel.NewValidator(v.structural, true, celconfig.PerCallLimit)
		}
		m, ok := u.(map[string]any)
		if !ok || blocking(apiservervalidation.ValidateCustomResource(nil, m, v.schema)) {
			return // the stage runs no rule on a value of the wrong types
		}
		values++
		lib, _ := library[v].Validate(context.Background(), nil, v.structural, m, nil, celconfig.RuntimeCELCostBudget)
		ours := v.rules.validate(context.Background(), m)
		if a, b := errorStrings(lib), errorStrings(ours); !slices.Equal(a, b) {
			t.Errorf("%s:\n library: %q\n ours:    %q", name, a, b)
		}
		if len(lib) > 0 {
			failing++
		}
	}
	// Bounded per CRD version: the library's validator runs every rule
	// on every value, with no memo.
	seen, mutated := map[*version]int{}, map[*version]bool{}
	for _, c := range fastCases(t) {
		if c.v.rules == nil || seen[c.v] >= 40 {
			continue
		}
		seen[c.v]++
		compare(c.v, c.name, c.u)
		if mutated[c.v] {
			continue
		}
		mutated[c.v] = true
		ms := mutations(c.u)
		step := max(1, len(ms)/200)
		for i := 0; i < len(ms); i += step {
			compare(c.v, c.name+", "+ms[i].what, ms[i].u)
		}
	}
	t.Logf("%d values of %d CRD versions with rules, %d of them failing a rule", values, len(seen), failing)
	if failing == 0 {
		t.Error("no value failed a rule: the comparison shows nothing")
	}
}

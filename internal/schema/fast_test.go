package schema

import (
	"fmt"
	"github.com/gwpol/gwpol/internal/benchgen"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structuralpruning "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// The corpora the fast path is held to: every YAML file of the shared
// conformance data and of the project's testdata.
var fastCorpora = []string{"../../../shared/conformance", "../../testdata"}

// fastCatalog holds the CRDs the corpora's kinds are validated against:
// Envoy Gateway's module's, kgateway's (as --crds), and the project's
// test CRDs.
func fastCatalog(t testing.TB) *Catalog {
	cat := NewCatalog(true)
	for _, dir := range []string{"../../../shared/conformance/kgateway/crds", "../../testdata/crds"} {
		files, _ := filepath.Glob(filepath.Join(dir, "*.yaml"))
		for _, f := range files {
			cat.Add(parseFile(t, f), FromFlag)
		}
	}
	return cat
}

func parseFile(t testing.TB, file string) []*manifest.Object {
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	objs, _ := manifest.Parse(file, data, manifest.Limits{})
	return objs
}

// fastCase is one value to validate with a CRD version's validators.
type fastCase struct {
	v    *version
	name string
	u    map[string]any
}

// fastCases are the corpora's objects whose CRD is known, each as written
// and as the stage validates it (unknown fields pruned, defaults applied).
func fastCases(t testing.TB) []fastCase {
	cat := fastCatalog(t)
	var out []fastCase
	for _, root := range fastCorpora {
		_ = filepath.WalkDir(root, func(path string, d os.DirEntry, err error) error {
			if err != nil || d.IsDir() || !(strings.HasSuffix(path, ".yaml") || strings.HasSuffix(path, ".yml")) {
				return nil
			}
			for _, o := range parseFile(t, path) {
				if IsCRD(o) || o.Kind == "" {
					continue
				}
				d := cat.lookup(GroupKind{o.Group, o.Kind})
				if d == nil || d.load() != nil {
					continue
				}
				v := d.versions[o.Version]
				if v == nil || !v.served || v.compile() != nil {
					continue
				}
				u, err := o.Unstructured()
				if err != nil {
					continue
				}
				name := fmt.Sprintf("%s:%d %s", path, o.Pos.Line, o.Kind)
				out = append(out, fastCase{v, name + " (as written)", deepCopy(u).(map[string]any)})
				structuralpruning.PruneWithOptions(u, v.structural, true, structuralschema.UnknownFieldPathOptions{})
				structuraldefaulting.PruneNonNullableNullsWithoutDefaults(u, v.structural)
				structuraldefaulting.Default(u, v.structural)
				out = append(out, fastCase{v, name, u})
			}
			return nil
		})
	}
	if len(out) == 0 {
		t.Skip("no corpus found")
	}
	return out
}

// libraryValid is the API server's answer.
func libraryValid(v *version, u any) bool {
	return len(apiservervalidation.ValidateCustomResource(nil, u, v.schema)) == 0
}

// TestFastAgreesWithValidator: the fast path never calls an object valid
// that the API server's schema validator finds fault with — on every
// object of every corpus, and on values made from them by changing one
// node at a time (wrong types, nulls, removed and unknown fields, empty,
// long, oversized and out-of-range values) — and it answers for most of
// the valid objects, or it would not make the stage faster.
func TestFastAgreesWithValidator(t *testing.T) {
	cases := fastCases(t)
	valid, fast := 0, 0
	for _, c := range cases {
		lib := libraryValid(c.v, c.u)
		f := c.v.fast.valid(c.u)
		if f && !lib {
			t.Errorf("%s: fast path says valid, the validator says %v", c.name, apiservervalidation.ValidateCustomResource(nil, c.u, c.v.schema))
		}
		if lib {
			valid++
			if f {
				fast++
			}
		}
	}
	t.Logf("corpus: %d values, %d valid, the fast path answers %d of them", len(cases), valid, fast)
	if valid == 0 || fast*10 < valid*9 {
		t.Errorf("the fast path answers %d of %d valid values; want at least 90%%", fast, valid)
	}

	// Mutations of a sample: the first few values of each CRD version.
	perVersion := map[*version]int{}
	limit := 4
	if testing.Short() {
		limit = 1
	}
	mutated, disagreements := 0, 0
	for _, c := range cases {
		if perVersion[c.v] >= limit {
			continue
		}
		perVersion[c.v]++
		for _, m := range mutations(c.u) {
			mutated++
			if c.v.fast.valid(m.u) && !libraryValid(c.v, m.u) {
				disagreements++
				if disagreements <= 20 {
					t.Errorf("%s, %s: fast path says valid, the validator says %v", c.name, m.what, apiservervalidation.ValidateCustomResource(nil, m.u, c.v.schema))
				}
			}
		}
	}
	t.Logf("mutations: %d values of %d CRD versions", mutated, len(perVersion))
}

type mutation struct {
	what string
	u    any
}

// mutations are copies of u each with one node changed.
func mutations(u any) []mutation {
	var out []mutation
	var walk func(path string, x any, set func(any) any)
	walk = func(path string, x any, set func(any) any) {
		add := func(what string, y any) { out = append(out, mutation{path + ": " + what, set(y)}) }
		add("null", nil)
		for _, y := range []any{"", "x", "Not A DNS Name!", strings.Repeat("a", 300), int64(0), int64(-1), int64(1 << 40), 1.5, true, []any{}, map[string]any{}} {
			add(fmt.Sprintf("%T %.12v", y, y), y)
		}
		switch x := x.(type) {
		case string:
			add("upper", strings.ToUpper(x))
			add("suffixed", x+"-x")
			add("doubled", x+x)
		case int64:
			add("+1", x+1)
			add("-1", x-1)
			add("*1000", x*1000)
		case []any:
			if len(x) > 0 {
				add("duplicated", append(append([]any{}, x...), deepCopy(x[0])))
				many := make([]any, 0, 70)
				for len(many) < 70 {
					many = append(many, deepCopy(x[len(many)%len(x)]))
				}
				add("70 items", many)
			}
			for i := range x {
				i := i
				walk(fmt.Sprintf("%s[%d]", path, i), x[i], func(y any) any {
					c := deepCopy(x).([]any)
					c[i] = y
					return set(c)
				})
			}
		case map[string]any:
			keys := make([]string, 0, len(x))
			for k := range x {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			add("unknown field", merge(x, "zzUnknown", "v"))
			for _, k := range keys {
				k := k
				c := deepCopy(x).(map[string]any)
				delete(c, k)
				add("without "+k, c)
				walk(path+"."+k, x[k], func(y any) any {
					c := deepCopy(x).(map[string]any)
					c[k] = y
					return set(c)
				})
			}
		}
	}
	walk("", u, func(y any) any { return y })
	return out
}

func merge(m map[string]any, k string, v any) map[string]any {
	c := deepCopy(m).(map[string]any)
	c[k] = v
	return c
}

func deepCopy(x any) any {
	switch x := x.(type) {
	case map[string]any:
		c := make(map[string]any, len(x))
		for k, v := range x {
			c[k] = deepCopy(v)
		}
		return c
	case []any:
		c := make([]any, len(x))
		for i, v := range x {
			c[i] = deepCopy(v)
		}
		return c
	}
	return x
}

// FuzzFastPath: on any JSON value validated as an HTTPRoute, an Envoy
// Gateway BackendTrafficPolicy or a kgateway TrafficPolicy, the fast path
// never says valid when the API server's validator does not.
func FuzzFastPath(f *testing.F) {
	cat := fastCatalog(f)
	var versions []*version
	for _, gk := range []GroupKind{{"gateway.networking.k8s.io", "HTTPRoute"}, {"gateway.envoyproxy.io", "BackendTrafficPolicy"}, {"gateway.kgateway.dev", "TrafficPolicy"}} {
		d := cat.lookup(gk)
		if d == nil || d.load() != nil {
			continue
		}
		for _, name := range d.served() {
			if v := d.versions[name]; v.compile() == nil {
				versions = append(versions, v)
			}
		}
	}
	for _, s := range []string{
		`{"apiVersion":"gateway.networking.k8s.io/v1","kind":"HTTPRoute","metadata":{"name":"a"},"spec":{"parentRefs":[{"name":"gw","port":80}],"hostnames":["a.example.com"],"rules":[{"matches":[{"path":{"type":"PathPrefix","value":"/"}}],"backendRefs":[{"name":"s","port":8080,"weight":1}]}]}}`,
		`{"spec":{"targetRefs":[{"group":"gateway.networking.k8s.io","kind":"HTTPRoute","name":"r"}],"timeout":{"http":{"requestTimeout":"10s"}},"retry":{"numRetries":3}}}`,
		`{"spec":{"rules":[{"filters":[{"type":"RequestHeaderModifier","requestHeaderModifier":{"set":[{"name":"x","value":"y"}]}}]}]}}`,
		`{"spec":{"hostnames":[""],"rules":[{"backendRefs":[{"name":"","port":70000}]}]}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		var u any
		if utiljson.Unmarshal(data, &u) != nil {
			return
		}
		for _, v := range versions {
			if v.fast.valid(u) && !libraryValid(v, u) {
				t.Fatalf("%s %s: fast path says valid, the validator says %v", v.def.Spec.Names.Kind, v.name, apiservervalidation.ValidateCustomResource(nil, u, v.schema))
			}
		}
	})
}

// TestShortcutsAgreeWithTheLibrary: decoding with the shortcuts (each
// step's library call only where the schema says it has work, the fast
// path for the schema validator) leaves the object exactly as the
// library's whole-object calls do and finds the same problems, on every
// corpus object (as written, so with unknown fields and nulls) and on
// values made from a sample of them by changing one node.
func TestShortcutsAgreeWithTheLibrary(t *testing.T) {
	cases := fastCases(t)
	perVersion := map[*version]int{}
	limit := 3
	if testing.Short() {
		limit = 1
	}
	compared := 0
	for _, c := range cases {
		values := []mutation{{"", c.u}}
		if perVersion[c.v] < limit {
			perVersion[c.v]++
			values = append(values, mutations(c.u)...)
		}
		for _, m := range values {
			u, ok := m.u.(map[string]any)
			if !ok {
				continue
			}
			a, b := deepCopy(u).(map[string]any), deepCopy(u).(map[string]any)
			lib, short := c.v.decode(a, false), c.v.decode(b, true)
			compared++
			if diff := decodedDiff(lib, short, a, b); diff != "" {
				t.Errorf("%s %s: %s", c.name, m.what, diff)
			}
		}
	}
	t.Logf("%d values compared", compared)
}

func decodedDiff(lib, short decodedObject, a, b map[string]any) string {
	if !reflect.DeepEqual(a, b) {
		return fmt.Sprintf("objects differ:\n library:   %v\n shortcuts: %v", a, b)
	}
	if !slices.Equal(lib.unknown, short.unknown) {
		return fmt.Sprintf("unknown fields: library %q, shortcuts %q", lib.unknown, short.unknown)
	}
	if (lib.coerce == nil) != (short.coerce == nil) || (lib.coerce != nil && lib.coerce.Error() != short.coerce.Error()) {
		return fmt.Sprintf("coercion: library %v, shortcuts %v", lib.coerce, short.coerce)
	}
	if lg, sg := givenPaths(lib.given), givenPaths(short.given); !slices.Equal(lg, sg) {
		return fmt.Sprintf("defaults given:\n library:   %q\n shortcuts: %q", lg, sg)
	}
	le, se := errorStrings(lib.errs), errorStrings(short.errs)
	sort.Strings(le)
	sort.Strings(se)
	if !slices.Equal(le, se) {
		return fmt.Sprintf("errors:\n library:   %q\n shortcuts: %q", le, se)
	}
	return ""
}

// givenPaths are the paths of the defaults given that lie under no other
// (the library's path records a default object whole, the shortcut its
// defaults inside one by one too), sorted.
func givenPaths(given *manifest.Defaults) []string {
	var out []string
	for _, d := range given.All() {
		p := fmt.Sprint(d.Path)
		under := false
		for _, o := range out {
			if strings.HasPrefix(p, strings.TrimSuffix(o, "]")+" ") {
				under = true
			}
		}
		if !under {
			out = append(out, p)
		}
	}
	sort.Strings(out)
	return out
}

// BenchmarkDecode: one HTTPRoute as a generated platform writes them,
// pruned, defaulted and validated (CEL aside) by the library's
// whole-object calls, and with the shortcuts and the fast path.
func BenchmarkDecode(b *testing.B) {
	const route = `apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: route-0, namespace: team-0}
spec:
  parentRefs: [{name: gw-0, namespace: infra}]
  hostnames: [r0.example.com]
  rules:
  - name: api
    matches: [{path: {type: PathPrefix, value: /api}, headers: [{name: x-tenant, value: t0}]}]
    backendRefs: [{name: svc-0-a, port: 8080}]
  - name: static
    matches: [{path: {type: Exact, value: /index.html}}]
    filters: [{type: ResponseHeaderModifier, responseHeaderModifier: {set: [{name: cache-control, value: max-age=60}]}}]
    backendRefs: [{name: svc-0-b, port: 8080}]
  - backendRefs: [{name: svc-0-a, port: 8080, weight: 80}, {name: svc-0-b, port: 8080, weight: 20}]
`
	objs, err := manifest.Parse("route.yaml", []byte(route), manifest.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	o := objs[0]
	d := NewCatalog(true).lookup(GroupKind{o.Group, o.Kind})
	if d == nil || d.load() != nil {
		b.Fatal("no HTTPRoute CRD")
	}
	v := d.versions[o.Version]
	if err := v.compile(); err != nil {
		b.Fatal(err)
	}
	for _, mode := range []struct {
		name      string
		shortcuts bool
	}{{"library", false}, {"shortcuts", true}} {
		b.Run(mode.name, func(b *testing.B) {
			b.ReportAllocs()
			for i := 0; i < b.N; i++ {
				u, err := o.Unstructured()
				if err != nil {
					b.Fatal(err)
				}
				if st := v.decode(u, mode.shortcuts); len(st.errs) > 0 || len(st.unknown) > 0 {
					b.Fatalf("%v %v", st.errs, st.unknown)
				}
			}
		})
	}
}

// BenchmarkEarly: the schema stage as a loader runs it, on every object
// of a generated 1k-route platform (kgateway and Envoy Gateway flavours);
// parsing is left out. ns/route is per route of the platform.
func BenchmarkEarly(b *testing.B) {
	const routes = 1000
	for _, fl := range benchgen.Flavours {
		b.Run(fl.Target, func(b *testing.B) {
			objs, err := manifest.Parse("platform.yaml", fl.Platform(routes), manifest.Limits{})
			if err != nil {
				b.Fatal(err)
			}
			cat := NewCatalog(true)
			opt := Options{DefaultNamespace: "default"}
			for _, o := range objs {
				Early(o, cat, opt) // compiles the validators
			}
			b.ReportAllocs()
			b.ResetTimer()
			start := cpuTime()
			for i := 0; i < b.N; i++ {
				for _, o := range objs {
					Early(o, cat, opt)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*routes), "ns/route")
			b.ReportMetric(float64((cpuTime()-start).Nanoseconds())/float64(b.N*routes), "cpu-ns/route")
		})
	}
}

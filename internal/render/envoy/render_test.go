package envoy_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	bootstrapv3 "github.com/envoyproxy/go-control-plane/envoy/config/bootstrap/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"sigs.k8s.io/yaml"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/golden"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/render/envoy"
)

const (
	renderDir   = "../../../testdata/render"
	examplesDir = "../../../testdata/examples"
	// examplesEGDir is the Envoy Gateway example platform.
	examplesEGDir = "../../../testdata/examples-envoygateway"
)

// renderGoldens are the case directories of TestGolden: every file in one
// but its input.yaml is a golden it writes.
var renderGoldens = golden.Own(goldenDirs(), []string{"input.yaml"}, "TestGolden")

// goldenDirs are the directories of the cases of goldenCases, and those
// of cases whose input is gone (directories of files only: the others
// hold the one-feature fixtures of internal/cli), whose goldens are
// orphans.
func goldenDirs() []string {
	var dirs []string
	for name := range goldenCases() {
		dirs = append(dirs, filepath.Join(renderDir, name))
	}
	all, _ := filepath.Glob(filepath.Join(renderDir, "*"))
	for _, d := range all {
		entries, err := os.ReadDir(d)
		if err != nil || slices.Contains(dirs, d) || slices.ContainsFunc(entries, fs.DirEntry.IsDir) {
			continue
		}
		dirs = append(dirs, d)
	}
	return dirs
}

// compile runs the pipeline up to the IR with gwpol's registry
// (envoy.Registry).
func compile(tb testing.TB, set *manifest.Set, cfg policy.Config) *merge.Result {
	tb.Helper()
	return envoy.Stages(envoy.Registry(), set, cfg)
}

func load(tb testing.TB, paths ...string) *manifest.Set {
	tb.Helper()
	set, err := manifest.Load(paths, manifest.Options{})
	if err != nil {
		tb.Fatal(err)
	}
	return set
}

func render(tb testing.TB, res *merge.Result, opt envoy.Options) *envoy.Output {
	tb.Helper()
	out, err := envoy.Render(res, opt)
	if err != nil {
		tb.Fatalf("render: %v", err)
	}
	return out
}

func marshal(tb testing.TB, out *envoy.Output, format string) []byte {
	tb.Helper()
	b, err := out.Marshal(format, envoy.TypeAll)
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func diagText(ds []diag.Diagnostic) string {
	var b strings.Builder
	for _, d := range ds {
		pos := strings.TrimPrefix(d.Pos.String(), "../../../")
		fmt.Fprintf(&b, "%s: %s %s: %s\n", pos, d.Severity, d.Code, d.Message)
	}
	return b.String()
}

// goldenCases are the directories under testdata/render, plus the example
// platforms.
func goldenCases() map[string][]string {
	cases := map[string][]string{"examples": {examplesDir}, "examples-envoygateway": {examplesEGDir}}
	dirs, _ := filepath.Glob(filepath.Join(renderDir, "*"))
	for _, d := range dirs {
		if in := filepath.Join(d, "input.yaml"); fileExists(in) {
			cases[filepath.Base(d)] = []string{in}
		}
	}
	return cases
}

func fileExists(p string) bool { _, err := os.Stat(p); return err == nil }

// deployedSettings are the deployment settings the render tests run with:
// Envoy Gateway's Lua extension and Backend API enabled (both off by
// default, on in the example platforms' and golden cases' deployments:
// testdata/base/eg-extensions.gwpol.yaml), and a HAPTIC
// deployment with the chart switches of every route-policy feature on
// (the chart's defaults leave the shared rate limit, the cache tier and
// self-service WAF catalogs off, and the rules using them fail closed):
// these tests are about what each target renders of a feature.
func deployedSettings() map[string]any {
	return map[string]any{"envoyGateway.extensionApis.enableLua": true, "envoyGateway.enableBackend": true,
		"haptic.rateLimit": map[string]any{"shared": map[string]any{"enabled": true}},
		"haptic.cache":     map[string]any{"varnish": map[string]any{"enabled": true}},
		"haptic.waf":       map[string]any{"policies": map[string]any{"selfService": map[string]any{"enabled": true}}}}
}

// goldenOutputs renders a case in every mode the goldens cover. The
// haptic target serves only HAProxyRoutePolicy, so it is rendered for the
// cases that have one (elsewhere it would be every other policy's GWP404).
func goldenOutputs(t *testing.T, inputs []string) map[string][]byte {
	res := compile(t, load(t, inputs...), policy.Config{Values: deployedSettings()}.WithSetting("referenceGrantMode", "Strict"))
	hasHAPTIC := slices.ContainsFunc(res.Policies.Policies, func(p *policy.Policy) bool { return p.Kind.GroupKind().Kind == "HAProxyRoutePolicy" })
	out := map[string][]byte{}
	for _, target := range envoy.Registry().TargetNames() {
		if target == "haptic" && !hasHAPTIC {
			continue
		}
		o := render(t, res, envoy.Options{Target: target, MergeKeyCompat: target == "kgateway"})
		out[target+".yaml"] = marshal(t, o, "yaml")
		if d := diagText(o.Diagnostics); d != "" {
			out[target+"-diagnostics.txt"] = []byte(d)
		}
	}
	bs, err := render(t, res, envoy.Options{Target: "kgateway"}).MarshalBootstraps("yaml")
	if err != nil {
		t.Fatal(err)
	}
	out["bootstrap-kgateway.yaml"] = bs
	return out
}

func TestGolden(t *testing.T) {
	renderGoldens.Start(t)
	for name, inputs := range goldenCases() {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(renderDir, name)
			for f, b := range goldenOutputs(t, inputs) {
				renderGoldens.Check(t, filepath.Join(dir, f), b)
			}
		})
	}
}

func firstDiff(a, b []byte) string {
	al, bl := strings.Split(string(a), "\n"), strings.Split(string(b), "\n")
	for i := range max(len(al), len(bl)) {
		var x, y string
		if i < len(al) {
			x = al[i]
		}
		if i < len(bl) {
			y = bl[i]
		}
		if x != y {
			return fmt.Sprintf("line %d:\n- %s\n+ %s", i+1, x, y)
		}
	}
	return ""
}

// TestGoldensValidate reads every golden back: each resource must decode
// into its go-control-plane type, pass ValidateAll (including the
// configuration packed in Any fields) and marshal back to the same JSON.
func TestGoldensValidate(t *testing.T) {
	files, _ := filepath.Glob(filepath.Join(renderDir, "*", "*.yaml"))
	n := 0
	for _, f := range files {
		base := filepath.Base(f)
		if base == "input.yaml" {
			continue
		}
		raw, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		if strings.HasPrefix(base, "bootstrap") {
			for i, doc := range strings.Split(string(raw), "\n---\n") {
				n += roundTrip(t, fmt.Sprintf("%s doc %d", f, i), []byte(doc), func() proto.Message { return &bootstrapv3.Bootstrap{} })
			}
			continue
		}
		js, err := yaml.YAMLToJSON(raw)
		if err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		var doc struct {
			Gateways []struct {
				Listeners           []json.RawMessage `json:"listeners"`
				RouteConfigurations []json.RawMessage `json:"routeConfigurations"`
				Clusters            []json.RawMessage `json:"clusters"`
			} `json:"gateways"`
		}
		if err := json.Unmarshal(js, &doc); err != nil {
			t.Fatalf("%s: %v", f, err)
		}
		for _, g := range doc.Gateways {
			for _, r := range g.Listeners {
				n += roundTripJSON(t, f, r, func() proto.Message { return &listenerv3.Listener{} })
			}
			for _, r := range g.RouteConfigurations {
				n += roundTripJSON(t, f, r, func() proto.Message { return &routev3.RouteConfiguration{} })
			}
			for _, r := range g.Clusters {
				n += roundTripJSON(t, f, r, func() proto.Message { return &clusterv3.Cluster{} })
			}
		}
	}
	if n == 0 {
		t.Fatal("no golden resources found; run go test -update")
	}
	t.Logf("%d resources validated and round-tripped", n)
}

func roundTrip(t *testing.T, what string, yml []byte, newMsg func() proto.Message) int {
	js, err := yaml.YAMLToJSON(yml)
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	return roundTripJSON(t, what, js, newMsg)
}

func roundTripJSON(t *testing.T, what string, js []byte, newMsg func() proto.Message) int {
	t.Helper()
	m := newMsg()
	if err := protojson.Unmarshal(js, m); err != nil {
		t.Errorf("%s: decode %T: %v", what, m, err)
		return 0
	}
	if err := validateDeep(m); err != nil {
		t.Errorf("%s: %T fails validation: %v", what, m, err)
	}
	back, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var a, b any
	_ = json.Unmarshal(js, &a)
	_ = json.Unmarshal(back, &b)
	ja, _ := json.Marshal(a)
	jb, _ := json.Marshal(b)
	if !bytes.Equal(ja, jb) {
		t.Errorf("%s: %T does not round-trip through protojson:\n%s", what, m, firstDiff(ja, jb))
	}
	return 1
}

// validateDeep is ValidateAll on m and on every message packed in an Any.
func validateDeep(m proto.Message) error {
	if v, ok := m.(interface{ ValidateAll() error }); ok {
		if err := v.ValidateAll(); err != nil {
			return err
		}
	}
	var err error
	var walk func(protoreflect.Message)
	walk = func(pm protoreflect.Message) {
		if a, ok := pm.Interface().(*anypb.Any); ok {
			if a.GetTypeUrl() == "" {
				return
			}
			inner, uerr := a.UnmarshalNew()
			if uerr != nil {
				err = uerr
				return
			}
			if verr := validateDeep(inner); verr != nil {
				err = fmt.Errorf("%s: %w", a.GetTypeUrl(), verr)
			}
			return
		}
		pm.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
			switch {
			case fd.IsMap():
				if fd.MapValue().Kind() == protoreflect.MessageKind {
					v.Map().Range(func(_ protoreflect.MapKey, mv protoreflect.Value) bool { walk(mv.Message()); return err == nil })
				}
			case fd.Kind() != protoreflect.MessageKind:
			case fd.IsList():
				for i := 0; i < v.List().Len(); i++ {
					walk(v.List().Get(i).Message())
				}
			default:
				walk(v.Message())
			}
			return err == nil
		})
	}
	walk(m.ProtoReflect())
	return err
}

// TestDeterminism renders the example platform from 20 shuffles of its
// documents: the bytes must not change.
func TestDeterminism(t *testing.T) {
	set := load(t, examplesDir)
	cfg := policy.Config{}.WithSetting("referenceGrantMode", "Strict")
	want := marshal(t, render(t, compile(t, set, cfg), envoy.Options{Target: "kgateway"}), "json")
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 20 {
		objs := slices.Clone(set.Objects)
		rng.Shuffle(len(objs), func(a, b int) { objs[a], objs[b] = objs[b], objs[a] })
		keepApplyOrder(objs, set.Objects)
		// Parse again so no state from an earlier run is shared.
		var buf bytes.Buffer
		for _, o := range objs {
			js, err := o.JSON()
			if err != nil {
				t.Fatal(err)
			}
			buf.WriteString("---\n")
			buf.Write(js)
			buf.WriteString("\n")
		}
		parsed, err := manifest.Parse("shuffled.yaml", buf.Bytes(), manifest.Limits{})
		if err != nil {
			t.Fatal(err)
		}
		got := marshal(t, render(t, compile(t, &manifest.Set{Objects: parsed}, cfg), envoy.Options{Target: "kgateway"}), "json")
		if !bytes.Equal(want, got) {
			t.Fatalf("shuffle %d changed the output:\n%s", i, firstDiff(want, got))
		}
	}
}

// keepApplyOrder puts the documents that define one object back in their
// input order within the places the shuffle gave them: of two different
// definitions the one applied last wins, so their order is input, not
// noise.
func keepApplyOrder(objs, original []*manifest.Object) {
	type key struct{ group, kind, ns, name string }
	k := func(o *manifest.Object) key { return key{o.Group, o.Kind, o.Namespace, o.Name} }
	rank := map[*manifest.Object]int{}
	for i, o := range original {
		rank[o] = i
	}
	places := map[key][]int{}
	for i, o := range objs {
		places[k(o)] = append(places[k(o)], i)
	}
	for _, at := range places {
		group := make([]*manifest.Object, len(at))
		for i, p := range at {
			group[i] = objs[p]
		}
		slices.SortFunc(group, func(a, b *manifest.Object) int { return rank[a] - rank[b] })
		for i, p := range at {
			objs[p] = group[i]
		}
	}
}

func TestRenderOptions(t *testing.T) {
	res := compile(t, load(t, examplesDir), policy.Config{})
	if _, err := envoy.Render(res, envoy.Options{Target: "nginx"}); diag.KindOf(err) != diag.Usage {
		t.Errorf("unknown target: got %v, want a usage error", err)
	}
	if _, err := envoy.Render(res, envoy.Options{Gateways: []string{"infra/nope"}}); diag.KindOf(err) != diag.NotFound {
		t.Errorf("unknown gateway: got %v, want not_found", err)
	}
	out := render(t, res, envoy.Options{Gateways: []string{"infra/public"}})
	if len(out.Gateways) != 1 || out.Gateways[0].Name != "public" {
		t.Fatalf("--gateway infra/public rendered %d gateways", len(out.Gateways))
	}
	b, err := out.Marshal("json", envoy.TypeCluster)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string][]map[string]json.RawMessage
	if err := json.Unmarshal(b, &doc); err != nil {
		t.Fatal(err)
	}
	g := doc["gateways"][0]
	if _, ok := g["clusters"]; !ok || g["listeners"] != nil || g["routeConfigurations"] != nil {
		t.Errorf("--type cluster wrote keys %v", slices.Sorted(mapKeys(g)))
	}
}

func mapKeys[K comparable, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

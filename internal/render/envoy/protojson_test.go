package envoy

import (
	"bytes"
	"encoding/json"
	"math"
	"path/filepath"
	"strings"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/policy/haptic"
	"github.com/gwpol/gwpol/internal/policy/trafficpolicy"
	"github.com/gwpol/gwpol/internal/topology"
)

// protojsonText is what the writer must reproduce: protojson with proto
// names, indented by json.Indent at depth (or compacted).
func protojsonText(t *testing.T, m proto.Message, indent bool, depth int) (string, error) {
	t.Helper()
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		return "", err
	}
	var b bytes.Buffer
	if indent {
		err = json.Indent(&b, raw, strings.Repeat("  ", depth), "  ")
	} else {
		err = json.Compact(&b, raw)
	}
	return b.String(), err
}

func writerText(m proto.Message, indent bool, depth int) (string, error) {
	w := jsonWriter{indent: indent, depth: depth}
	err := w.message(m.ProtoReflect())
	return string(w.buf), err
}

func assertSameAsProtojson(t *testing.T, name string, m proto.Message) {
	t.Helper()
	for _, indent := range []bool{true, false} {
		for _, depth := range []int{0, 3} {
			want, werr := protojsonText(t, m, indent, depth)
			got, gerr := writerText(m, indent, depth)
			if (werr != nil) != (gerr != nil) {
				t.Errorf("%s (indent %v): protojson error %v, writer error %v", name, indent, werr, gerr)
				continue
			}
			if werr == nil && got != want {
				t.Errorf("%s (indent %v, depth %d): writer output differs from protojson\n got: %s\nwant: %s", name, indent, depth, got, want)
			}
		}
	}
}

// TestWriterMatchesProtojsonOnRenders checks the writer against protojson
// on every resource rendered from the repository's fixtures, for both
// targets.
func TestWriterMatchesProtojsonOnRenders(t *testing.T) {
	inputs, _ := filepath.Glob("../../../testdata/render/*/input.yaml")
	haptic, _ := filepath.Glob("../../../testdata/haptic/*/input.yaml")
	inputs = append(append(inputs, haptic...), "../../../testdata/examples")
	platform, err := manifest.Parse("platform.yaml", benchgen.Platform(40), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	sets := []*manifest.Set{{Objects: platform}}
	for _, in := range inputs {
		set, err := manifest.Load([]string{in}, manifest.Options{})
		if err != nil {
			t.Fatalf("%s: %v", in, err)
		}
		sets = append(sets, set)
	}
	n := 0
	for i, set := range sets {
		dir := "platform"
		if i > 0 {
			dir = inputs[i-1]
		}
		res := compileForTest(set)
		for _, target := range TargetNames() {
			out, err := Render(res, Options{Target: target})
			if err != nil {
				t.Fatalf("%s: %v", dir, err)
			}
			for _, g := range out.Gateways {
				for _, l := range g.Listeners {
					assertSameAsProtojson(t, dir+" "+l.Name, l)
					n++
				}
				for _, rc := range g.RouteConfigurations {
					assertSameAsProtojson(t, dir+" "+rc.Name, rc)
					n++
				}
				for _, c := range g.Clusters {
					assertSameAsProtojson(t, dir+" "+c.Name, c)
					n++
				}
				if bs, err := g.Bootstrap(); err == nil {
					assertSameAsProtojson(t, dir+" bootstrap", bs)
				}
			}
		}
	}
	if n < 150 {
		t.Fatalf("only %d resources compared; fixtures missing?", n)
	}
}

func compileForTest(set *manifest.Set) *merge.Result {
	cfg := policy.Config{ReferenceGrantMode: "Strict"}
	reg := policy.NewRegistry(trafficpolicy.New(), trafficpolicy.NewListenerPolicy(), haptic.New())
	m := model.Build(set, model.Options{Extra: reg.GroupKinds()})
	g := topology.Build(m, topology.Options{BackendKinds: reg.BackendKinds()})
	pols := reg.Decode(&policy.Env{Model: m, Config: cfg})
	return merge.Compute(g, reg, pols, attach.Attach(g, reg, pols, cfg), cfg)
}

func mustAnyT(t *testing.T, m proto.Message) *anypb.Any {
	t.Helper()
	a, err := anypb.New(m)
	if err != nil {
		t.Fatal(err)
	}
	return a
}

// TestWriterMatchesProtojsonOnEdgeCases covers what the renders do not:
// every well-known type, number formats, escapes and the errors.
func TestWriterMatchesProtojsonOnEdgeCases(t *testing.T) {
	st, _ := structpb.NewStruct(map[string]any{
		"float": 0.1, "big": 1e21, "small": 1e-7, "neg": -2.5, "int": 3.0, "null": nil, "bool": true,
		"list": []any{"a", 1.0, map[string]any{}, []any{}}, "nested": map[string]any{"z": "last", "a": "first"},
		"escapes": "quote\" backslash\\ nl\n tab\t cr\r ctl\x01 del\x7f html<>& unicode é \u2028",
	})
	cases := map[string]proto.Message{
		"struct":              st,
		"empty struct":        &structpb.Struct{},
		"value null":          structpb.NewNullValue(),
		"list value":          &structpb.ListValue{Values: []*structpb.Value{structpb.NewBoolValue(false)}},
		"nan value":           structpb.NewNumberValue(math.NaN()),
		"unset value":         &structpb.Value{},
		"duration":            durationpb.New(1500 * 1e6),
		"duration nanos":      &durationpb.Duration{Seconds: 1, Nanos: 1},
		"duration micros":     &durationpb.Duration{Nanos: 1000},
		"negative duration":   &durationpb.Duration{Seconds: -3, Nanos: -200000000},
		"bad duration":        &durationpb.Duration{Seconds: 1, Nanos: -1},
		"huge duration":       &durationpb.Duration{Seconds: 1 << 50},
		"timestamp":           &timestamppb.Timestamp{Seconds: 1700000000, Nanos: 120000000},
		"timestamp zero":      &timestamppb.Timestamp{},
		"bad timestamp":       &timestamppb.Timestamp{Seconds: -1 << 40},
		"wrappers":            &routev3.RetryPolicy{NumRetries: wrapperspb.UInt32(3)},
		"uint64 wrapper":      wrapperspb.UInt64(1 << 60),
		"int64 wrapper":       wrapperspb.Int64(-5),
		"float wrapper":       wrapperspb.Float(0.3),
		"double wrapper inf":  wrapperspb.Double(math.Inf(1)),
		"bytes wrapper":       wrapperspb.Bytes([]byte{0, 1, 2, 0xff}),
		"string wrapper":      wrapperspb.String("x"),
		"bad utf8":            wrapperspb.String("\xff"),
		"empty":               &emptypb.Empty{},
		"field mask":          &fieldmaskpb.FieldMask{Paths: []string{"a_b.c", "d"}},
		"bad field mask":      &fieldmaskpb.FieldMask{Paths: []string{"aB"}},
		"any of duration":     mustAnyT(t, durationpb.New(2e9)),
		"any of struct":       mustAnyT(t, st),
		"any of message":      mustAnyT(t, &routev3.Route{Name: "r"}),
		"empty any":           &anypb.Any{},
		"any without type":    &anypb.Any{Value: []byte{1}},
		"unresolvable any":    &anypb.Any{TypeUrl: "type.googleapis.com/no.Such"},
		"enum":                &routev3.RouteAction{ClusterNotFoundResponseCode: routev3.RouteAction_NOT_FOUND},
		"enum without a name": &routev3.RouteAction{ClusterNotFoundResponseCode: 77},
		"metadata map":        &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"b": st, "a": {}}},
		"oneof and lists": &routev3.VirtualHost{Name: "v", Domains: []string{"a", "b"}, Routes: []*routev3.Route{
			{Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}}, Name: "first-set-last"},
		}},
	}
	for name, m := range cases {
		assertSameAsProtojson(t, name, m)
	}
}

// TestStreamedDocumentMatchesResources checks the wave machinery on a
// platform large enough for many waves and for virtual hosts spliced
// into their RouteConfiguration across waves: the streamed document holds
// exactly every resource, in order, as protojson reads it.
func TestStreamedDocumentMatchesResources(t *testing.T) {
	objs, err := manifest.Parse("platform.yaml", benchgen.Platform(600), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	out, err := Render(compileForTest(&manifest.Set{Objects: objs}), Options{Target: "kgateway"})
	if err != nil {
		t.Fatal(err)
	}
	units := 0
	for _, g := range out.Gateways {
		units += len(g.Listeners) + len(g.Clusters)
		for _, rc := range g.RouteConfigurations {
			units += 1 + len(rc.VirtualHosts)
		}
	}
	if units < 3*unitsPerWave {
		t.Fatalf("%d units make fewer than 3 waves of %d", units, unitsPerWave)
	}
	var streamed bytes.Buffer
	if err := out.WriteJSON(&streamed, TypeAll); err != nil {
		t.Fatal(err)
	}
	var got any
	if err := json.Unmarshal(streamed.Bytes(), &got); err != nil {
		t.Fatalf("streamed document is not JSON: %v", err)
	}
	asJSON := func(m proto.Message) any {
		raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		var v any
		if err := json.Unmarshal(raw, &v); err != nil {
			t.Fatal(err)
		}
		return v
	}
	var gws []any
	for _, g := range out.Gateways {
		var ls, rcs, cs []any
		for _, l := range g.Listeners {
			ls = append(ls, asJSON(l))
		}
		for _, rc := range g.RouteConfigurations {
			rcs = append(rcs, asJSON(rc))
		}
		for _, c := range g.Clusters {
			cs = append(cs, asJSON(c))
		}
		gws = append(gws, map[string]any{
			"gateway":   map[string]any{"namespace": g.Namespace, "name": g.Name},
			"listeners": ls, "routeConfigurations": rcs, "clusters": cs,
		})
	}
	if diff := cmp.Diff(map[string]any{"gateways": gws}, got); diff != "" {
		t.Errorf("streamed document differs from its resources (-want +got):\n%s", diff)
	}
}

package envoy

import (
	"maps"
	"math"
	"strings"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/reflect/protoregistry"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/benchgen"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/render/xdsjson"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

// TestTypedWritersAreCurrent fails when go-control-plane has moved under
// the generated writers: a type whose fields are not those the generator
// saw would have a field written by no one. `go generate
// ./internal/render/envoy` brings them up to date.
func TestTypedWritersAreCurrent(t *testing.T) {
	if len(typedFields) < 100 {
		t.Fatalf("only %d generated types", len(typedFields))
	}
	for name, fields := range typedFields {
		mt, err := protoregistry.GlobalTypes.FindMessageByName(name)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		fds := mt.Descriptor().Fields()
		var now []string
		for i := range fds.Len() {
			now = append(now, string(fds.Get(i).Name()))
		}
		if got := strings.Join(now, " "); got != fields {
			t.Errorf("%s has fields %q, its generated writer %q: run go generate ./internal/render/envoy", name, got, fields)
		}
	}
}

// TestTypedWritersOnShapes covers shapes no render makes: nil members of
// lists, maps and oneofs, a typed nil oneof wrapper, negative zero, a
// string that is not UTF-8, an Any of a generated type, the skipped
// field, and the Anys reached through each.
func TestTypedWritersOnShapes(t *testing.T) {
	route := &routev3.Route{Name: "r", Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: "/"}}}
	cases := map[string]proto.Message{
		"nil route in a list":    &routev3.VirtualHost{Name: "v", Routes: []*routev3.Route{nil, route}},
		"nil oneof message":      &routev3.Route{Action: &routev3.Route_Route{}},
		"typed nil oneof":        &routev3.Route{Action: (*routev3.Route_Route)(nil), Name: "x"},
		"nil map value":          &routev3.Route{TypedPerFilterConfig: map[string]*anypb.Any{"b": nil, "a": mustAny(route)}},
		"empty oneof string":     &routev3.RouteAction{ClusterSpecifier: &routev3.RouteAction_Cluster{}},
		"negative zero":          &clusterv3.Cluster{Name: "c", LbConfig: &clusterv3.Cluster_LeastRequestLbConfig_{LeastRequestLbConfig: &clusterv3.Cluster_LeastRequestLbConfig{}}, CommonLbConfig: &clusterv3.Cluster_CommonLbConfig{HealthyPanicThreshold: &typev3.Percent{Value: math.Copysign(0, -1)}}, ConnectTimeout: durationpb.New(0)},
		"bad utf8":               &routev3.Route{Name: "ok", Decorator: &routev3.Decorator{Operation: "\xff"}},
		"bad utf8 key":           &routev3.Route{TypedPerFilterConfig: map[string]*anypb.Any{"\xff": {}}},
		"any of a generated one": &routev3.Route{TypedPerFilterConfig: map[string]*anypb.Any{"f": mustAny(&routev3.RouteConfiguration{Name: "inner", VirtualHosts: []*routev3.VirtualHost{{Name: "v"}}})}},
		"enum without a name":    &routev3.RouteAction{ClusterNotFoundResponseCode: 77, Timeout: durationpb.New(-1)},
		"wrappers and metadata": &routev3.Route{Metadata: &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"m": {}}},
			Action: &routev3.Route_Route{Route: &routev3.RouteAction{RetryPolicy: &routev3.RetryPolicy{NumRetries: wrapperspb.UInt32(0)}}}},
		"endpoints": &endpointv3.ClusterLoadAssignment{ClusterName: "c", Endpoints: []*endpointv3.LocalityLbEndpoints{{LoadBalancingWeight: wrapperspb.UInt32(1),
			LbEndpoints: []*endpointv3.LbEndpoint{{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{Hostname: "h"}}}}}}},
		"listener": &listenerv3.Listener{Name: "l", FilterChains: []*listenerv3.FilterChain{{Filters: []*listenerv3.Filter{{Name: "f",
			ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(route)}}}}}},
	}
	for name, m := range cases {
		assertTypedSame(t, name, m)
	}
	// The skipped field (a RouteConfiguration's virtual hosts, written as
	// units of their own): where it would have been and the rest, alike.
	rc := &routev3.RouteConfiguration{Name: "rc", VirtualHosts: []*routev3.VirtualHost{{Name: "v"}}, ValidateClusters: wrapperspb.Bool(true)}
	for _, typed := range []xdsjson.Typed{nil, writeTyped} {
		w := xdsjson.Writer{Indent: true, Depth: 4, Skip: vhostsField, HoleAt: -1, Typed: typed}
		if err := w.Message(rc.ProtoReflect()); err != nil {
			t.Fatal(err)
		}
		if w.HoleAt < 0 || w.Hole != 1 {
			t.Errorf("typed %v: hole %d at %d", typed != nil, w.Hole, w.HoleAt)
		}
	}
}

// FuzzTypedWriter is the differential fuzz test of the generated writers
// and Any walks: any resource protobuf decodes from the input is written
// byte for byte as the reflective writer and protojson write it (or all
// refuse it), and walked to the same Anys as reflection walks it.
func FuzzTypedWriter(f *testing.F) {
	types := []func() proto.Message{
		func() proto.Message { return &routev3.RouteConfiguration{} },
		func() proto.Message { return &clusterv3.Cluster{} },
		func() proto.Message { return &listenerv3.Listener{} },
		func() proto.Message { return &endpointv3.ClusterLoadAssignment{} },
		func() proto.Message { return &routev3.Route{} },
	}
	platform, err := manifest.Parse("platform.yaml", benchgen.Platform(3), manifest.Limits{})
	if err != nil {
		f.Fatal(err)
	}
	out, err := Render(compileForTest(&manifest.Set{Objects: platform}), Options{})
	if err != nil {
		f.Fatal(err)
	}
	seed := func(kind byte, m proto.Message) {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{kind}, b...))
	}
	for _, g := range out.Gateways[:1] {
		for _, rc := range g.RouteConfigurations {
			seed(0, rc)
		}
		for _, c := range g.Clusters {
			seed(1, c)
		}
		for _, l := range g.Listeners {
			seed(2, l)
		}
	}
	seed(4, &routev3.Route{Name: "r", TypedPerFilterConfig: map[string]*anypb.Any{"f": mustAny(&routev3.Route{Name: "inner"})}})
	// Each type filled as TestTypedWritersOnEveryType fills it, every
	// field set down to three levels, in each style: shapes no render
	// makes (each oneof member, NaN and -0 floats, enum numbers without a
	// name, escaped map keys, Anys of unknown types) for the fuzzer to
	// mutate from, as random bytes rarely build one.
	for kind, newMsg := range types {
		for style := range fillStyles {
			for v := range 2 {
				m := newMsg()
				(&filler{variant: v, style: style}).message(m.ProtoReflect(), 0)
				seed(byte(kind), m)
			}
		}
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		m := types[int(data[0])%len(types)]()
		if proto.Unmarshal(data[1:], m) != nil {
			return
		}
		xdsjsontest.AssertTypedSameAsReflective(t, "fuzz", m, writeTyped)
		if typed, reflected := anysWalked(t, m, eachAny), anysWalked(t, m, eachAnyReflect); !maps.Equal(typed, reflected) {
			t.Errorf("the generated walk reached %d Anys, reflection %d", len(typed), len(reflected))
		}
	})
}

// BenchmarkTypedWriter writes every resource of the rendered 1k platform
// (kgateway target), indented, with the generated writers and with the
// reflective writer they stand in for; BenchmarkEachAny walks them for
// their Anys both ways.
func BenchmarkTypedWriter(b *testing.B) {
	msgs := benchResources(b)
	for _, c := range []struct {
		name  string
		typed xdsjson.Typed
	}{{"typed", writeTyped}, {"reflective", nil}} {
		b.Run(c.name, func(b *testing.B) {
			w := &xdsjson.Writer{Indent: true, Typed: c.typed}
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range msgs {
					w.Buf = w.Buf[:0]
					if err := w.Message(m.ProtoReflect()); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func BenchmarkEachAny(b *testing.B) {
	msgs := benchResources(b)
	nop := func(*anypb.Any) error { return nil }
	for _, c := range []struct {
		name string
		walk func(protoreflect.Message, func(*anypb.Any) error) error
	}{{"typed", eachAny}, {"reflective", eachAnyReflect}} {
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				for _, m := range msgs {
					if err := c.walk(m.ProtoReflect(), nop); err != nil {
						b.Fatal(err)
					}
				}
			}
		})
	}
}

func benchResources(b *testing.B) []proto.Message {
	objs, err := manifest.Parse("platform.yaml", benchgen.Platform(1000), manifest.Limits{})
	if err != nil {
		b.Fatal(err)
	}
	out, err := Render(compileForTest(&manifest.Set{Objects: objs}), Options{Target: "kgateway"})
	if err != nil {
		b.Fatal(err)
	}
	var msgs []proto.Message
	for _, g := range out.Gateways {
		for _, l := range g.Listeners {
			msgs = append(msgs, l)
		}
		for _, rc := range g.RouteConfigurations {
			msgs = append(msgs, rc)
		}
		for _, c := range g.Clusters {
			msgs = append(msgs, c)
		}
	}
	return msgs
}

package xdsjson_test

import (
	"math"
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/emptypb"
	"google.golang.org/protobuf/types/known/fieldmaskpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/timestamppb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

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
		"any of duration":     mustAny(t, durationpb.New(2e9)),
		"any of struct":       mustAny(t, st),
		"any of message":      mustAny(t, &routev3.Route{Name: "r"}),
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
		xdsjsontest.AssertSameAsProtojson(t, name, m)
	}
}

// fuzzTypes are the messages FuzzWriter decodes its input as: the Envoy
// resources gwpol writes, and the well-known types with their own JSON.
var fuzzTypes = []func() proto.Message{
	func() proto.Message { return &routev3.RouteConfiguration{} },
	func() proto.Message { return &clusterv3.Cluster{} },
	func() proto.Message { return &listenerv3.Listener{} },
	func() proto.Message { return &hcmv3.HttpConnectionManager{} },
	func() proto.Message { return &corev3.Metadata{} },
	func() proto.Message { return &anypb.Any{} },
	func() proto.Message { return &structpb.Struct{} },
	func() proto.Message { return &structpb.Value{} },
	func() proto.Message { return &durationpb.Duration{} },
	func() proto.Message { return &timestamppb.Timestamp{} },
	func() proto.Message { return &fieldmaskpb.FieldMask{} },
}

// FuzzWriter is the differential fuzz test against the library the writer
// stands in for: any message protobuf decodes from the input is written
// exactly as protojson + json.Indent write it, or both refuse it.
func FuzzWriter(f *testing.F) {
	seed := func(kind byte, m proto.Message) {
		b, err := proto.Marshal(m)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(append([]byte{kind}, b...))
	}
	st, _ := structpb.NewStruct(map[string]any{"a": 1.5, "b": []any{"x", nil, true}, "c": map[string]any{"d": "\u2028"}})
	seed(0, &routev3.RouteConfiguration{Name: "rc", VirtualHosts: []*routev3.VirtualHost{{Name: "v", Domains: []string{"*"},
		TypedPerFilterConfig: map[string]*anypb.Any{"f": mustAny(f, &routev3.Route{Name: "r"})}}}})
	seed(1, &clusterv3.Cluster{Name: "c", ConnectTimeout: durationpb.New(5e9)})
	seed(4, &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"merge": st}})
	seed(5, mustAny(f, st))
	seed(6, st)
	f.Fuzz(func(t *testing.T, data []byte) {
		if len(data) == 0 {
			return
		}
		m := fuzzTypes[int(data[0])%len(fuzzTypes)]()
		if proto.Unmarshal(data[1:], m) != nil {
			return // not a message of that type: protobuf's concern
		}
		xdsjsontest.AssertSameAsProtojson(t, "fuzz", m)
	})
}

func mustAny(tb testing.TB, m proto.Message) *anypb.Any {
	tb.Helper()
	a, err := anypb.New(m)
	if err != nil {
		tb.Fatal(err)
	}
	return a
}

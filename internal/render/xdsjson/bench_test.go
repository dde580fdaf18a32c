package xdsjson_test

import (
	"bytes"
	"fmt"
	"io"
	"testing"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	"sigs.k8s.io/yaml"

	"github.com/gwpol/gwpol/internal/render/xdsjson"
	"github.com/gwpol/gwpol/internal/render/xdsjson/xdsjsontest"
)

// benchRoutes is a RouteConfiguration shaped like a rendered platform's:
// n routes, each with merge metadata and per-filter configs (Anys) that
// recur across routes, as policies attached at a gateway do.
func benchRoutes(b *testing.B, n int) *routev3.RouteConfiguration {
	b.Helper()
	meta, err := structpb.NewStruct(map[string]any{"fields": map[string]any{"timeouts.request": "TrafficPolicy shop/slow", "retry.attempts": "TrafficPolicy infra/defaults"}})
	if err != nil {
		b.Fatal(err)
	}
	retry := mustAny(b, &routev3.RetryPolicy{NumRetries: wrapperspb.UInt32(3), PerTryTimeout: durationpb.New(2e9), RetryOn: "5xx,reset"})
	vh := &routev3.VirtualHost{Name: "shop", Domains: []string{"shop.example.com"}}
	for i := range n {
		vh.Routes = append(vh.Routes, &routev3.Route{
			Name:  fmt.Sprintf("route-%d", i),
			Match: &routev3.RouteMatch{PathSpecifier: &routev3.RouteMatch_Prefix{Prefix: fmt.Sprintf("/api/%d", i)}},
			Action: &routev3.Route_Route{Route: &routev3.RouteAction{
				ClusterSpecifier: &routev3.RouteAction_Cluster{Cluster: fmt.Sprintf("kube_shop_svc-%d_8080", i%50)},
				Timeout:          durationpb.New(15e9),
			}},
			TypedPerFilterConfig: map[string]*anypb.Any{"envoy.filters.http.retry": retry},
			Metadata:             &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{"merge.gateway.kgateway.dev/TrafficPolicy": meta}},
		})
	}
	return &routev3.RouteConfiguration{Name: "listener~80", VirtualHosts: []*routev3.VirtualHost{vh}}
}

// BenchmarkWriter and BenchmarkProtojson write the same 1,000-route
// configuration, indented: the hand-written writer against the library
// it reproduces byte for byte (protojson, then json.Indent).
func BenchmarkWriter(b *testing.B) {
	rc := benchRoutes(b, 1000)
	w := &xdsjson.Writer{Indent: true}
	b.ReportAllocs()
	for b.Loop() {
		w.Buf = w.Buf[:0]
		if err := w.Message(rc.ProtoReflect()); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(w.Buf)))
}

func BenchmarkProtojson(b *testing.B) {
	rc := benchRoutes(b, 1000)
	b.ReportAllocs()
	var out string
	for b.Loop() {
		var err error
		if out, err = xdsjsontest.Protojson(rc, true, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.SetBytes(int64(len(out)))
}

// BenchmarkToYAML and BenchmarkLibraryJSONToYAML turn the same document
// into YAML: the streaming transcoder against sigs.k8s.io/yaml, which
// goes through generic maps (and sorts every key).
func BenchmarkToYAML(b *testing.B) {
	js := benchJSON(b)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if err := xdsjson.ToYAML(io.Discard, bytes.NewReader(js)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkLibraryJSONToYAML(b *testing.B) {
	js := benchJSON(b)
	b.SetBytes(int64(len(js)))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := yaml.JSONToYAML(js); err != nil {
			b.Fatal(err)
		}
	}
}

func benchJSON(b *testing.B) []byte {
	w := &xdsjson.Writer{}
	if err := w.Message(benchRoutes(b, 1000).ProtoReflect()); err != nil {
		b.Fatal(err)
	}
	return w.Buf
}

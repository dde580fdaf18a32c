package envoygateway

import (
	"fmt"
	"strings"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	brotliv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/brotli/compressor/v3"
	gzipv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/gzip/compressor/v3"
	zstdv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/zstd/compressor/v3"
	commonfaultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/common/fault/v3"
	compressorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/compressor/v3"
	faultv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/fault/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// compressorLibraries are the compression libraries Envoy Gateway
// offers, by spec type: the library extension's name and its message.
var compressorLibraries = map[string]struct {
	name string
	msg  func() proto.Message
}{
	"Brotli": {"envoy.compression.brotli.compressor", func() proto.Message { return &brotliv3.Brotli{} }},
	"Gzip":   {"envoy.compression.gzip.compressor", func() proto.Message { return &gzipv3.Gzip{} }},
	"Zstd":   {"envoy.compression.zstd.compressor", func() proto.Message { return &zstdv3.Zstd{} }},
}

// renderCompressor is Envoy Gateway's response compression: per type a
// compressor filter in the chain, envoy.filters.http.compressor.<type>
// (the first in the list chosen first when a client accepts several),
// enabled on the route by a CompressorPerRoute, and the route removes the
// request's accept-encoding so that the backend does not compress too.
//
// In spec.compressor an entry counts only when it also holds its type's
// own object (`brotli: {}` for Brotli…): `brotli: null`, or no brotli at
// all, turns that compressor off, and a list whose entries are all off
// compresses nothing (Envoy Gateway's buildCompression; chooseFirst stays
// with the list's first entry, on or off). The deprecated spec.compression
// has no such objects: each entry is on.
// Library options (brotli quality, gzip level…) are not rendered yet: a
// value that sets them is unsupported.
func renderCompressor(v []*egv1a1.Compression, who policyName) ([]policy.Fragment, error) {
	return compressorFragments(v, who.at, true)
}

// renderCompression is the deprecated spec.compression (renderCompressor).
func renderCompression(v []*egv1a1.Compression, who policyName) ([]policy.Fragment, error) {
	return compressorFragments(v, who.at, false)
}

// compressorFragments renders a compressor list; switched: an entry is on
// only with its type's object (spec.compressor, see renderCompressor).
func compressorFragments(cs []*egv1a1.Compression, at writtenAt, switched bool) ([]policy.Fragment, error) {
	var frags []policy.Fragment
	for i, c := range cs {
		if c == nil {
			c = &egv1a1.Compression{}
		}
		lib, ok := compressorLibraries[string(c.Type)]
		if !ok {
			return nil, fmt.Errorf("compressor[%d].type: unknown compressor %q", i, c.Type)
		}
		own := map[string]bool{"Brotli": c.Brotli != nil, "Gzip": c.Gzip != nil, "Zstd": c.Zstd != nil}[string(c.Type)]
		if switched && !own {
			continue
		}
		for key, opts := range map[string]any{"brotli": c.Brotli, "gzip": c.Gzip, "zstd": c.Zstd} {
			if unrenderedFields(at.index(i).field(key), opts) != "" {
				return []policy.Fragment{{Capability: "envoygateway.BackendTrafficPolicy.compressor." + strings.ToLower(string(c.Type)) + "-options"}}, nil
			}
		}
		libAny, err := anypb.New(lib.msg())
		if err != nil {
			return nil, err
		}
		filter := &compressorv3.Compressor{CompressorLibrary: &corev3.TypedExtensionConfig{Name: lib.name, TypedConfig: libAny}, ChooseFirst: i == 0}
		if q := c.MinContentLength; q != nil {
			filter.ResponseDirectionConfig = &compressorv3.Compressor_ResponseDirectionConfig{CommonConfig: &compressorv3.Compressor_CommonDirectionConfig{
				MinContentLength: wrapperspb.UInt32(uint32(q.Value()))}}
		}
		name := "envoy.filters.http.compressor." + strings.ToLower(string(c.Type))
		frags = append(frags, policy.Fragment{
			Capability: "compressor",
			Filter:     &policy.HTTPFilter{Name: name, Order: orderCompressor, Typed: filter},
			TypedPerFilterConfig: map[string]proto.Message{name: &compressorv3.CompressorPerRoute{Override: &compressorv3.CompressorPerRoute_Overrides{
				Overrides: &compressorv3.CompressorOverrides{ResponseDirectionConfig: &compressorv3.ResponseDirectionOverrides{}}}}},
		})
	}
	if len(frags) == 0 {
		return nil, nil
	}
	return append([]policy.Fragment{{Capability: "compressor", TypedRoute: &routev3.Route{RequestHeadersToRemove: []string{"accept-encoding"}}}}, frags...), nil
}

// renderHTTPUpgrade is the route's upgrade configs: the listed protocols
// instead of Envoy Gateway's default (WebSocket); a CONNECT that
// terminates gets a connect config.
func renderHTTPUpgrade(us []*egv1a1.ProtocolUpgradeConfig, _ policyName) ([]policy.Fragment, error) {
	ra := &routev3.RouteAction{}
	for _, u := range us {
		if u == nil {
			continue
		}
		uc := &routev3.RouteAction_UpgradeConfig{UpgradeType: u.Type}
		if u.Connect != nil && u.Connect.Terminate != nil && *u.Connect.Terminate {
			uc.ConnectConfig = &routev3.RouteAction_UpgradeConfig_ConnectConfig{}
		}
		ra.UpgradeConfigs = append(ra.UpgradeConfigs, uc)
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: ra}}, nil
}

// percent100 is a runtime fraction of 100 %.
func percent100() *corev3.RuntimeFractionalPercent {
	return &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{Numerator: 100}}
}

func deref[S ~string](s *S) string {
	if s == nil {
		return ""
	}
	return string(*s)
}

// faultFilter is Envoy's fault injection filter, which Envoy Gateway
// adds once per listener and configures per route.
const faultFilter = "envoy.filters.http.fault"

// renderFaultInjection is an HTTPFault on the route: the delay and the
// abort (HTTP or gRPC status), each for its percentage of requests in
// millionths (all requests when no percentage is given).
func renderFaultInjection(f *egv1a1.FaultInjection, _ policyName) ([]policy.Fragment, error) {
	if f == nil {
		f = &egv1a1.FaultInjection{}
	}
	cfg := &faultv3.HTTPFault{}
	if d := f.Delay; d != nil {
		dur, err := time.ParseDuration(deref(d.FixedDelay))
		if err != nil {
			return nil, fmt.Errorf("faultInjection.delay.fixedDelay: %w", err)
		}
		cfg.Delay = &commonfaultv3.FaultDelay{
			FaultDelaySecifier: &commonfaultv3.FaultDelay_FixedDelay{FixedDelay: durationpb.New(dur)},
			Percentage:         millionths(d.Percentage),
		}
	}
	if a := f.Abort; a != nil {
		cfg.Abort = &faultv3.FaultAbort{Percentage: millionths(a.Percentage)}
		switch {
		case a.HTTPStatus != nil && *a.HTTPStatus >= 0:
			cfg.Abort.ErrorType = &faultv3.FaultAbort_HttpStatus{HttpStatus: uint32(*a.HTTPStatus)}
		case a.GrpcStatus != nil && *a.GrpcStatus >= 0:
			cfg.Abort.ErrorType = &faultv3.FaultAbort_GrpcStatus{GrpcStatus: uint32(*a.GrpcStatus)}
		default:
			return nil, fmt.Errorf("faultInjection.abort: neither httpStatus nor grpcStatus")
		}
	}
	return []policy.Fragment{{
		Capability: "fault",
		// On in the chain, as Envoy Gateway leaves it: without faults of
		// its own it injects nothing but where a route's config says.
		Filter:               &policy.HTTPFilter{Name: faultFilter, Order: orderFault, Enabled: true, Typed: &faultv3.HTTPFault{}},
		TypedPerFilterConfig: map[string]proto.Message{faultFilter: cfg},
	}}, nil
}

// millionths is a percentage as a fraction of a million (100 % when
// unset, the CRD's default), as Envoy Gateway's xDS translator writes a
// fault's (fault.go: FromFloat32): floatMillionths.
func millionths(pct *float32) *typev3.FractionalPercent {
	p := float32(100)
	if pct != nil {
		p = *pct
	}
	return &typev3.FractionalPercent{Numerator: floatMillionths(p), Denominator: typev3.FractionalPercent_MILLION}
}

// floatMillionths is xds/utils/fractionalpercent.FromFloat32's numerator
// for the float32 percentage p: uint32(p*10000), the product computed in
// float32 and truncated, not rounded — 0.0007 % is 6 millionths, 0.0101 %
// 100 — and a value the CRD lets through outside 0–100 kept as the pinned
// (amd64) build converts it: over 100 as it is (150 % is 1,500,000, which
// Envoy reads as every request), a negative one wrapped through int64
// (-0.5 % is 4294962296). A value no int64 holds is 0.
func floatMillionths(p float32) uint32 {
	x := p * 10000
	if !(x > -(1<<63) && x < 1<<63) {
		return 0
	}
	return uint32(int64(x))
}

package envoygateway

import (
	"encoding/json"
	"fmt"
	"math"
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
	"k8s.io/apimachinery/pkg/api/resource"

	"github.com/gwpol/gwpol/internal/policy"
)

// compression is one entry of BackendTrafficPolicy's spec.compressor (and
// of the deprecated spec.compression, which has only the type).
type compression struct {
	Type             string             `json:"type"`
	Brotli           json.RawMessage    `json:"brotli"`
	Gzip             json.RawMessage    `json:"gzip"`
	Zstd             json.RawMessage    `json:"zstd"`
	MinContentLength *resource.Quantity `json:"minContentLength"`
}

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
func renderCompressor(v json.RawMessage, _ policyName) ([]policy.Fragment, error) {
	return compressorFragments(v, true)
}

// renderCompression is the deprecated spec.compression (renderCompressor).
func renderCompression(v json.RawMessage, _ policyName) ([]policy.Fragment, error) {
	return compressorFragments(v, false)
}

// compressorFragments renders a compressor list; switched: an entry is on
// only with its type's object (spec.compressor, see renderCompressor).
func compressorFragments(v json.RawMessage, switched bool) ([]policy.Fragment, error) {
	var cs []compression
	if err := json.Unmarshal(v, &cs); err != nil {
		return nil, fmt.Errorf("compressor: %w", err)
	}
	var frags []policy.Fragment
	for i, c := range cs {
		lib, ok := compressorLibraries[c.Type]
		if !ok {
			return nil, fmt.Errorf("compressor[%d].type: unknown compressor %q", i, c.Type)
		}
		own := map[string]json.RawMessage{"Brotli": c.Brotli, "Gzip": c.Gzip, "Zstd": c.Zstd}[c.Type]
		if switched && (len(own) == 0 || string(own) == "null") {
			continue
		}
		for _, opts := range []json.RawMessage{c.Brotli, c.Gzip, c.Zstd} {
			if len(opts) > 0 && string(opts) != "null" && string(opts) != "{}" {
				return []policy.Fragment{{Capability: "envoygateway.BackendTrafficPolicy.compressor." + strings.ToLower(c.Type) + "-options"}}, nil
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
		name := "envoy.filters.http.compressor." + strings.ToLower(c.Type)
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

// httpUpgrade is one entry of spec.httpUpgrade.
type httpUpgrade struct {
	Type    string `json:"type"`
	Connect *struct {
		Terminate *bool `json:"terminate"`
	} `json:"connect"`
}

// renderHTTPUpgrade is the route's upgrade configs: the listed protocols
// instead of Envoy Gateway's default (WebSocket); a CONNECT that
// terminates gets a connect config.
func renderHTTPUpgrade(v json.RawMessage, _ policyName) ([]policy.Fragment, error) {
	var us []httpUpgrade
	if err := json.Unmarshal(v, &us); err != nil {
		return nil, fmt.Errorf("httpUpgrade: %w", err)
	}
	ra := &routev3.RouteAction{}
	for _, u := range us {
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

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// faultInjection is BackendTrafficPolicy's spec.faultInjection.
type faultInjection struct {
	Delay *struct {
		FixedDelay string   `json:"fixedDelay"`
		Percentage *float64 `json:"percentage"`
	} `json:"delay"`
	Abort *struct {
		HTTPStatus *uint32  `json:"httpStatus"`
		GRPCStatus *uint32  `json:"grpcStatus"`
		Percentage *float64 `json:"percentage"`
	} `json:"abort"`
}

// faultFilter is Envoy's fault injection filter, which Envoy Gateway
// adds once per listener and configures per route.
const faultFilter = "envoy.filters.http.fault"

// renderFaultInjection is an HTTPFault on the route: the delay and the
// abort (HTTP or gRPC status), each for its percentage of requests in
// millionths (all requests when no percentage is given).
func renderFaultInjection(v json.RawMessage, _ policyName) ([]policy.Fragment, error) {
	var f faultInjection
	if err := json.Unmarshal(v, &f); err != nil {
		return nil, fmt.Errorf("faultInjection: %w", err)
	}
	cfg := &faultv3.HTTPFault{}
	if d := f.Delay; d != nil {
		dur, err := time.ParseDuration(d.FixedDelay)
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
		case a.HTTPStatus != nil:
			cfg.Abort.ErrorType = &faultv3.FaultAbort_HttpStatus{HttpStatus: *a.HTTPStatus}
		case a.GRPCStatus != nil:
			cfg.Abort.ErrorType = &faultv3.FaultAbort_GrpcStatus{GrpcStatus: *a.GRPCStatus}
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
// unset).
func millionths(pct *float64) *typev3.FractionalPercent {
	p := 100.0
	if pct != nil {
		p = *pct
	}
	return &typev3.FractionalPercent{Numerator: uint32(math.Round(p * 10000)), Denominator: typev3.FractionalPercent_MILLION}
}

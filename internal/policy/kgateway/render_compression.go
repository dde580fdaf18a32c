package kgateway

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strconv"
	"strings"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	brotlicompv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/brotli/compressor/v3"
	brotlidecompv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/brotli/decompressor/v3"
	gzipcompv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/gzip/compressor/v3"
	gzipdecompv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/gzip/decompressor/v3"
	zstdcompv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/zstd/compressor/v3"
	zstddecompv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/compression/zstd/decompressor/v3"
	compressorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/compressor/v3"
	decompressorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/decompressor/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// codec is one compression library kgateway offers, with its Envoy
// compressor and decompressor extensions.
type codec struct {
	suffix                           string // of the filter names: "" for gzip, ".brotli", ".zstd"
	compressorExt, decompressorExt   string
	compressorLib, decompressorLib   proto.Message
	compressorName, decompressorName string
}

var codecs = map[string]codec{
	"gzip": {"", "envoy.compression.gzip.compressor", "envoy.compression.gzip.decompressor",
		&gzipcompv3.Gzip{}, &gzipdecompv3.Gzip{}, "envoy.filters.http.compressor", "envoy.filters.http.decompressor"},
	"brotli": {".brotli", "envoy.compression.brotli.compressor", "envoy.compression.brotli.decompressor",
		&brotlicompv3.Brotli{}, &brotlidecompv3.Brotli{}, "envoy.filters.http.compressor.brotli", "envoy.filters.http.decompressor.brotli"},
	"zstd": {".zstd", "envoy.compression.zstd.compressor", "envoy.compression.zstd.decompressor",
		&zstdcompv3.Zstd{}, &zstddecompv3.Zstd{}, "envoy.filters.http.compressor.zstd", "envoy.filters.http.decompressor.zstd"},
}

// allCodecs in kgateway's order: a disable switches off each codec's
// filter, whichever a broader policy enabled.
var allCodecs = []string{"gzip", "brotli", "zstd"}

// libraries are the codecs a policy lists, in its order (gzip when it
// lists none).
func libraries(ls []string) ([]string, error) {
	if len(ls) == 0 {
		return []string{"gzip"}, nil
	}
	var out []string
	for _, l := range ls {
		k := strings.ToLower(l)
		if _, ok := codecs[k]; !ok {
			return nil, fmt.Errorf("library %q is not Gzip, Brotli or Zstd", l)
		}
		out = append(out, k)
	}
	return out, nil
}

// switchedOn enables a disabled-by-default filter as configured in the
// chain; switchedOffOptional disables one that may not be in the chain.
var (
	switchedOn          = &routev3.FilterConfig{Config: &anypb.Any{}}
	switchedOffOptional = &routev3.FilterConfig{Config: &anypb.Any{}, Disabled: true, IsOptional: true}
)

// compression: one compressor filter per codec the policy offers (Envoy
// picks among them by the client's Accept-Encoding), compressing
// responses only, switched on per resource; a disable switches every
// codec's filter off. Filters are named as kgateway names them; settings
// Envoy cannot override per route (minimum length, content types) make a
// filter of their own, named with a hash of the settings.
func (r *fieldRenderer) compression() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*ResponseCompression)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	if v.Disable != nil {
		return disabledCodecs(func(c codec) string { return c.compressorName }, "compressor"), nil
	}
	libs, err := libraries(v.Libraries)
	if err != nil {
		return nil, err
	}
	types := slices.Sorted(slices.Values(v.ContentTypes))
	var out []policy.Fragment
	for i, l := range libs {
		c := codecs[l]
		lib, err := anypb.New(c.compressorLib)
		if err != nil {
			return nil, err
		}
		cfg := &compressorv3.Compressor{
			RequestDirectionConfig: &compressorv3.Compressor_RequestDirectionConfig{CommonConfig: &compressorv3.Compressor_CommonDirectionConfig{
				Enabled: &corev3.RuntimeFeatureFlag{DefaultValue: wrapperspb.Bool(false)}}},
			CompressorLibrary: &corev3.TypedExtensionConfig{Name: c.compressorExt, TypedConfig: lib},
		}
		name := c.compressorName
		if v.MinContentLengthBytes != nil || len(types) > 0 {
			common := &compressorv3.Compressor_CommonDirectionConfig{}
			//lint:ignore SA1019 kgateway writes content_type (still honoured by Envoy), and gwpol reproduces it
			common.ContentType = types
			h := fnv.New64a()
			if m := v.MinContentLengthBytes; m != nil {
				common.MinContentLength = wrapperspb.UInt32(uint32(max(*m, 0)))
				fmt.Fprintf(h, "min=%d;", *m)
			}
			for _, t := range types {
				fmt.Fprintf(h, "ct=%s;", t)
			}
			cfg.ResponseDirectionConfig = &compressorv3.Compressor_ResponseDirectionConfig{CommonConfig: common}
			name += "." + strconv.FormatUint(h.Sum64(), 16)
		}
		out = append(out, policy.Fragment{
			Capability:           "compressor",
			Filter:               &policy.HTTPFilter{Name: name, Order: orderCompressor + i, Typed: cfg},
			TypedPerFilterConfig: map[string]proto.Message{name: switchedOn},
		})
	}
	return out, nil
}

// decompression: one decompressor filter per codec the policy accepts
// (Envoy picks by the request's Content-Encoding), decompressing requests
// only, switched on per resource; a disable switches every codec's filter
// off. The filters share one place in the chain, right after CORS, so
// they run in the order of their names whatever the order of the list
// (compression.go: addCompressionFiltersIfNeeded, AfterStage(CorsStage)
// for each).
func (r *fieldRenderer) decompression() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RequestDecompression)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	if v.Disable != nil {
		return disabledCodecs(func(c codec) string { return c.decompressorName }, "decompressor"), nil
	}
	libs, err := libraries(v.Libraries)
	if err != nil {
		return nil, err
	}
	var out []policy.Fragment
	for _, l := range libs {
		c := codecs[l]
		lib, err := anypb.New(c.decompressorLib)
		if err != nil {
			return nil, err
		}
		cfg := &decompressorv3.Decompressor{
			ResponseDirectionConfig: &decompressorv3.Decompressor_ResponseDirectionConfig{CommonConfig: &decompressorv3.Decompressor_CommonDirectionConfig{
				Enabled: &corev3.RuntimeFeatureFlag{DefaultValue: wrapperspb.Bool(false)}}},
			DecompressorLibrary: &corev3.TypedExtensionConfig{Name: c.decompressorExt, TypedConfig: lib},
		}
		out = append(out, policy.Fragment{
			Capability:           "decompressor",
			Filter:               &policy.HTTPFilter{Name: c.decompressorName, Order: orderDecompressor, Typed: cfg},
			TypedPerFilterConfig: map[string]proto.Message{c.decompressorName: switchedOn},
		})
	}
	return out, nil
}

// disabledCodecs switches every codec's filter off where present.
func disabledCodecs(name func(codec) string, capability string) []policy.Fragment {
	per := map[string]proto.Message{}
	for _, l := range allCodecs {
		per[name(codecs[l])] = switchedOffOptional
	}
	return []policy.Fragment{{Capability: capability, TypedPerFilterConfig: per}}
}

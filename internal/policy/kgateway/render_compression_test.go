package kgateway

import (
	"strings"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	compressorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/compressor/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

func renderField(t *testing.T, key string, v any) []policy.Fragment {
	t.Helper()
	frs, err := Kind{}.RenderField(policy.FieldInput{Key: key, Values: []any{v}}, &policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	return frs
}

// TestCompressionFilters: one compressor per listed codec, in the
// policy's order, named as kgateway names them, compressing responses
// only; settings Envoy cannot override per route get a filter named with
// their hash (equal settings, equal name; other settings, another name).
func TestCompressionFilters(t *testing.T) {
	frs := renderField(t, "compression", &ResponseCompression{Libraries: []string{"Zstd", "Gzip"}})
	if len(frs) != 2 || frs[0].Filter.Name != "envoy.filters.http.compressor.zstd" || frs[1].Filter.Name != "envoy.filters.http.compressor" {
		t.Fatalf("filters %v, want zstd's then gzip's", frs)
	}
	if frs[0].Filter.Order >= frs[1].Filter.Order {
		t.Errorf("orders %d, %d: the policy's first codec does not come first", frs[0].Filter.Order, frs[1].Filter.Order)
	}
	c := frs[0].Filter.Typed.(*compressorv3.Compressor)
	if c.GetRequestDirectionConfig().GetCommonConfig().GetEnabled().GetDefaultValue().GetValue() || c.GetCompressorLibrary().GetName() != "envoy.compression.zstd.compressor" {
		t.Errorf("compressor %v: want zstd, request direction off", c)
	}
	if err := c.ValidateAll(); err != nil {
		t.Error(err)
	}

	minLen := int32(256)
	a := renderField(t, "compression", &ResponseCompression{MinContentLengthBytes: &minLen, ContentTypes: []string{"text/html", "application/json"}})
	b := renderField(t, "compression", &ResponseCompression{MinContentLengthBytes: &minLen, ContentTypes: []string{"application/json", "text/html"}})
	other := renderField(t, "compression", &ResponseCompression{MinContentLengthBytes: &minLen})
	if !strings.HasPrefix(a[0].Filter.Name, "envoy.filters.http.compressor.") || a[0].Filter.Name != b[0].Filter.Name || a[0].Filter.Name == other[0].Filter.Name {
		t.Errorf("names %q, %q, %q: want one per distinct settings", a[0].Filter.Name, b[0].Filter.Name, other[0].Filter.Name)
	}
}

// TestCompressionDisable: a disable adds no filter and switches every
// codec's filter off where a broader policy put one.
func TestCompressionDisable(t *testing.T) {
	for key, v := range map[string]any{"compression": &ResponseCompression{Disable: &PolicyDisable{}}, "decompression": &RequestDecompression{Disable: &PolicyDisable{}}} {
		frs := renderField(t, key, v)
		if len(frs) != 1 || frs[0].Filter != nil || len(frs[0].TypedPerFilterConfig) != len(allCodecs) {
			t.Fatalf("%s: %v, want no filter and one per-filter config per codec", key, frs)
		}
		for name, m := range frs[0].TypedPerFilterConfig {
			fc, ok := m.(*routev3.FilterConfig)
			if !ok || !fc.Disabled || !fc.IsOptional {
				t.Errorf("%s: %s: %v, want disabled and optional", key, name, m)
			}
		}
	}
}

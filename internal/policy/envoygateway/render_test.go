package envoygateway

import (
	"encoding/json"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	"slices"
	"testing"

	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	compressorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/compressor/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestEffectiveValue: a route's value merged over its Gateway's as Envoy
// Gateway's utils.Merge merges the two typed policies: objects key by
// key; lists replaced (JSONMerge, and StrategicMerge for a list the API
// type does not mark patchStrategy=merge, such as cors.allowOrigins) or
// merged item by item on their patchMergeKey (StrategicMerge of
// compressor, by type); a null written in the route's policy is no field
// of the typed policy, so it removes nothing. The merged document is the
// typed policies' (a quantity is a string, an unset field without
// omitempty null), as Envoy Gateway's.
func TestEffectiveValue(t *testing.T) {
	route := json.RawMessage(`{"allowOrigins":["https://route"],"allowCredentials":true,"maxAge":null}`)
	gateway := json.RawMessage(`{"allowOrigins":["https://gw","https://gw2"],"allowMethods":["GET"],"maxAge":"10s"}`)
	want := `{"allowCredentials":true,"allowMethods":["GET"],"allowOrigins":["https://route"],"maxAge":"10s"}`
	for _, st := range []policy.Strategy{policy.JSONMerge, policy.StrategicMerge} {
		got, err := effectiveValue(policy.FieldInput{Key: "cors", Strategy: st, Values: []any{route, gateway}}, "SecurityPolicy")
		if err != nil || string(got.raw) != want {
			t.Errorf("%s: got %s, %v; want %s", st, got.raw, err, want)
		}
	}
	for _, tc := range []struct{ kind, key, route, gateway, want string }{
		{"SecurityPolicy", "jwt", `{"providers":[{"name":"b"}]}`, `{"providers":[{"name":"a"}],"optional":true}`, `{"optional":true,"providers":[{"name":"b"}]}`},
		{"EnvoyExtensionPolicy", "extProc", `[{"backendRefs":[{"name":"r"}]}]`, `[{"backendRefs":[{"name":"g"}]}]`, `[{"backendRefs":[{"name":"r"}]}]`},
		{"SecurityPolicy", "authorization", `{"rules":[{"action":"Allow"}]}`, `{"defaultAction":"Deny","rules":[{"action":"Deny"}]}`,
			// the route's typed spec writes defaultAction null (a pointer
			// without omitempty), which deletes the Gateway's, as utils.Merge does
			`{"rules":[{"action":"Allow"}]}`},
		{"SecurityPolicy", "extAuth", `{"contextExtensions":[{"name":"t","value":"r"}]}`, `{"contextExtensions":[{"name":"t","value":"g"},{"name":"u","value":"g"}],"headersToExtAuth":["x"]}`,
			// typed, as utils.Merge merges them: an item's type is written even when empty
			`{"contextExtensions":[{"name":"t","type":"","value":"r"},{"name":"u","type":"","value":"g"}],"headersToExtAuth":["x"]}`},
		{"BackendTrafficPolicy", "httpUpgrade", `[{"type":"websocket"}]`, `[{"type":"CONNECT"}]`, `[{"type":"websocket"},{"type":"CONNECT"}]`},
	} {
		got, err := effectiveValue(policy.FieldInput{Key: tc.key, Strategy: policy.StrategicMerge, Values: []any{json.RawMessage(tc.route), json.RawMessage(tc.gateway)}}, tc.kind)
		if err != nil || string(got.raw) != tc.want {
			t.Errorf("strategic %s: got %s, %v; want %s", tc.key, got.raw, err, tc.want)
		}
	}
	compressors, err := effectiveValue(policy.FieldInput{Key: "compressor", Strategy: policy.StrategicMerge, Values: []any{
		json.RawMessage(`[{"type":"Brotli","brotli":{}},{"type":"Gzip","gzip":{},"minContentLength":10}]`), json.RawMessage(`[{"type":"Gzip","gzip":{}},{"type":"Zstd","zstd":{}}]`)}}, "BackendTrafficPolicy")
	if want := `[{"brotli":{},"type":"Brotli"},{"gzip":{},"minContentLength":"10","type":"Gzip"},{"type":"Zstd","zstd":{}}]`; err != nil || string(compressors.raw) != want {
		t.Errorf("strategic lists of objects: got %s, %v; want %s", compressors.raw, err, want)
	}
	replaced, err := effectiveValue(policy.FieldInput{Key: "responseOverride", Strategy: policy.StrategicMerge, Values: []any{
		json.RawMessage(`[{"match":{"statusCodes":[{"value":500}]},"response":{"contentType":"text/plain"}}]`),
		json.RawMessage(`[{"match":{"statusCodes":[{"value":404}]},"response":{"contentType":"text/html"}}]`)}}, "BackendTrafficPolicy")
	if want := `[{"match":{"statusCodes":[{"type":null,"value":500}]},"response":{"contentType":"text/plain"}}]`; err != nil || string(replaced.raw) != want {
		t.Errorf("strategic, a list without patchStrategy: got %s, %v; want %s", replaced.raw, err, want)
	}
	one, err := effectiveValue(policy.FieldInput{Key: "cors", Values: []any{gateway}}, "SecurityPolicy")
	if err != nil || string(one.raw) != string(gateway) {
		t.Errorf("a single value is used as it is: got %s, %v", one.raw, err)
	}
}

// TestOriginMatcher: wildcard origins become regular expressions with
// the dots quoted; others match exactly.
func TestOriginMatcher(t *testing.T) {
	for in, want := range map[string][2]string{
		"*":                    {"", ".*"},
		"http://*.example.com": {"", `http://.*\.example\.com`},
		"https://foo.bar":      {"https://foo.bar", ""},
	} {
		m := originMatcher(in)
		if got := [2]string{m.GetExact(), m.GetSafeRegex().GetRegex()}; got != want {
			t.Errorf("%s: got %q, want %q", in, got, want)
		}
	}
}

// TestRenderCompressor: an entry of spec.compressor is on only with its
// type's own object; all off renders nothing (not even the
// accept-encoding removal); the deprecated spec.compression has no such
// objects, so its entries are on; chooseFirst stays with the first entry.
func TestRenderCompressor(t *testing.T) {
	for _, tc := range []struct {
		name       string
		value      string
		deprecated bool
		filters    []string // filter names, "*" marking the chooseFirst one
	}{
		{name: "all on", value: `[{"type":"Brotli","brotli":{}},{"type":"Gzip","gzip":{}}]`, filters: []string{"*envoy.filters.http.compressor.brotli", "envoy.filters.http.compressor.gzip"}},
		{name: "null turns off", value: `[{"type":"Brotli","brotli":null},{"type":"Gzip","gzip":{}},{"type":"Zstd","zstd":{}}]`, filters: []string{"envoy.filters.http.compressor.gzip", "envoy.filters.http.compressor.zstd"}},
		{name: "absent turns off", value: `[{"type":"Gzip"},{"type":"Zstd","zstd":{}}]`, filters: []string{"envoy.filters.http.compressor.zstd"}},
		{name: "another type's object does not count", value: `[{"type":"Gzip","brotli":{}}]`},
		{name: "all off", value: `[{"type":"Brotli","brotli":null},{"type":"Gzip","gzip":null}]`},
		{name: "deprecated compression", value: `[{"type":"Gzip"},{"type":"Brotli"}]`, deprecated: true, filters: []string{"*envoy.filters.http.compressor.gzip", "envoy.filters.http.compressor.brotli"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := renderCompressor
			if tc.deprecated {
				r = renderCompression
			}
			frags, err := r(typedValue[[]*egv1a1.Compression](t, tc.value), policyName{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			removes := false
			for _, f := range frags {
				if rt, ok := f.TypedRoute.(*routev3.Route); ok && slices.Equal(rt.GetRequestHeadersToRemove(), []string{"accept-encoding"}) {
					removes = true
				}
				if f.Filter == nil {
					continue
				}
				c, ok := f.Filter.Typed.(*compressorv3.Compressor)
				if !ok {
					t.Fatalf("%s: typed config %T", f.Filter.Name, f.Filter.Typed)
				}
				if f.TypedPerFilterConfig[f.Filter.Name] == nil {
					t.Errorf("%s is not enabled on the route", f.Filter.Name)
				}
				name := f.Filter.Name
				if c.GetChooseFirst() {
					name = "*" + name
				}
				got = append(got, name)
			}
			if !slices.Equal(got, tc.filters) {
				t.Errorf("filters %q, want %q", got, tc.filters)
			}
			if removes != (len(tc.filters) > 0) {
				t.Errorf("removes accept-encoding: %v, want %v", removes, len(tc.filters) > 0)
			}
		})
	}
}

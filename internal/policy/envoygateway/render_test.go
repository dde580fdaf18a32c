package envoygateway

import (
	"encoding/json"
	"testing"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestEffectiveValue: a route's value merged over its Gateway's — objects
// key by key, lists and scalars replaced (JSONMerge) or lists merged
// (StrategicMerge), null removes.
func TestEffectiveValue(t *testing.T) {
	route := json.RawMessage(`{"allowOrigins":["https://route"],"maxAge":null,"nested":{"x":1}}`)
	gateway := json.RawMessage(`{"allowOrigins":["https://gw","https://gw2"],"allowMethods":["GET"],"maxAge":"10s","nested":{"y":2}}`)
	got, err := effectiveValue(policy.FieldInput{Key: "cors", Strategy: policy.JSONMerge, Values: []any{route, gateway}})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"allowMethods":["GET"],"allowOrigins":["https://route"],"nested":{"x":1,"y":2}}`
	if string(got) != want {
		t.Errorf("got %s, want %s", got, want)
	}
	got, err = effectiveValue(policy.FieldInput{Key: "cors", Strategy: policy.StrategicMerge, Values: []any{route, gateway}})
	if err != nil {
		t.Fatal(err)
	}
	want = `{"allowMethods":["GET"],"allowOrigins":["https://route","https://gw","https://gw2"],"nested":{"x":1,"y":2}}`
	if string(got) != want {
		t.Errorf("strategic: got %s, want %s", got, want)
	}
	compressors, err := effectiveValue(policy.FieldInput{Key: "compressor", Strategy: policy.StrategicMerge, Values: []any{
		json.RawMessage(`[{"type":"Brotli"},{"type":"Gzip","minContentLength":10}]`), json.RawMessage(`[{"type":"Gzip"},{"type":"Zstd"}]`)}})
	if want := `[{"type":"Brotli"},{"minContentLength":10,"type":"Gzip"},{"type":"Zstd"}]`; err != nil || string(compressors) != want {
		t.Errorf("strategic lists of objects: got %s, %v; want %s", compressors, err, want)
	}
	one, err := effectiveValue(policy.FieldInput{Key: "cors", Values: []any{gateway}})
	if err != nil || string(one) != string(gateway) {
		t.Errorf("a single value is used as it is: got %s, %v", one, err)
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

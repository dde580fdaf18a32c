package envoygateway

import (
	"encoding/json"
	"strings"
	"testing"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// typedValue is a test's JSON value as Envoy Gateway's type T, as Decode
// holds it.
func typedValue[T any](t *testing.T, s string) T {
	t.Helper()
	var v T
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatalf("%s: %v", s, err)
	}
	return v
}

// TestDecodeTypedOnce: Decode holds each field as Envoy Gateway's type,
// with the value as written.
func TestDecodeTypedOnce(t *testing.T) {
	p := decodeWith(t, "BackendTrafficPolicy", "  timeout:\n    tcp: {connectTimeout: 5s}\n", policy.Config{})
	v, ok := p.Values["timeout"].(*fieldValue)
	if !ok {
		t.Fatalf("timeout held as %T", p.Values["timeout"])
	}
	tm, ok := v.typed.(*egv1a1.Timeout)
	if !ok || tm.TCP == nil || tm.TCP.ConnectTimeout == nil || *tm.TCP.ConnectTimeout != "5s" {
		t.Errorf("typed timeout %#v", v.typed)
	}
	if string(v.raw) != `{"tcp":{"connectTimeout":"5s"}}` {
		t.Errorf("raw %s", v.raw)
	}
	if b, err := json.Marshal(v); err != nil || string(b) != string(v.raw) {
		t.Errorf("marshals as %s, %v", b, err)
	}
}

// TestDecodeTypeErrorPositioned: a value of the wrong type makes the
// policy Invalid with a finding at that value's line and column, naming
// the field.
func TestDecodeTypeErrorPositioned(t *testing.T) {
	p := decodeWith(t, "BackendTrafficPolicy", "  circuitBreaker:\n    maxConnections: many\n", policy.Config{})
	if len(p.Invalid) != 1 {
		t.Fatalf("invalid: %v", p.Invalid)
	}
	d := p.Invalid[0]
	if d.Field != "spec.circuitBreaker.maxConnections" || d.Pos.Line != 6 || d.Pos.Col != 21 || !strings.Contains(d.Message, "must be a number") {
		t.Errorf("finding %q at %s field %s", d.Message, d.Pos, d.Field)
	}
}

// TestDecodeNestedUnknownField: a key Envoy Gateway's type does not
// define inside a field is an unknown-field finding at its position (the
// API server would prune it), never silently dropped.
func TestDecodeNestedUnknownField(t *testing.T) {
	p := decodeWith(t, "BackendTrafficPolicy", "  healthCheck:\n    active:\n      type: HTTP\n      http: {path: /, headerz: [{name: x}]}\n", policy.Config{})
	if len(p.Findings) != 1 || p.Findings[0].Field != "spec.healthCheck.active.http.headerz" || p.Findings[0].Pos.Line != 8 {
		t.Fatalf("findings %v", p.Findings)
	}
	if !p.IsValid() {
		t.Errorf("invalid: %v", p.Invalid)
	}
}

// raw3 is a scoped or model renderer of Envoy Gateway's type T called
// with a test's JSON value.
func raw3[T, A any](r func(T, policyName, A) ([]policy.Fragment, error)) func(json.RawMessage, policyName, A) ([]policy.Fragment, error) {
	return func(v json.RawMessage, who policyName, a A) ([]policy.Fragment, error) {
		var t T
		if err := json.Unmarshal(v, &t); err != nil {
			return nil, err
		}
		return r(t, who, a)
	}
}

// raw2 is a renderer of Envoy Gateway's type T called with a test's JSON
// value.
func raw2[T any](r func(T, policyName) ([]policy.Fragment, error)) func(json.RawMessage, policyName) ([]policy.Fragment, error) {
	return func(v json.RawMessage, who policyName) ([]policy.Fragment, error) {
		var t T
		if err := json.Unmarshal(v, &t); err != nil {
			return nil, err
		}
		return r(t, who)
	}
}

// TestDecodeCaseFoldedKey: Envoy Gateway reads its input as encoding/json
// does, so a spec key that differs from a field's name only in case
// (spec.RateLimit) sets that field. Decode holds its value under the
// field's name, the checks read it (a global rate limit without a rate
// limit service is refused), and the finding points at the key as
// written; the key itself is still reported as unknown to the API server.
func TestDecodeCaseFoldedKey(t *testing.T) {
	spec := "  RateLimit:\n    global:\n      rules:\n      - limit: {requests: 1, unit: Hour}\n"
	p := decode(t, "BackendTrafficPolicy", spec)
	v, ok := p.Values["rateLimit"].(*fieldValue)
	if !ok {
		t.Fatalf("rateLimit not held: %v", p.Values)
	}
	if rl, ok := v.typed.(*egv1a1.RateLimitSpec); !ok || rl.Global == nil || len(rl.Global.Rules) != 1 {
		t.Errorf("typed rateLimit %#v", v.typed)
	}
	if len(p.Invalid) != 1 {
		t.Fatalf("invalid: %v", p.Invalid)
	}
	if d := p.Invalid[0]; d.Field != "spec.rateLimit.global" || d.Pos.Line != 7 || !strings.Contains(d.Message, "enable Ratelimit") {
		t.Errorf("finding %q at %s field %s, want spec.rateLimit.global at line 7", d.Message, d.Pos, d.Field)
	}
	if len(p.Findings) != 1 || p.Findings[0].Field != "spec.RateLimit" {
		t.Errorf("findings %v, want the unknown key spec.RateLimit", p.Findings)
	}

	// The same value under its own name decodes alike.
	exact := decode(t, "BackendTrafficPolicy", strings.Replace(spec, "RateLimit", "rateLimit", 1))
	if ev, ok := exact.Values["rateLimit"].(*fieldValue); !ok || string(ev.raw) != string(v.raw) {
		t.Errorf("exact key held %v, folded %s", exact.Values["rateLimit"], v.raw)
	}
	if len(exact.Invalid) != 1 || exact.Invalid[0].Pos != p.Invalid[0].Pos {
		t.Errorf("exact key: invalid %v", exact.Invalid)
	}
}

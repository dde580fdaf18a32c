package envoygateway

import (
	"strings"
	"testing"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

func decode(t *testing.T, kind, spec string) *policy.Policy {
	t.Helper()
	return decodeWith(t, kind, spec, policy.Config{})
}

// decodeWith decodes under the given settings.
func decodeWith(t *testing.T, kind, spec string, cfg policy.Config) *policy.Policy {
	t.Helper()
	doc := "apiVersion: gateway.envoyproxy.io/v1alpha1\nkind: " + kind + "\nmetadata: {name: p, namespace: default}\nspec:\n" + spec
	objs, err := manifest.Parse("p.yaml", []byte(doc), manifest.Limits{})
	if err != nil || len(objs) != 1 {
		t.Fatalf("parse: %v (%d objects)", err, len(objs))
	}
	k := map[string]*Kind{"BackendTrafficPolicy": BackendTrafficPolicy(), "ClientTrafficPolicy": ClientTrafficPolicy()}[kind]
	m := model.Build(&manifest.Set{Objects: objs}, model.Options{DefaultNamespace: "default"})
	return k.Decode(objs[0], &policy.Env{Model: m, Config: cfg})
}

func TestValueChecks(t *testing.T) {
	tests := []struct {
		kind, spec string
		invalid    string // the message, "" when valid
	}{
		{"BackendTrafficPolicy", "  timeout: {tcp: {connectTimeout: 20kib}}\n", "Timeout: invalid ConnectTimeout value 20kib."},
		{"BackendTrafficPolicy", "  timeout: {tcp: {connectTimeout: 20s}}\n", ""},
		{"BackendTrafficPolicy", "  connection: {bufferLimit: 100m}\n", "BackendConnection: invalid BufferLimit value 100m."},
		{"BackendTrafficPolicy", "  connection: {bufferLimit: 100Mi}\n", ""},
		{"BackendTrafficPolicy", "  requestBuffer: {limit: 5000Mi}\n", "RequestBuffer: limit value 5000Mi is out of range, must be between 0 and 4294967295."},
		{"BackendTrafficPolicy", "  circuitBreaker: {maxConnections: -1}\n", "CircuitBreaker: invalid MaxConnections value -1."},
		{"BackendTrafficPolicy", "  loadBalancer: {type: ConsistentHash, consistentHash: {tableSize: 1024}}\n", "LoadBalancer: ConsistentHash: invalid TableSize value 1024."},
		{"BackendTrafficPolicy", "  loadBalancer: {type: ConsistentHash, consistentHash: {tableSize: 65537}}\n", ""},
		{"BackendTrafficPolicy", "  rateLimit: {type: Global, global: {rules: [{clientSelectors: [{headers: [{name: x, type: Distinct, invert: true}]}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: unable to translate rateLimit.Invert is not applicable for distinct header match type."},
		{"BackendTrafficPolicy", "  rateLimit: {type: Local, local: {rules: [{limit: {requests: 1, unit: Hour}}, {limit: {requests: 2, unit: Hour}}]}}\n",
			"RateLimit: local rateLimit can not have more than one rule without clientSelectors."},
		{"BackendTrafficPolicy", "  rateLimit: {type: Local, local: {rules: [{limit: {requests: 1, unit: Hour}}, {clientSelectors: [{headers: [{name: x, value: y}]}], limit: {requests: 2, unit: Minute}}]}}\n",
			"RateLimit: local rateLimit rule limit unit must be a multiple of the default limit unit."},
		{"BackendTrafficPolicy", "  rateLimit: {type: Local, local: {rules: [{limit: {requests: 1, unit: Minute}}, {clientSelectors: [{headers: [{name: x, value: y}]}], limit: {requests: 2, unit: Hour}}]}}\n", ""},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: unable to translate rateLimit. At least one of the header or method or path or sourceCIDR or queryParameters must be specified."},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{headers: [{name: x, type: Exact}]}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: unable to translate rateLimit. Either the header.Type is not valid or the header is missing a value."},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{sourceCIDR: {value: 10.0.0.0/33}}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: unable to translate rateLimit: invalid CIDR address: 10.0.0.0/33."},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{path: {type: Bogus, value: /x}}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: unable to translate rateLimit: invalid path type."},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{queryParams: [{name: q, type: Distinct, value: v}]}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: unable to translate rateLimit.Value is not applicable for distinct query parameter match type."},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{queryParams: [{name: q}]}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: value is required for Exact query parameter match."},
		// Envoy Gateway builds the local rate limit first.
		{"BackendTrafficPolicy", "  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Hour}}, {limit: {requests: 2, unit: Hour}}]}, global: {rules: [{clientSelectors: [{}], limit: {requests: 1, unit: Hour}}]}}\n",
			"RateLimit: local rateLimit can not have more than one rule without clientSelectors."},
		{"BackendTrafficPolicy", "  rateLimit: {type: Bogus, local: {rules: [{limit: {requests: 1, unit: Hour}}]}}\n", "RateLimit: invalid rateLimit type: Bogus."},
		{"BackendTrafficPolicy", "  rateLimit: {global: {rules: [{clientSelectors: [{methods: [{value: GET}], path: {value: /api}, sourceCIDR: {type: Distinct, value: 10.1.2.3/8}, queryParams: [{name: q, type: Distinct}]}], limit: {requests: 1, unit: Hour}, shared: true, cost: {request: {from: Number, number: 1}}}]}}\n", ""},
		{"BackendTrafficPolicy", "  bandwidthLimit: {request: {limit: {value: 1023, unit: Second}}}\n",
			"BandwidthLimit: request: bandwidth limit of 1023 bytes per Second is below the minimum of 1 KiB/s."},
		{"BackendTrafficPolicy", "  bandwidthLimit: {response: {limit: {value: 61440, unit: Minute}}}\n", ""},
		{"ClientTrafficPolicy", "  connection: {connectionLimit: {value: 3, closeDelay: 10mib}}\n", "Connection: invalid CloseDelay value 10mib."},
		{"ClientTrafficPolicy", "  http2: {initialStreamWindowSize: 64Ki}\n", ""},
		{"ClientTrafficPolicy", "  headers: {earlyRequestHeaders: {set: [{name: 'a:b', value: x}]}}\n",
			"Headers: EarlyRequestHeaders cannot set a header with a '/' or ':' character in them. Header: '\"a:b\"'"},
		{"ClientTrafficPolicy", "  headers: {lateResponseHeaders: {remove: ['']}}\n", "Headers: LateResponseHeaders cannot remove a header with an empty name"},
		{"ClientTrafficPolicy", "  headers: {earlyRequestHeaders: {add: [{name: x-ok, value: y}]}}\n", ""},
		{"ClientTrafficPolicy", "  http2: {initialStreamWindowSize: 1Ki}\n", "HTTP2: InitialStreamWindowSize value 1Ki is out of range, must be between 65535 and 2147483647"},
		{"ClientTrafficPolicy", "  tls: {ciphers: [INVALID-CIPHER]}\n", "TLS: unsupported cipher suite: INVALID-CIPHER."},
		{"ClientTrafficPolicy", "  tls: {ciphers: [ECDHE-ECDSA-AES128-GCM-SHA256, TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256]}\n", ""},
		{"ClientTrafficPolicy", "  tls: {ciphers: ['[ECDHE-ECDSA-AES128-GCM-SHA256|ECDHE-ECDSA-CHACHA20-POLY1305]']}\n", ""},
		{"ClientTrafficPolicy", "  tls: {ciphers: ['[ECDHE-ECDSA-AES128-GCM-SHA256|RC4-MD5]']}\n", "TLS: unsupported cipher suite: [ECDHE-ECDSA-AES128-GCM-SHA256|RC4-MD5]."},
		// an empty entry is no suite Envoy knows (found by TestEnvoyGatewayOracle)
		{"ClientTrafficPolicy", "  tls: {ciphers: ['']}\n", "TLS: unsupported cipher suite: ."},
		{"ClientTrafficPolicy", "  tls: {ciphers: [ECDHE-ECDSA-AES128-GCM-SHA256, '']}\n", "TLS: unsupported cipher suite: ."},
	}
	// A rate limit service is deployed (envoyGateway.rateLimit.enabled),
	// so that global rate limits are checked.
	withRLS := policy.Config{Values: map[string]any{RateLimitEnabled.Key: true}}
	for _, tc := range tests {
		t.Run(tc.kind+" "+tc.spec, func(t *testing.T) {
			p := decodeWith(t, tc.kind, tc.spec, withRLS)
			got := ""
			if len(p.Invalid) > 0 {
				got = p.Invalid[0].Message
			}
			if got != tc.invalid {
				t.Errorf("invalid = %q, want %q", got, tc.invalid)
			}
		})
	}
}

// TestGlobalRateLimitNeedsService: without a rate limit service (config
// envoyGateway.rateLimit.enabled, Envoy Gateway's default: none) a
// global rate limit is refused with Envoy Gateway's message, a local one
// is not.
func TestGlobalRateLimitNeedsService(t *testing.T) {
	tests := []struct {
		spec, invalid string
	}{
		{"  rateLimit: {global: {rules: [{limit: {requests: 1, unit: Hour}}]}}\n", "RateLimit: enable Ratelimit in the EnvoyGateway config to configure global rateLimit."},
		{"  rateLimit: {type: Global, global: {rules: [{limit: {requests: 1, unit: Hour}}]}}\n", "RateLimit: enable Ratelimit in the EnvoyGateway config to configure global rateLimit."},
		{"  rateLimit: {local: {rules: [{limit: {requests: 1, unit: Hour}}]}}\n", ""},
	}
	for _, tc := range tests {
		p := decode(t, "BackendTrafficPolicy", tc.spec)
		got := ""
		if len(p.Invalid) > 0 {
			got = p.Invalid[0].Message
			if f := p.Invalid[0].Field; f != "spec.rateLimit.global" {
				t.Errorf("%s: field %q, want spec.rateLimit.global", tc.spec, f)
			}
		}
		if got != tc.invalid {
			t.Errorf("%s: invalid = %q, want %q", tc.spec, got, tc.invalid)
		}
	}
}

// TestRateLimitErrorField: a refused rate limit is reported at the part
// of spec.rateLimit Envoy Gateway refuses (the rule, the unit), at its
// line.
func TestRateLimitErrorField(t *testing.T) {
	withRLS := policy.Config{Values: map[string]any{RateLimitEnabled.Key: true}}
	tests := []struct {
		spec, field string
		line        int
	}{
		{"  rateLimit:\n    global:\n      rules:\n      - limit: {requests: 1, unit: Hour}\n      - clientSelectors: [{headers: [{name: x, type: Distinct, invert: true}]}]\n        limit: {requests: 1, unit: Hour}\n",
			"spec.rateLimit.global.rules[1]", 9},
		{"  rateLimit:\n    local:\n      rules:\n      - limit: {requests: 1, unit: Minute}\n      - clientSelectors: [{headers: [{name: x, value: y}]}]\n        limit: {requests: 2, unit: Second}\n",
			"spec.rateLimit.local.rules[1].limit.unit", 10},
		// a unit the CRD does not admit, named at the rule's unit
		{"  rateLimit:\n    global:\n      rules:\n      - clientSelectors: [{headers: [{name: x, type: Distinct}]}]\n        limit: {requests: 1, unit: Fortnight}\n",
			"spec.rateLimit.global.rules[0].limit.unit", 9},
		{"  rateLimit:\n    local:\n      rules:\n      - limit: {requests: 1, unit: Fortnight}\n",
			"spec.rateLimit.local.rules[0].limit.unit", 8},
	}
	for _, tc := range tests {
		p := decodeWith(t, "BackendTrafficPolicy", tc.spec, withRLS)
		if len(p.Invalid) != 1 {
			t.Fatalf("%d invalid findings, want 1: %v", len(p.Invalid), p.Invalid)
		}
		if d := p.Invalid[0]; d.Field != tc.field || d.Pos.Line != tc.line {
			t.Errorf("at %s line %d, want %s line %d", d.Field, d.Pos.Line, tc.field, tc.line)
		}
	}
}

// TestCompressionOutOfEffect: Envoy Gateway reads the deprecated
// spec.compression only when spec.compressor is empty (buildCompression).
func TestCompressionOutOfEffect(t *testing.T) {
	tests := []struct {
		spec     string
		inEffect bool
	}{
		{"  compression: [{type: Gzip}]\n", true},
		{"  compression: [{type: Gzip}]\n  compressor: []\n", true},
		{"  compression: [{type: Gzip}]\n  compressor: [{type: Brotli, brotli: {}}]\n", false},
		{"  compression: [{type: Gzip}]\n  compressor: [{type: Brotli}]\n", false}, // an entry switched off still wins
	}
	for _, tt := range tests {
		p := decode(t, "BackendTrafficPolicy", tt.spec)
		_, inValues := p.Values["compression"]
		reason, out := p.OutOfEffect["compression"]
		if inValues != tt.inEffect || out == tt.inEffect || (out && reason == "") {
			t.Errorf("%q: in values %v, out of effect %v (%q); want in effect %v", tt.spec, inValues, out, reason, tt.inEffect)
		}
		if d := decoded(p).deprecated; len(d) != 1 || d[0] != "spec.compression is deprecated, use spec.compressor instead" {
			t.Errorf("%q: deprecated %q", tt.spec, d)
		}
		if len(p.Findings) != 1 || p.Findings[0].Code != "GWP104" {
			t.Errorf("%q: findings %v", tt.spec, p.Findings)
		}
	}
	// an empty list is no use of the deprecated field
	// (deprecatedFieldsUsedInBackendTrafficPolicy: len > 0): no warning,
	// with or without a compressor
	for _, spec := range []string{"  compression: []\n", "  compression: []\n  compressor: [{type: Gzip}]\n"} {
		p := decode(t, "BackendTrafficPolicy", spec)
		if d := decoded(p).deprecated; len(d) != 0 || len(p.Findings) != 0 {
			t.Errorf("%q: deprecated %q, findings %v; want none", spec, d, p.Findings)
		}
	}
}

// TestRateLimitTypeError: a value of the wrong type is one finding, at
// that value, naming the field with its list index and what it must be;
// the rate limit, partly decoded without it, is not judged as well (a
// unit of the wrong type would otherwise read as a unit left unset).
func TestRateLimitTypeError(t *testing.T) {
	withRLS := policy.Config{Values: map[string]any{RateLimitEnabled.Key: true}}
	tests := []struct{ limit, want string }{
		{"{requests: -5, unit: Hour}", "spec.rateLimit.local.rules[0].limit.requests must be a whole number from 0 to 4294967295, not number -5"},
		{"{requests: 5, unit: [Hour]}", "spec.rateLimit.local.rules[0].limit.unit must be a string, not array"},
	}
	for _, tt := range tests {
		p := decodeWith(t, "BackendTrafficPolicy", "  rateLimit:\n    local:\n      rules:\n      - limit: "+tt.limit+"\n", withRLS)
		if len(p.Invalid) != 1 {
			t.Fatalf("%s: %d invalid findings, want 1: %v", tt.limit, len(p.Invalid), p.Invalid)
		}
		d := p.Invalid[0]
		if !strings.Contains(d.Message, tt.want) || d.Field != strings.Fields(tt.want)[0] {
			t.Errorf("%s: finding at %s %q, want %q", tt.limit, d.Field, d.Message, tt.want)
		}
	}
}

// TestHTTPStatusRange: a status outside 100–599 in a health check's or
// retry's status list is invalid, named at the entry.
func TestHTTPStatusRange(t *testing.T) {
	tests := []struct {
		spec, field string // field "" when valid
	}{
		{"  healthCheck:\n    active: {type: HTTP, http: {path: /h, expectedStatuses: [200, 999]}}\n", "spec.healthCheck.active.http.expectedStatuses[1]"},
		{"  healthCheck:\n    active: {type: HTTP, http: {path: /h, expectedStatuses: [100, 599]}}\n", ""},
		{"  retry:\n    retryOn: {httpStatusCodes: [42]}\n", "spec.retry.retryOn.httpStatusCodes[0]"},
	}
	for _, tt := range tests {
		p := decode(t, "BackendTrafficPolicy", tt.spec)
		var got string
		if len(p.Invalid) > 0 {
			got = p.Invalid[0].Field
		}
		if got != tt.field || len(p.Invalid) > 1 {
			t.Errorf("%q: invalid at %q (%d findings), want %q", tt.spec, got, len(p.Invalid), tt.field)
		}
	}
}

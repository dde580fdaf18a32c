package haptic

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
)

// full is a policy setting every section, valid on an HTTPRoute.
const full = `spec:
  authentication:
    jwt:
      secretRef: {name: jwt-ec}
      algorithm: ES256
      issuer: https://auth.example.com
      audience: orders
      requiredClaims: [sub, org.id]
      forwardClaims: [{claim: sub, header: X-User}]
    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}
  rateLimit: {requests: 50, period: 1s, burst: 100, algorithm: gcra, key: consumer}
  waf: {policy: strict-json, catalogRef: {name: waf}}
  cache: {ttlSeconds: 60, maxObjectSizeBytes: 1024, varyHeaders: [Accept-Encoding]}`

// renderAll renders every set field of p the way render/envoy calls a
// kind: one FieldInput per field, with the single owner.
func renderAll(t *testing.T, p *policy.Policy) map[string][]policy.Fragment {
	t.Helper()
	out := map[string][]policy.Fragment{}
	for _, key := range p.SetFields() {
		frags, err := Kind{}.RenderField(policy.FieldInput{Key: key, Strategy: policy.Exclusive, Values: []any{p.Values[key]},
			Contributors: []string{p.ID()}, Scope: policy.ScopeRoute, Namespaces: []string{p.Obj.Namespace}}, nil)
		if err != nil {
			t.Fatalf("%s: %v", key, err)
		}
		out[key] = frags
	}
	return out
}

// enablesFilter reports whether f turns its filter on on the route.
func enablesFilter(f policy.Fragment) bool {
	_, ok := f.TypedPerFilterConfig[f.Filter.Name]
	return ok
}

// fragmentsJSON is frags as JSON with sorted keys, messages in their
// protojson form (proto field names).
func fragmentsJSON(t *testing.T, frags []policy.Fragment) ([]byte, error) {
	t.Helper()
	var out []any
	for _, f := range frags {
		m := map[string]any{"capability": f.Capability, "route": nil}
		if f.TypedRoute != nil {
			m["route"] = generic(t, f.TypedRoute)
		}
		if f.Filter != nil {
			m["filter"] = nil
			if f.Filter.Typed != nil {
				m["filter"] = generic(t, f.Filter.Typed)
			}
		}
		per := map[string]any{}
		for n, c := range f.TypedPerFilterConfig {
			per[n] = generic(t, c)
		}
		m["per_filter_config"] = per
		out = append(out, m)
	}
	return json.Marshal(out)
}

// generic is m's protojson form decoded into maps.
func generic(t *testing.T, m proto.Message) any {
	t.Helper()
	raw, err := protojson.MarshalOptions{UseProtoNames: true}.Marshal(m)
	if err != nil {
		t.Fatal(err)
	}
	var v any
	if err := json.Unmarshal(raw, &v); err != nil {
		t.Fatal(err)
	}
	return v
}

func TestRenderFields(t *testing.T) {
	p := decode(t, full)
	if !p.IsValid() {
		t.Fatalf("invalid: %v", p.Invalid)
	}
	got := renderAll(t, p)
	caps := map[string][]string{}
	var order []int
	for key, frags := range got {
		for _, f := range frags {
			caps[key] = append(caps[key], f.Capability)
			if f.Filter == nil {
				continue
			}
			order = append(order, f.Filter.Order)
			if !strings.HasSuffix(f.Filter.Name, "/haproxyroutepolicy/shop/p") {
				t.Errorf("%s: filter name %q is not per policy", key, f.Filter.Name)
			}
			if !enablesFilter(f) {
				t.Errorf("%s: filter %s is not enabled on the route", key, f.Filter.Name)
			}
			if f.Filter.Typed == nil {
				t.Errorf("%s: filter config has no type", key)
			}
		}
	}
	want := map[string][]string{FieldJWT: {CapJWT, CapRBAC}, FieldAPIKey: {CapAPIKey}, FieldRateLimit: {CapRateLimit}, FieldWAF: {CapWAF}, FieldCache: {CapCache}}
	for k, w := range want {
		if !slices.Equal(caps[k], w) {
			t.Errorf("%s capabilities = %v, want %v", k, caps[k], w)
		}
	}
	// WAF is route metadata naming the selection, nothing an Envoy filter
	// would half-apply.
	if w := got[FieldWAF][0]; w.Filter != nil || w.TypedPerFilterConfig != nil || w.TypedRouteAction != nil {
		t.Errorf("waf fragment carries filter configuration: %+v", w)
	} else if rt, ok := w.TypedRoute.(*routev3.Route); !ok || rt.GetMetadata().GetFilterMetadata() == nil {
		t.Errorf("waf fragment does not name the selection in route metadata: %+v", w)
	} else if sel := rt.GetMetadata().GetFilterMetadata()[WAFMetadataKey]; sel.GetFields()["catalog"].GetStringValue() != "shop/waf/policies.yaml" {
		t.Errorf("waf selection not under %s: %v", WAFMetadataKey, rt.GetMetadata())
	}
	// auth → rate limit → WAF → cache.
	for _, pair := range [][2]int{{OrderJWT, OrderRateLimit}, {OrderClaims, OrderRateLimit}, {OrderAPIKey, OrderRateLimit}, {OrderRateLimit, OrderWAF}, {OrderWAF, OrderCache}, {OrderJWT, OrderClaims}} {
		if pair[0] >= pair[1] {
			t.Errorf("order %d must come before %d", pair[0], pair[1])
		}
	}
	if len(order) != 5 {
		t.Errorf("filters = %d, want 5 (jwt, claims, api key, rate limit, cache)", len(order))
	}

	// The JWT key is a file reference to the Secret, never its content.
	js, _ := fragmentsJSON(t, got[FieldJWT])
	if !strings.Contains(string(js), `"filename":"/etc/envoy/secrets/shop/jwt-ec/pubkey.pem"`) || strings.Contains(string(js), "PUBLICKEYMATERIAL") || strings.Contains(string(js), "inline") {
		t.Errorf("jwt provider must reference the Secret by file: %s", js)
	}
	// Required claims become an RBAC check on the verified payload.
	if !strings.Contains(string(js), `"present_match":true`) || !strings.Contains(string(js), `{"key":"org"},{"key":"id"}`) {
		t.Errorf("required claims not checked: %s", js)
	}
	// Per-consumer rate limit reads the token's sub, else the API key's
	// consumer header (TestRenderConsumerIdentity).
	rl, _ := fragmentsJSON(t, got[FieldRateLimit])
	// 50 per second is 1 token per 20ms, scaled to Envoy's 50ms minimum.
	for _, s := range []string{`"header_name":"x-consumer"`, `"stat_prefix":"p_shop_p"`, `"max_tokens":100`, `"tokens_per_fill":3`, `"fill_interval":"0.060s"`} {
		if !strings.Contains(string(rl), s) {
			t.Errorf("rate limit lacks %s: %s", s, rl)
		}
	}
	ak, _ := fragmentsJSON(t, got[FieldAPIKey])
	if strings.Contains(string(ak), "credentials") || strings.Contains(string(ak), "k-123") {
		t.Errorf("api key credentials inlined: %s", ak)
	}
}

func TestRenderConsumerFromJWT(t *testing.T) {
	p := decode(t, "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}}\n  rateLimit: {requests: 5, key: consumer}")
	got := renderAll(t, p)
	j, _ := fragmentsJSON(t, got[FieldJWT])
	r, _ := fragmentsJSON(t, got[FieldRateLimit])
	if !strings.Contains(string(j), `{"claim_name":"sub","header_name":"x-haptic-consumer"}`) || !strings.Contains(string(r), `"header_name":"x-haptic-consumer"`) {
		t.Errorf("consumer not carried from jwt sub to the rate limit:\n%s\n%s", j, r)
	}
	// Without key consumer the token's subject is not copied anywhere.
	p = decode(t, "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}}\n  rateLimit: {requests: 5}")
	j, _ = fragmentsJSON(t, renderAll(t, p)[FieldJWT])
	if strings.Contains(string(j), "claim_to_headers") {
		t.Errorf("unexpected claim_to_headers: %s", j)
	}
}

// TestRenderConsumerIdentity: the consumer a per-consumer rate limit
// counts is HAPTIC's one consumer identity, set once — the token's sub
// (the JWT check runs first), else the API key's consumer; and a policy
// that needs a consumer (a per-consumer rate limit, or a cache behind
// authentication) refuses a request that has none with 401, which with
// JWT alone is a token without sub. Until hap34 the API key's consumer
// was counted ahead of sub, and a token without sub passed (its requests
// shared the default bucket, or were cached).
func TestRenderConsumerIdentity(t *testing.T) {
	const jwt = "    jwt: {secretRef: {name: jwt-ec}, algorithm: ES256}\n"
	const key = "    apiKey: {secretRef: {name: api-keys}}\n"
	tests := []struct {
		name, auth, rest string
		subTo            string   // the header jwt_authn writes sub into ("": none)
		subjectRequired  bool     // a token without sub is refused
		keyTo            string   // the header the API key's consumer goes to
		limits           []string // the headers each rate limit reads, in order
		fills            string   // "HEADER<-VALUE" the route adds where absent
	}{
		{"token and key: sub first, the key's consumer behind a token without sub", jwt + key, "  rateLimit: {requests: 5, key: consumer}",
			internalSubjectHeader, false, internalConsumerHeader, []string{internalSubjectHeader, "!" + internalSubjectHeader + " " + internalConsumerHeader}, ""},
		// The consumer header forwards the one identity too: sub, else the
		// key's consumer (until hap34 the key's consumer, always).
		{"token and key with a consumer header", jwt + "    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n", "  rateLimit: {requests: 5, key: consumer}",
			"x-consumer", false, internalConsumerHeader, []string{"x-consumer", "!x-consumer " + internalConsumerHeader}, "X-Consumer<-%REQ(x-haptic-consumer)%"},
		{"token and key with a consumer header, no rate limit", jwt + "    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n", "  cache: {}",
			"x-consumer", false, internalConsumerHeader, nil, "X-Consumer<-%REQ(x-haptic-consumer)%"},
		{"key alone with a consumer header", "    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n", "  rateLimit: {requests: 5, key: consumer}",
			"", false, "X-Consumer", []string{"x-consumer"}, ""},
		{"token alone: sub, and none without it", jwt, "  rateLimit: {requests: 5, key: consumer}",
			internalConsumerHeader, true, "", []string{internalConsumerHeader}, ""},
		{"token alone before a cache: a consumer is needed", jwt, "  cache: {ttlSeconds: 30}",
			"", true, "", nil, ""},
		{"token alone, per-address limit: no consumer needed", jwt, "  rateLimit: {requests: 5}",
			"", false, "", []string{"remote_address"}, ""},
		{"key alone before a cache: the key always names one", key, "  cache: {}",
			"", false, "", nil, ""},
		{"token and key before a cache: the key names one", jwt + key, "  cache: {}",
			"", false, "", nil, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decode(t, "spec:\n  authentication:\n"+tt.auth+tt.rest)
			if !p.IsValid() {
				t.Fatalf("invalid: %v", p.Invalid)
			}
			got := renderAll(t, p)
			for _, frags := range got {
				for _, f := range frags {
					if f.Filter == nil {
						continue
					}
					if rt, ok := f.TypedRoute.(*routev3.Route); ok {
						for _, h := range rt.GetRequestHeadersToAdd() {
							if err := h.ValidateAll(); err != nil {
								t.Errorf("Envoy refuses the route's header: %v", err)
							}
						}
					}
					if v, ok := f.Filter.Typed.(interface{ ValidateAll() error }); ok {
						if err := v.ValidateAll(); err != nil {
							t.Errorf("Envoy refuses %s: %v", f.Filter.Name, err)
						}
					}
				}
			}
			var subTo string
			var subject bool
			if frags := got[FieldJWT]; len(frags) > 0 {
				cfg := frags[0].Filter.Typed.(*jwtv3.JwtAuthentication)
				for _, prov := range cfg.GetProviders() {
					for _, c := range prov.GetClaimToHeaders() {
						if c.GetClaimName() == "sub" {
							subTo = c.GetHeaderName()
						}
					}
					subject = prov.GetSubjects().GetSafeRegex().GetRegex() == ".+"
				}
			}
			if subTo != tt.subTo || subject != tt.subjectRequired {
				t.Errorf("sub goes to %q (want %q), a token without sub refused: %v (want %v)", subTo, tt.subTo, subject, tt.subjectRequired)
			}
			var keyTo string
			if frags := got[FieldAPIKey]; len(frags) > 0 {
				keyTo = frags[0].Filter.Typed.(*apikeyauthv3.ApiKeyAuth).GetForwarding().GetHeader()
			}
			if keyTo != tt.keyTo {
				t.Errorf("the key's consumer goes to %q, want %q", keyTo, tt.keyTo)
			}
			var fills string
			if frags := got[FieldAPIKey]; len(frags) > 0 && frags[0].TypedRoute != nil {
				for _, h := range frags[0].TypedRoute.(*routev3.Route).GetRequestHeadersToAdd() {
					if h.GetAppendAction() == corev3.HeaderValueOption_ADD_IF_ABSENT {
						fills = h.GetHeader().GetKey() + "<-" + h.GetHeader().GetValue()
					}
				}
			}
			if fills != tt.fills {
				t.Errorf("the route fills %q, want %q", fills, tt.fills)
			}
			var limits []string
			if frags := got[FieldRateLimit]; len(frags) > 0 {
				cfg := frags[0].Filter.Typed.(*localratelimitv3.LocalRateLimit)
				for _, rl := range cfg.GetRateLimits() {
					var reads []string
					for _, a := range rl.GetActions() {
						switch {
						case a.GetRequestHeaders() != nil:
							reads = append(reads, a.GetRequestHeaders().GetHeaderName())
						case a.GetHeaderValueMatch() != nil:
							reads = append(reads, "!"+a.GetHeaderValueMatch().GetHeaders()[0].GetName())
						case a.GetRemoteAddress() != nil:
							reads = append(reads, "remote_address")
						}
					}
					limits = append(limits, strings.Join(reads, " "))
				}
				// every rate limit fills a descriptor the filter has a bucket for
				if len(cfg.GetDescriptors()) != len(cfg.GetRateLimits()) {
					t.Errorf("%d descriptors for %d rate limits", len(cfg.GetDescriptors()), len(cfg.GetRateLimits()))
				}
			}
			if !slices.Equal(limits, tt.limits) {
				t.Errorf("rate limits read %q, want %q", limits, tt.limits)
			}
		})
	}
}

func TestRefill(t *testing.T) {
	for _, tc := range []struct {
		requests int64
		period   time.Duration
		tokens   int64
		every    time.Duration
	}{
		{50, time.Second, 3, 60 * time.Millisecond},
		{1, time.Second, 1, time.Second},
		{10, time.Second, 1, 100 * time.Millisecond},
		{100, time.Second, 5, 50 * time.Millisecond},
		{1000, time.Minute, 1, 60 * time.Millisecond},
		{7, time.Second, 7, time.Second},
		{1, 10 * time.Millisecond, 5, 50 * time.Millisecond},
		{24, 24 * time.Hour, 1, time.Hour},
	} {
		tokens, every := refill(tc.requests, int64(tc.period))
		if tokens != tc.tokens || every != tc.every {
			t.Errorf("refill(%d/%s) = %d per %s, want %d per %s", tc.requests, tc.period, tokens, every, tc.tokens, tc.every)
		}
		// The rate is kept exactly.
		if tokens*int64(tc.period) != tc.requests*int64(every) {
			t.Errorf("refill(%d/%s) changes the rate", tc.requests, tc.period)
		}
	}
}

// A burst smaller than what Envoy must add per refill cannot be expressed:
// the field is an error (the rule fails closed), never a looser limit.
func TestRenderBurstTooSmall(t *testing.T) {
	p := decode(t, "spec:\n  rateLimit: {requests: 100, period: 1s, burst: 2}")
	if !p.IsValid() {
		t.Fatalf("invalid: %v", p.Invalid)
	}
	_, err := Kind{}.RenderField(policy.FieldInput{Key: FieldRateLimit, Values: []any{p.Values[FieldRateLimit]}, Contributors: []string{p.ID()}}, nil)
	if err == nil || !strings.Contains(err.Error(), "raise burst to at least 5") {
		t.Errorf("err = %v", err)
	}
}

func TestRenderFieldErrors(t *testing.T) {
	p := decode(t, okRate)
	for name, in := range map[string]policy.FieldInput{
		"no value":       {Key: FieldRateLimit},
		"two values":     {Key: FieldRateLimit, Values: []any{p.Values[FieldRateLimit], p.Values[FieldRateLimit]}, Contributors: []string{p.ID(), p.ID()}},
		"foreign ID":     {Key: FieldRateLimit, Values: []any{p.Values[FieldRateLimit]}, Contributors: []string{"gateway.kgateway.dev/TrafficPolicy/shop/p"}},
		"foreign value":  {Key: FieldRateLimit, Values: []any{"x"}, Contributors: []string{p.ID()}},
		"unparsed value": {Key: FieldRateLimit, Values: []any{&RateLimit{Requests: 1}}, Contributors: []string{p.ID()}},
	} {
		if _, err := (Kind{}).RenderField(in, nil); err == nil {
			t.Errorf("%s: want an error", name)
		}
	}
}

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
	cachev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cache/v3"
	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
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
	want := map[string][]string{FieldJWT: {CapJWT, CapRBAC, CapJWT}, FieldAPIKey: {CapAPIKey, CapAPIKey, CapAPIKey}, FieldRateLimit: {CapRateLimit}, FieldWAF: {CapWAF}, FieldCache: {CapCache}}
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
	for _, pair := range [][2]int{{OrderStrip, OrderJWT}, {OrderCache, OrderInternal}, {OrderJWT, OrderRateLimit}, {OrderClaims, OrderRateLimit}, {OrderAPIKey, OrderRateLimit}, {OrderRateLimit, OrderWAF}, {OrderWAF, OrderCache}, {OrderJWT, OrderClaims}} {
		if pair[0] >= pair[1] {
			t.Errorf("order %d must come before %d", pair[0], pair[1])
		}
	}
	if len(order) != 8 {
		t.Errorf("filters = %d, want 8 (the JWT's client headers, jwt, token checks, the key's client headers, api key, rate limit, cache, the key's internal header)", len(order))
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
		varies           string   // the Vary the route answers with (the cache key)
	}{
		{"token and key: sub first, the key's consumer behind a token without sub", jwt + key, "  rateLimit: {requests: 5, key: consumer}",
			internalSubjectHeader, false, internalConsumerHeader, []string{internalSubjectHeader, "!" + internalSubjectHeader + " " + internalConsumerHeader}, "", ""},
		// The consumer header forwards the one identity too: sub, else the
		// key's consumer (until hap34 the key's consumer, always).
		{"token and key with a consumer header", jwt + "    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n", "  rateLimit: {requests: 5, key: consumer}",
			"x-consumer", false, internalConsumerHeader, []string{"x-consumer", "!x-consumer " + internalConsumerHeader}, "x-consumer<-%REQ(x-haptic-consumer)%", ""},
		{"token and key with a consumer header, no rate limit", jwt + "    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n", "  cache: {}",
			"x-consumer", false, internalConsumerHeader, nil, "x-consumer<-%REQ(x-haptic-consumer)%", "x-consumer, " + internalConsumerHeader},
		{"key alone with a consumer header", "    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n", "  rateLimit: {requests: 5, key: consumer}",
			"", false, "X-Consumer", []string{"x-consumer"}, "", ""},
		{"token alone: sub, and none without it", jwt, "  rateLimit: {requests: 5, key: consumer}",
			internalConsumerHeader, true, "", []string{internalConsumerHeader}, "", ""},
		// An authenticated cache keys on the consumer (until hap34 one
		// consumer could be served another's cached response).
		{"token alone before a cache: a consumer is needed", jwt, "  cache: {ttlSeconds: 30}",
			internalConsumerHeader, true, "", nil, "", internalConsumerHeader},
		{"token alone, per-address limit: no consumer needed", jwt, "  rateLimit: {requests: 5}",
			"", false, "", []string{"remote_address"}, "", ""},
		{"key alone before a cache: the key always names one", key, "  cache: {}",
			"", false, internalConsumerHeader, nil, "", internalConsumerHeader},
		{"key alone before a cache with vary headers", key, "  cache: {varyHeaders: [Accept-Language, accept-language]}",
			"", false, internalConsumerHeader, nil, "", "accept-language, " + internalConsumerHeader},
		{"token and key before a cache: the key names one", jwt + key, "  cache: {}",
			internalSubjectHeader, false, internalConsumerHeader, nil, "", internalSubjectHeader + ", " + internalConsumerHeader},
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
						for _, h := range append(rt.GetRequestHeadersToAdd(), rt.GetResponseHeadersToAdd()...) {
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
			for _, f := range got[FieldAPIKey] {
				for _, c := range f.TypedPerFilterConfig {
					hm, ok := c.(*headermutationv3.HeaderMutationPerRoute)
					if !ok {
						continue
					}
					if err := hm.ValidateAll(); err != nil {
						t.Errorf("Envoy refuses %s's route config: %v", f.Filter.Name, err)
					}
					for _, m := range hm.GetMutations().GetRequestMutations() {
						if h := m.GetAppend(); h.GetAppendAction() == corev3.HeaderValueOption_ADD_IF_ABSENT {
							fills = h.GetHeader().GetKey() + "<-" + h.GetHeader().GetValue()
						}
					}
				}
			}
			if fills != tt.fills {
				t.Errorf("the route fills %q, want %q", fills, tt.fills)
			}
			var varies string
			if frags := got[FieldCache]; len(frags) > 0 {
				if rt, ok := frags[0].TypedRoute.(*routev3.Route); ok {
					for _, h := range rt.GetResponseHeadersToAdd() {
						varies = h.GetHeader().GetValue()
					}
				}
				allowed := map[string]bool{}
				for _, m := range frags[0].Filter.Typed.(*cachev3.CacheConfig).GetAllowedVaryHeaders() {
					allowed[m.GetExact()] = true
				}
				for _, h := range strings.Split(varies, ", ") {
					if h != "" && !allowed[h] {
						t.Errorf("the route varies on %s, which the cache does not allow", h)
					}
				}
			}
			if varies != tt.varies {
				t.Errorf("the route varies on %q, want %q", varies, tt.varies)
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

// TestRenderTokenChecks: what HAPTIC's token check requires of a token
// (60-jwt-auth.yaml@01f16cac: frontend-filters-858-haptic-jwt) beyond what
// jwt_authn checks is rendered as an RBAC check on the token jwt_authn
// verified — its header's alg equal to the configured algorithm, an aud
// that is the one audience string — and exp/nbf are checked with
// jwt_authn's smallest clock skew, 1 s (HAPTIC has none; 0 is jwt_authn's
// 60 s). The headers the authentication writes are removed from the
// client's request before it runs (HAPTIC del-headers the forwarded
// claims; its consumer is set once), and gwpol's internal consumer
// headers after the rate limit and the cache have read them, so they
// never reach the backend. Until hap36 a PS256 token passed an RS256
// policy, an aud array holding the audience passed, a token expired 59 s
// ago passed, a client's X-Haptic-Consumer reached the rate limit beside
// the token's sub, and the internal headers reached the backend.
func TestRenderTokenChecks(t *testing.T) {
	tests := []struct {
		name, spec string
		alg, aud   string   // the RBAC check's alg and aud ("" aud: none)
		claims     int      // required claims checked
		client     []string // removed before authentication, all parts
		internal   []string // removed before the backend, all parts
	}{
		{"default algorithm, no audience", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n  rateLimit: {requests: 5}",
			"RS256", "", 0, nil, nil},
		{"an audience is one string", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}, algorithm: ES256, audience: orders, requiredClaims: [tenant]}\n  rateLimit: {requests: 5}",
			"ES256", "orders", 1, nil, nil},
		{"forwarded claims are the token's alone", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}, forwardClaims: [{claim: email, header: X-Email}, {claim: tenant, header: Host}]}\n  rateLimit: {requests: 5}",
			"RS256", "", 0, []string{"x-email"}, nil},
		{"a per-consumer limit on the token: its internal header stays inside", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n  rateLimit: {requests: 5, key: consumer}",
			"RS256", "", 0, []string{internalConsumerHeader}, []string{internalConsumerHeader}},
		{"token and key before a cache: both internal headers stay inside", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n    apiKey: {secretRef: {name: api-keys}}\n  cache: {}",
			"RS256", "", 0, []string{internalSubjectHeader, internalConsumerHeader}, []string{internalSubjectHeader, internalConsumerHeader}},
		{"a consumer header the client sends is replaced", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}\n    apiKey: {secretRef: {name: api-keys}, consumerHeader: X-Consumer}\n  rateLimit: {requests: 5, key: consumer}",
			"RS256", "", 0, []string{"x-consumer", internalConsumerHeader}, []string{internalConsumerHeader}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decode(t, tt.spec)
			if !p.IsValid() {
				t.Fatalf("invalid: %v", p.Invalid)
			}
			got := renderAll(t, p)
			var client, internal []string
			var alg, aud string
			claims := 0
			for _, frags := range got {
				for _, f := range frags {
					if f.Filter == nil {
						continue
					}
					if v, ok := f.Filter.Typed.(interface{ ValidateAll() error }); ok {
						if err := v.ValidateAll(); err != nil {
							t.Errorf("Envoy refuses %s: %v", f.Filter.Name, err)
						}
					}
					if jw, ok := f.Filter.Typed.(*jwtv3.JwtAuthentication); ok {
						for _, prov := range jw.GetProviders() {
							if prov.GetClockSkewSeconds() != 1 {
								t.Errorf("clock skew %d s, want 1 (HAPTIC has none; 0 is jwt_authn's 60)", prov.GetClockSkewSeconds())
							}
							if prov.GetHeaderInMetadata() == "" || prov.GetPayloadInMetadata() == "" {
								t.Errorf("the token's header and payload are not kept for the checks: %v", prov)
							}
						}
					}
					for _, c := range f.TypedPerFilterConfig {
						if err := c.(interface{ ValidateAll() error }).ValidateAll(); err != nil {
							t.Errorf("Envoy refuses %s's route config: %v", f.Filter.Name, err)
						}
						switch c := c.(type) {
						case *headermutationv3.HeaderMutationPerRoute:
							for _, m := range c.GetMutations().GetRequestMutations() {
								if r := m.GetRemove(); r != "" && f.Filter.Order < OrderJWT {
									client = append(client, r)
								} else if r != "" {
									internal = append(internal, r)
								}
							}
						case *rbacfilterv3.RBACPerRoute:
							for _, pr := range c.GetRbac().GetRules().GetPolicies()["token-checks"].GetPrincipals()[0].GetAndIds().GetIds() {
								//lint:ignore SA1019 reads the principal render writes
								md := pr.GetMetadata()
								last := md.GetPath()[len(md.GetPath())-1].GetKey()
								switch {
								case last == "alg":
									alg = md.GetValue().GetStringMatch().GetExact()
								case last == "aud":
									aud = md.GetValue().GetStringMatch().GetExact()
								case md.GetValue().GetPresentMatch():
									claims++
								}
							}
						}
					}
				}
			}
			slices.Sort(client)
			slices.Sort(internal)
			want := func(hs []string) []string { hs = slices.Clone(hs); slices.Sort(hs); return slices.Compact(hs) }
			client = slices.Compact(client)
			if alg != tt.alg || aud != tt.aud || claims != tt.claims {
				t.Errorf("checks alg %q aud %q claims %d, want %q %q %d", alg, aud, claims, tt.alg, tt.aud, tt.claims)
			}
			if !slices.Equal(client, want(tt.client)) || !slices.Equal(internal, want(tt.internal)) {
				t.Errorf("removed from the client %v (want %v), before the backend %v (want %v)", client, want(tt.client), internal, want(tt.internal))
			}
		})
	}
}

// TestTokenCheckNote: explain says, on a rule whose policy has a JWT,
// what HAPTIC's token check refuses and how close the rendered Envoy
// config comes (jwt_authn alone would take another algorithm, an aud
// array and 60 s of clock skew).
func TestTokenCheckNote(t *testing.T) {
	tests := []struct {
		name, spec string
		want       []string // in the note
		not        string
	}{
		{"algorithm and audience", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-ec}, algorithm: ES256, audience: orders}",
			[]string{"alg is not ES256", `the one string "orders"`, "403", "1 s"}, ""},
		{"no audience", "spec:\n  authentication:\n    jwt: {secretRef: {name: jwt-key}}",
			[]string{"alg is not RS256", "no clock skew"}, "aud that"},
		{"an API key alone: no note", "spec:\n  authentication:\n    apiKey: {secretRef: {name: api-keys}}", nil, "alg"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := decode(t, tt.spec)
			notes := Kind{}.RuleNotes(nil, func(key string) []any {
				if v, ok := p.Values[key]; ok {
					return []any{v}
				}
				return nil
			})
			got := strings.Join(notes, "\n")
			for _, w := range tt.want {
				if !strings.Contains(got, w) {
					t.Errorf("note %q lacks %q", got, w)
				}
			}
			if tt.want == nil && got != "" || tt.not != "" && strings.Contains(got, tt.not) {
				t.Errorf("note %q", got)
			}
		})
	}
}

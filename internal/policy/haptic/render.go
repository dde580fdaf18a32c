package haptic

import (
	"fmt"
	"math"
	"strings"
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	commonratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cache/v3"
	jwtv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/jwt_authn/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	simplehttpcachev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/cache/simple_http_cache/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// Capabilities the fields need from a render target. waf has no upstream
// Envoy filter, so a target without it reports unsupported and the rule
// fails closed.
const (
	CapJWT       = "jwt_authn"
	CapAPIKey    = "api_key_auth"
	CapRateLimit = "local_ratelimit"
	CapCache     = "response_cache"
	CapWAF       = "waf"
	// CapRBAC checks the claims a verified token must carry
	// (jwt.requiredClaims), which jwt_authn alone does not.
	CapRBAC = "rbac"
)

// Filter order in the HCM chain: authentication, then the rate limit (so
// a per-consumer limit sees the authenticated consumer), then WAF, then the
// cache (so a cached response is served only to requests that passed
// everything before it).
const (
	OrderJWT       = 1100
	OrderClaims    = 1110
	OrderAPIKey    = 1120
	OrderRateLimit = 1200
	OrderWAF       = 1300
	OrderCache     = 1400
)

// maxDynamicDescriptors bounds the per-client buckets of a per-ip or
// per-consumer rate limit (Envoy's default of 20 would evict clients
// almost at once).
const maxDynamicDescriptors = 100000

// minFillInterval is Envoy's smallest token bucket refill interval.
const minFillInterval = 50 * time.Millisecond

const jwtAuthnMetadata = "envoy.filters.http.jwt_authn"

// filterName names a per-policy HTTP filter: Envoy keeps one filter
// instance per name, so what a policy shares across its rules (a rate-limit
// budget, its JWT provider) lives in a filter of its own, enabled on each
// of its routes.
func filterName(extension, ns, name string) string {
	return extension + "/haproxyroutepolicy/" + ns + "/" + name
}

// enable is the per-route entry that turns on the filter n, disabled in
// the chain, with the filter's own configuration (an empty config).
func enable(n string) map[string]proto.Message {
	return map[string]proto.Message{n: &routev3.FilterConfig{Config: &anypb.Any{}}}
}

// RenderField implements policy.Renderer. Every field renders per Route:
// a filter per policy in the chain (disabled by default) and a
// typed_per_filter_config entry that enables it on the rule's routes.
func (Kind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) != 1 || len(in.Contributors) != 1 {
		return nil, fmt.Errorf("%s %s: want exactly one policy, got %d", KindName, in.Key, len(in.Values))
	}
	ns, name, err := policyName(in.Contributors[0])
	if err != nil {
		return nil, err
	}
	switch v := in.Values[0].(type) {
	case *JWT:
		return renderJWT(v, ns, name), nil
	case *APIKey:
		return renderAPIKey(v, ns, name), nil
	case *RateLimit:
		return renderRateLimit(v, ns, name)
	case *WAF:
		return renderWAF(v, ns), nil
	case *Cache:
		return renderCache(v, ns, name)
	}
	return nil, fmt.Errorf("%s %s: unexpected value %T", KindName, in.Key, in.Values[0])
}

// WAFMetadataKey is the route metadata under which a WAF selection is
// rendered.
const WAFMetadataKey = Group + "/waf"

// renderWAF names the WAF policy a rule runs and where it comes from, as
// route metadata: HAPTIC runs it in its Coraza SPOA, for which upstream
// Envoy has no filter, so only a target with the waf capability (HAPTIC's)
// takes it; any other fails the rule closed.
func renderWAF(w *WAF, ns string) []policy.Fragment {
	sel := map[string]*structpb.Value{"policy": structpb.NewStringValue(w.Policy)}
	if w.trustedSource != "" {
		sel["trusted"] = structpb.NewStringValue(w.trustedSource)
	} else {
		sel["catalog"] = structpb.NewStringValue(ns + "/" + w.CatalogRef.Name + "/" + w.CatalogRef.Key)
	}
	if w.requestBody != "" {
		sel["requestBodyMode"] = structpb.NewStringValue(w.requestBody)
	}
	return []policy.Fragment{{
		Capability: CapWAF,
		TypedRoute: &routev3.Route{Metadata: &corev3.Metadata{
			FilterMetadata: map[string]*structpb.Struct{WAFMetadataKey: {Fields: sel}}}},
	}}
}

// policyName splits a policy ID group/kind/namespace/name.
func policyName(id string) (string, string, error) {
	parts := strings.Split(id, "/")
	if len(parts) != 4 || parts[0] != Group || parts[1] != KindName {
		return "", "", fmt.Errorf("%q is not a %s ID", id, KindName)
	}
	return parts[2], parts[3], nil
}

// renderJWT is one jwt_authn filter per policy holding its provider (the
// policy's identity), and a per-route requirement naming it.
func renderJWT(j *JWT, ns, name string) []policy.Fragment {
	id := PolicyIdentity(ns, name)
	provider := &jwtv3.JwtProvider{
		Issuer: j.Issuer,
		// The key is the Secret's pubkey.pem as mounted on the data plane
		// (render's shared convention), never inlined.
		JwksSourceSpecifier: &jwtv3.JwtProvider_LocalJwks{LocalJwks: &corev3.DataSource{
			Specifier: &corev3.DataSource_Filename{Filename: policy.SecretFile(ns, j.SecretRef.Name, JWTSecretKey)}}},
		ClaimToHeaders: claimHeaders(j),
	}
	if j.Audience != "" {
		provider.Audiences = []string{j.Audience}
	}
	if len(j.RequiredClaims) > 0 {
		provider.PayloadInMetadata = id
	}
	if j.requireSubject {
		// A token without sub names no consumer: jwt_authn refuses it
		// (401), as HAPTIC denies a request without a consumer.
		provider.Subjects = &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{
			SafeRegex: &matcherv3.RegexMatcher{Regex: ".+"}}}
	}
	jwtName := filterName("envoy.filters.http.jwt_authn", ns, name)
	out := []policy.Fragment{{
		Capability: CapJWT,
		Filter: &policy.HTTPFilter{Name: jwtName, Order: OrderJWT, Typed: &jwtv3.JwtAuthentication{
			Providers: map[string]*jwtv3.JwtProvider{id: provider},
			RequirementMap: map[string]*jwtv3.JwtRequirement{id: {
				RequiresType: &jwtv3.JwtRequirement_ProviderName{ProviderName: id}}},
		}},
		TypedPerFilterConfig: map[string]proto.Message{jwtName: &jwtv3.PerRouteConfig{
			RequirementSpecifier: &jwtv3.PerRouteConfig_RequirementName{RequirementName: id}}},
	}}
	if len(j.RequiredClaims) == 0 {
		return out
	}
	return append(out, renderClaims(j.RequiredClaims, id, ns, name))
}

// claimHeaders are the claims copied into request headers: those
// forwarded to the backend, then the consumer a per-consumer rate limit
// counts.
func claimHeaders(j *JWT) []*jwtv3.JwtClaimToHeader {
	var out []*jwtv3.JwtClaimToHeader
	for _, f := range j.ForwardClaims {
		out = append(out, &jwtv3.JwtClaimToHeader{HeaderName: f.Header, ClaimName: f.Claim})
	}
	if j.consumerHeader != "" {
		out = append(out, &jwtv3.JwtClaimToHeader{HeaderName: j.consumerHeader, ClaimName: "sub"})
	}
	return out
}

// renderClaims checks the claims a verified token must carry: jwt_authn
// verifies tokens but not their claims, so an RBAC filter right after it
// requires each claim in the payload jwt_authn stored under the policy's
// identity.
func renderClaims(claims []string, id, ns, name string) policy.Fragment {
	var ids []*rbacv3.Principal
	for _, c := range claims {
		path := []*matcherv3.MetadataMatcher_PathSegment{pathKey(id)}
		for _, k := range strings.Split(c, ".") {
			path = append(path, pathKey(k))
		}
		ids = append(ids, &rbacv3.Principal{
			//lint:ignore SA1019 the rendered config names metadata, and typed building must not change it
			Identifier: &rbacv3.Principal_Metadata{Metadata: &matcherv3.MetadataMatcher{
				Filter: jwtAuthnMetadata, Path: path,
				Value: &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_PresentMatch{PresentMatch: true}},
			}}})
	}
	rbacName := filterName("envoy.filters.http.rbac", ns, name)
	return policy.Fragment{
		Capability: CapRBAC,
		Filter:     &policy.HTTPFilter{Name: rbacName, Order: OrderClaims, Typed: &rbacfilterv3.RBAC{}},
		TypedPerFilterConfig: map[string]proto.Message{rbacName: &rbacfilterv3.RBACPerRoute{Rbac: &rbacfilterv3.RBAC{
			Rules: &rbacv3.RBAC{
				Action: rbacv3.RBAC_ALLOW,
				Policies: map[string]*rbacv3.Policy{"required-claims": {
					Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
					Principals: []*rbacv3.Principal{{Identifier: &rbacv3.Principal_AndIds{
						AndIds: &rbacv3.Principal_Set{Ids: ids}}}},
				}},
			}}}},
	}
}

// pathKey is one step of a metadata path.
func pathKey(k string) *matcherv3.MetadataMatcher_PathSegment {
	return &matcherv3.MetadataMatcher_PathSegment{Segment: &matcherv3.MetadataMatcher_PathSegment_Key{Key: k}}
}

// renderAPIKey configures where the key is read and where its consumer
// goes. The keys themselves stay in their Secret: Envoy's api_key_auth has
// no secret discovery, and gwpol never inlines credentials, so until the
// deployment supplies them the filter rejects every request (closed, not
// open).
func renderAPIKey(a *APIKey, ns, name string) []policy.Fragment {
	n := filterName("envoy.filters.http.api_key_auth", ns, name)
	cfg := &apikeyauthv3.ApiKeyAuth{KeySources: []*apikeyauthv3.KeySource{{Header: a.Header}}}
	if a.forwardHeader != "" {
		cfg.Forwarding = &apikeyauthv3.Forwarding{Header: a.forwardHeader}
	}
	f := policy.Fragment{
		Capability:           CapAPIKey,
		Filter:               &policy.HTTPFilter{Name: n, Order: OrderAPIKey, Typed: cfg},
		TypedPerFilterConfig: enable(n),
	}
	if a.identityHeader != "" {
		// The token's sub is in the consumer header when it had one; the
		// key's consumer fills it otherwise.
		f.TypedRoute = &routev3.Route{RequestHeadersToAdd: []*corev3.HeaderValueOption{{
			Header:       &corev3.HeaderValue{Key: a.identityHeader, Value: "%REQ(" + a.forwardHeader + ")%"},
			AppendAction: corev3.HeaderValueOption_ADD_IF_ABSENT,
		}}}
	}
	return []policy.Fragment{f}
}

// renderRateLimit is one local_ratelimit filter per policy, so that every
// rule using the policy draws from one budget (a per-route configuration
// would give each route a bucket of its own). Buckets are per client
// address or per consumer, through wildcard descriptors. token-bucket and
// gcra allow the same traffic (GCRA is a token bucket scheduled by
// emission time), so both render as Envoy's token bucket.
func renderRateLimit(r *RateLimit, ns, name string) ([]policy.Fragment, error) {
	if r.Burst == nil || *r.Burst > math.MaxUint32 || r.Requests < 1 || r.periodNanos <= 0 {
		return nil, fmt.Errorf("rateLimit of %s %s/%s is not valid", KindName, ns, name)
	}
	tokens, every := refill(r.Requests, r.periodNanos)
	if tokens > *r.Burst {
		return nil, fmt.Errorf("rateLimit of %s %s/%s: Envoy refills at most every %s, adding %d tokens, more than burst %d holds; raise burst to at least %d",
			KindName, ns, name, minFillInterval, tokens, *r.Burst, tokens)
	}
	bucket := func() *typev3.TokenBucket {
		return &typev3.TokenBucket{MaxTokens: uint32(*r.Burst), TokensPerFill: wrapperspb.UInt32(uint32(tokens)), FillInterval: durationpb.New(every)}
	}
	limits, entries := bucketKeys(r)
	var descriptors []*commonratelimitv3.LocalRateLimitDescriptor
	for _, e := range entries {
		descriptors = append(descriptors, &commonratelimitv3.LocalRateLimitDescriptor{Entries: e, TokenBucket: bucket()})
	}
	n := filterName("envoy.filters.http.local_ratelimit", ns, name)
	return []policy.Fragment{{
		Capability: CapRateLimit,
		Filter: &policy.HTTPFilter{Name: n, Order: OrderRateLimit, Typed: &localratelimitv3.LocalRateLimit{
			StatPrefix:                      PolicyIdentity(ns, name),
			TokenBucket:                     bucket(),
			FilterEnabled:                   always(),
			FilterEnforced:                  always(),
			RateLimits:                      limits,
			Descriptors:                     descriptors,
			AlwaysConsumeDefaultTokenBucket: wrapperspb.Bool(false),
			MaxDynamicDescriptors:           wrapperspb.UInt32(maxDynamicDescriptors),
		}},
		TypedPerFilterConfig: enable(n),
	}}, nil
}

// bucketKeys are the rate limits that split the budget into buckets and
// the descriptors they fill in: the client address, or the consumer
// header authentication writes. With a fallback (a token's sub first,
// else the API key's consumer), a second rate limit reads the fallback
// header only when the first is absent.
func bucketKeys(r *RateLimit) ([]*routev3.RateLimit, [][]*commonratelimitv3.RateLimitDescriptor_Entry) {
	if r.Key != "consumer" {
		return []*routev3.RateLimit{{Actions: []*routev3.RateLimit_Action{{ActionSpecifier: &routev3.RateLimit_Action_RemoteAddress_{
				RemoteAddress: &routev3.RateLimit_Action_RemoteAddress{}}}}}},
			[][]*commonratelimitv3.RateLimitDescriptor_Entry{{{Key: "remote_address"}}}
	}
	header := func(h string) *routev3.RateLimit_Action {
		return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RequestHeaders_{
			RequestHeaders: &routev3.RateLimit_Action_RequestHeaders{HeaderName: h, DescriptorKey: "consumer"}}}
	}
	limits := []*routev3.RateLimit{{Actions: []*routev3.RateLimit_Action{header(r.consumerHeader)}}}
	entries := [][]*commonratelimitv3.RateLimitDescriptor_Entry{{{Key: "consumer"}}}
	if r.fallbackHeader == "" {
		return limits, entries
	}
	absent := &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_HeaderValueMatch_{
		HeaderValueMatch: &routev3.RateLimit_Action_HeaderValueMatch{
			DescriptorKey:   fallbackKey,
			DescriptorValue: fallbackValue,
			ExpectMatch:     wrapperspb.Bool(false),
			Headers: []*routev3.HeaderMatcher{{Name: r.consumerHeader,
				HeaderMatchSpecifier: &routev3.HeaderMatcher_PresentMatch{PresentMatch: true}}},
		}}}
	limits = append(limits, &routev3.RateLimit{Actions: []*routev3.RateLimit_Action{absent, header(r.fallbackHeader)}})
	entries = append(entries, []*commonratelimitv3.RateLimitDescriptor_Entry{{Key: fallbackKey, Value: fallbackValue}, {Key: "consumer"}})
	return limits, entries
}

// fallbackKey and fallbackValue mark the descriptor of a consumer read
// from the fallback header.
const (
	fallbackKey   = "consumer_source"
	fallbackValue = "api_key"
)

// always is a filter_enabled / filter_enforced of 100%.
func always() *corev3.RuntimeFractionalPercent {
	return &corev3.RuntimeFractionalPercent{DefaultValue: &typev3.FractionalPercent{Numerator: 100, Denominator: typev3.FractionalPercent_HUNDRED}}
}

// refill turns requests per period into the smallest steady refill Envoy
// accepts: tokens every interval, with interval ≥ 50ms.
func refill(requests, periodNanos int64) (int64, time.Duration) {
	g := gcd(requests, periodNanos)
	tokens, every := requests/g, periodNanos/g
	if every < int64(minFillInterval) {
		k := (int64(minFillInterval) + every - 1) / every
		tokens, every = tokens*k, every*k
	}
	return tokens, time.Duration(every)
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}

// renderCache is Envoy's cache filter with the in-memory store, one per
// policy (its limits are filter-wide). Envoy takes freshness from the
// response's Cache-Control; ttlSeconds is HAPTIC's upper bound on it and
// has no Envoy equivalent, so it is not rendered.
func renderCache(c *Cache, ns, name string) ([]policy.Fragment, error) {
	if m := c.MaxObjectSizeBytes; m != nil && (*m < 1 || *m > math.MaxUint32) {
		return nil, fmt.Errorf("cache of %s %s/%s is not valid", KindName, ns, name)
	}
	store, err := anypb.New(&simplehttpcachev3.SimpleHttpCacheConfig{})
	if err != nil {
		return nil, err
	}
	cfg := &cachev3.CacheConfig{TypedConfig: store}
	if c.MaxObjectSizeBytes != nil {
		cfg.MaxBodyBytes = uint32(*c.MaxObjectSizeBytes)
	}
	for _, h := range c.VaryHeaders {
		cfg.AllowedVaryHeaders = append(cfg.AllowedVaryHeaders, &matcherv3.StringMatcher{
			MatchPattern: &matcherv3.StringMatcher_Exact{Exact: strings.ToLower(h)}, IgnoreCase: true})
	}
	n := filterName("envoy.filters.http.cache", ns, name)
	return []policy.Fragment{{
		Capability:           CapCache,
		Filter:               &policy.HTTPFilter{Name: n, Order: OrderCache, Typed: cfg},
		TypedPerFilterConfig: enable(n),
	}}, nil
}

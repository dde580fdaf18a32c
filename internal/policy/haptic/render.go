package haptic

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"time"

	mutationrulesv3 "github.com/envoyproxy/go-control-plane/envoy/config/common/mutation_rules/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	commonratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	apikeyauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/api_key_auth/v3"
	cachev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cache/v3"
	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
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
	"github.com/gwpol/gwpol/internal/topology"
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
	// CapRBAC checks what HAPTIC's token check requires of a verified
	// token beyond jwt_authn's: its header's alg, a one-string aud, the
	// required claims.
	CapRBAC = "rbac"
)

// Filter order in the HCM chain: authentication, then the rate limit (so
// a per-consumer limit sees the authenticated consumer), then WAF, then the
// cache (so a cached response is served only to requests that passed
// everything before it).
const (
	OrderStrip     = 1050
	OrderJWT       = 1100
	OrderClaims    = 1110
	OrderAPIKey    = 1120
	OrderRateLimit = 1200
	OrderWAF       = 1300
	OrderCache     = 1400
	// OrderInternal runs after everything that reads the internal
	// consumer headers (the rate limit, the cache key), before the
	// router forwards the request.
	OrderInternal = 1450
)

// minClockSkew is the smallest clock skew jwt_authn takes: 0 is its
// default of 60 s (authenticator.cc: clock_skew_seconds() > 0, else
// kClockSkewInSecond), and HAPTIC checks exp and nbf with none.
const minClockSkew = 1

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
	// HAPTIC's token check (60-jwt-auth.yaml@01f16cac:
	// frontend-filters-858-haptic-jwt) compares exp and nbf with the
	// clock as they are; the RBAC check after jwt_authn reads the token's
	// header and payload for what jwt_authn does not check.
	provider.ClockSkewSeconds = minClockSkew
	provider.PayloadInMetadata = id
	provider.HeaderInMetadata = tokenHeaderKey(id)
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
	out = append(out, renderTokenChecks(j, id, ns, name))
	return append(out, headerFragments(ns, name, "jwt", CapJWT, jwtWritten(j), internalOnly(j.consumerHeader), nil)...)
}

// tokenHeaderKey is the dynamic metadata key under which jwt_authn keeps a
// verified token's header for the policy whose identity is id.
func tokenHeaderKey(id string) string { return id + ".header" }

// jwtWritten are the request headers the JWT check writes: the forwarded
// claims and the header the token's sub goes into.
func jwtWritten(j *JWT) []string {
	var out []string
	for _, f := range j.ForwardClaims {
		out = append(out, f.Header)
	}
	if j.consumerHeader != "" {
		out = append(out, j.consumerHeader)
	}
	return out
}

// internalOnly is h when it is one of HAPTIC's internal consumer
// headers, which gwpol writes only for its own filters: HAPTIC keeps the
// consumer in a transaction variable, so it never reaches the backend.
func internalOnly(hs ...string) []string {
	var out []string
	for _, h := range hs {
		if h == internalConsumerHeader || h == internalSubjectHeader {
			out = append(out, h)
		}
	}
	return out
}

// headerFragments are the header_mutation filters of one authentication
// section (part) of a policy: before authentication, the headers it
// writes are removed from the client's request, as HAPTIC's del-header
// of the forwarded claims and its set-once consumer make sure no client
// supplies them; after the rate limit and the cache read them, fill are
// added (ADD_IF_ABSENT, with their formatted values) and the internal
// headers removed, so they never reach the backend. A header Envoy does
// not let a filter remove (host, pseudo-headers) is left as it is.
//
// The filters are part of how the section is expressed, so they take its
// capability (capability: jwt_authn or api_key_auth): a target that
// expresses the section expresses them, and a target's header_mutation
// capability stays what it says of other kinds' header modifiers.
func headerFragments(ns, name, part, capability string, written, internal []string, fill []*corev3.HeaderValueOption) []policy.Fragment {
	var out []policy.Fragment
	removals := func(hs []string) []*mutationrulesv3.HeaderMutation {
		var ms []*mutationrulesv3.HeaderMutation
		seen := map[string]bool{}
		for _, h := range hs {
			h = strings.ToLower(h)
			if h == "" || h == "host" || strings.HasPrefix(h, ":") || seen[h] {
				continue
			}
			seen[h] = true
			ms = append(ms, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_Remove{Remove: h}})
		}
		return ms
	}
	if ms := removals(written); len(ms) > 0 {
		n := filterName("envoy.filters.http.header_mutation/"+part+"-client", ns, name)
		out = append(out, policy.Fragment{
			Capability:           capability,
			Filter:               &policy.HTTPFilter{Name: n, Order: OrderStrip, Typed: &headermutationv3.HeaderMutation{}},
			TypedPerFilterConfig: map[string]proto.Message{n: &headermutationv3.HeaderMutationPerRoute{Mutations: &headermutationv3.Mutations{RequestMutations: ms}}},
		})
	}
	var after []*mutationrulesv3.HeaderMutation
	for _, f := range fill {
		after = append(after, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_Append{Append: f}})
	}
	after = append(after, removals(internal)...)
	if len(after) > 0 {
		n := filterName("envoy.filters.http.header_mutation/"+part+"-internal", ns, name)
		out = append(out, policy.Fragment{
			Capability:           capability,
			Filter:               &policy.HTTPFilter{Name: n, Order: OrderInternal, Typed: &headermutationv3.HeaderMutation{}},
			TypedPerFilterConfig: map[string]proto.Message{n: &headermutationv3.HeaderMutationPerRoute{Mutations: &headermutationv3.Mutations{RequestMutations: after}}},
		})
	}
	return out
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

// renderTokenChecks is what HAPTIC's token check requires of a token
// jwt_authn has verified, and jwt_authn does not: an RBAC filter right
// after it reads the token's header and payload jwt_authn stored under
// the policy's identity and requires the header's alg to be the
// configured algorithm (jwt_authn verifies a PS256 token with the RSA key
// of an RS256 policy), the aud, when an audience is set, to be that one
// string (HAPTIC compares jwt_payload_query('$.aud') as a string, so an
// aud array fails; jwt_authn accepts an array holding it), and each
// required claim to be present. RBAC answers 403 where HAPTIC answers
// 401.
func renderTokenChecks(j *JWT, id, ns, name string) policy.Fragment {
	ids := []*rbacv3.Principal{metadataPrincipal([]string{tokenHeaderKey(id), "alg"}, exactString(j.Algorithm))}
	if j.Audience != "" {
		ids = append(ids, metadataPrincipal([]string{id, "aud"}, exactString(j.Audience)))
	}
	for _, c := range j.RequiredClaims {
		ids = append(ids, metadataPrincipal(append([]string{id}, strings.Split(c, ".")...),
			&matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_PresentMatch{PresentMatch: true}}))
	}
	rbacName := filterName("envoy.filters.http.rbac", ns, name)
	return policy.Fragment{
		Capability: CapRBAC,
		Filter:     &policy.HTTPFilter{Name: rbacName, Order: OrderClaims, Typed: &rbacfilterv3.RBAC{}},
		TypedPerFilterConfig: map[string]proto.Message{rbacName: &rbacfilterv3.RBACPerRoute{Rbac: &rbacfilterv3.RBAC{
			Rules: &rbacv3.RBAC{
				Action: rbacv3.RBAC_ALLOW,
				Policies: map[string]*rbacv3.Policy{"token-checks": {
					Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
					Principals: []*rbacv3.Principal{{Identifier: &rbacv3.Principal_AndIds{
						AndIds: &rbacv3.Principal_Set{Ids: ids}}}},
				}},
			}}}},
	}
}

// metadataPrincipal requires the value at path in jwt_authn's dynamic
// metadata to match v.
func metadataPrincipal(path []string, v *matcherv3.ValueMatcher) *rbacv3.Principal {
	var segs []*matcherv3.MetadataMatcher_PathSegment
	for _, k := range path {
		segs = append(segs, pathKey(k))
	}
	return &rbacv3.Principal{
		//lint:ignore SA1019 the rendered config names metadata, and typed building must not change it
		Identifier: &rbacv3.Principal_Metadata{Metadata: &matcherv3.MetadataMatcher{Filter: jwtAuthnMetadata, Path: segs, Value: v}}}
}

// exactString matches a string value equal to s (a list or a number does
// not match).
func exactString(s string) *matcherv3.ValueMatcher {
	return &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_StringMatch{StringMatch: &matcherv3.StringMatcher{
		MatchPattern: &matcherv3.StringMatcher_Exact{Exact: s}}}}
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
	var fill []*corev3.HeaderValueOption
	if a.identityHeader != "" {
		// The token's sub is in the consumer header when it had one; the
		// key's consumer fills it otherwise, before the internal header
		// that carries it is removed.
		fill = append(fill, &corev3.HeaderValueOption{
			Header:       &corev3.HeaderValue{Key: strings.ToLower(a.identityHeader), Value: "%REQ(" + a.forwardHeader + ")%"},
			AppendAction: corev3.HeaderValueOption_ADD_IF_ABSENT,
		})
	}
	return append([]policy.Fragment{f}, headerFragments(ns, name, "apikey", CapAPIKey, []string{a.forwardHeader, a.identityHeader}, internalOnly(a.forwardHeader), fill)...)
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
	var keyed []string
	for _, h := range append(slices.Clone(c.VaryHeaders), c.partition...) {
		if h = strings.ToLower(h); !slices.Contains(keyed, h) {
			keyed = append(keyed, h)
		}
	}
	for _, h := range keyed {
		cfg.AllowedVaryHeaders = append(cfg.AllowedVaryHeaders, &matcherv3.StringMatcher{
			MatchPattern: &matcherv3.StringMatcher_Exact{Exact: h}, IgnoreCase: true})
	}
	n := filterName("envoy.filters.http.cache", ns, name)
	f := policy.Fragment{
		Capability:           CapCache,
		Filter:               &policy.HTTPFilter{Name: n, Order: OrderCache, Typed: cfg},
		TypedPerFilterConfig: enable(n),
	}
	if len(keyed) > 0 {
		// Envoy's cache keys a response on the request headers its Vary
		// names: the route's answer names the varyHeaders and the
		// consumer's headers (the router adds it before the cache filter
		// stores the response), so they are in the key whatever the
		// origin's Vary says, as in HAPTIC's cache key.
		f.TypedRoute = &routev3.Route{ResponseHeadersToAdd: []*corev3.HeaderValueOption{{
			Header:       &corev3.HeaderValue{Key: "vary", Value: strings.Join(keyed, ", ")},
			AppendAction: corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD,
		}}}
	}
	return []policy.Fragment{f}, nil
}

// RuleNotes implements policy.RuleNoter: where a rule's token check is
// HAPTIC's and the rendered Envoy config can only come close
// (60-jwt-auth.yaml@01f16cac: frontend-filters-858-haptic-jwt).
func (Kind) RuleNotes(_ *topology.Rule, own func(string) []any) []string {
	var out []string
	for _, v := range own(FieldJWT) {
		j, ok := v.(*JWT)
		if !ok {
			continue
		}
		aud, checked, alone := "", "alg", "any RSA or EC algorithm the key fits"
		if j.Audience != "" {
			aud = fmt.Sprintf(", an aud that is not the one string %q (an aud array holding it too)", j.Audience)
			checked, alone = "alg and aud", alone+", an aud array"
		}
		out = append(out, fmt.Sprintf("HAPTIC refuses (401) a token whose header alg is not %s%s, and one past its exp or before its nbf with no clock skew; "+
			"the rendered Envoy config checks %s with RBAC after jwt_authn, which answers 403, and exp/nbf with jwt_authn's smallest skew, 1 s (jwt_authn alone would take %s, and 60 s of skew)",
			j.Algorithm, aud, checked, alone))
	}
	return out
}

package envoygateway

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"time"

	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	ratelimitconfv3 "github.com/envoyproxy/go-control-plane/envoy/config/ratelimit/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	commonratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/ratelimit/v3"
	localratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/local_ratelimit/v3"
	ratelimitv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ratelimit/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	metadatav3 "github.com/envoyproxy/go-control-plane/envoy/type/metadata/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders spec.rateLimit as Envoy Gateway does. A local rate
// limit is the local_ratelimit filter's per-route config: the default
// bucket, and per rule a descriptor whose entries the route's rate-limit
// actions produce. A global rate limit calls Envoy Gateway's rate limit
// service (cluster ratelimit_cluster) through the ratelimit filter, one
// per domain: the listener's (egListenerName) for the
// rules of one route, the policy's (<ns>/<policy>) for shared rules,
// whose counters every route of the policy shares. Each route's
// RateLimitPerRoute names the domain and the actions; an unshared rule's
// first action is a generic key holding Envoy Gateway's name of the
// route, so that every route counts apart.

const (
	localRateLimitFilter = "envoy.filters.http.local_ratelimit"
	rateLimitFilter      = "envoy.filters.http.ratelimit"
	// rateLimitCluster is the rate limit service's cluster.
	rateLimitCluster = "ratelimit_cluster"
	// defaultRateLimitURL is Envoy Gateway's rate limit Service in its
	// controller namespace.
	defaultRateLimitURL = "grpc://envoy-ratelimit.envoy-gateway-system.svc.cluster.local:8081"
	// rateLimitCA is the CA bundle Envoy Gateway mounts for the service's
	// certificate, and envoyClientCertNS/Name the Secret holding the
	// proxy's client certificate (served by SDS).
	rateLimitCA         = "/certs/ca.crt"
	envoyClientCertNS   = "envoy-gateway-system"
	envoyClientCertName = "envoy"
)

// rateLimitSettings is the rate limit service the deployment runs
// (config envoyGateway.rateLimit).
type rateLimitSettings struct {
	url        string
	timeout    time.Duration
	failClosed bool
}

func rateLimitConfig(env *policy.Env) rateLimitSettings {
	var s rateLimitSettings
	if env == nil {
		return s
	}
	s.url = RateLimitServiceURL.String(env.Config)
	if s.url == "" {
		s.url = defaultRateLimitURL
	}
	if t := RateLimitTimeout.String(env.Config); t != "" {
		s.timeout, _ = time.ParseDuration(t)
	}
	s.failClosed = RateLimitFailClosed.Bool(env.Config)
	return s
}

// renderRateLimit renders the rate limits in effect on a route. Where a
// route's policy merges into its Gateway's (mergeType), Envoy Gateway
// merges the two rate limits as it built them (mergeRateLimits), each
// rule keeping the name of the policy that wrote it. Contributors come
// most specific first.
func renderRateLimit(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	cfg := rateLimitConfig(env)
	var eff rlSet
	for i := len(in.Values) - 1; i >= 0; i-- {
		fv, err := valueOf(in.Values[i])
		if err != nil {
			return nil, fmt.Errorf("rateLimit: %w", err)
		}
		spec, err := typedAs[*egv1a1.RateLimitSpec](fv)
		if err != nil {
			return nil, fmt.Errorf("rateLimit: %w", err)
		}
		ns, name := "", ""
		if i < len(in.Contributors) {
			ns, name = splitID(in.Contributors[i])
		}
		// Whether a rate limit service is deployed is the policy's
		// status (Decode refuses a global rate limit without one, and
		// the routes of an invalid policy answer 500): render builds
		// what the value says.
		set, err := buildRateLimit(spec, ns, name, true)
		if err != nil {
			return nil, fmt.Errorf("rateLimit: %w", err)
		}
		eff = mergeRateLimits(eff, set, in.Strategy == policy.StrategicMerge)
	}
	var frags []policy.Fragment
	if eff.local != nil {
		frags = append(frags, localFragment(eff.local))
	}
	if eff.hasGl {
		f, err := globalFragment(eff.global, cfg)
		if err != nil {
			return nil, err
		}
		frags = append(frags, f)
	}
	if len(frags) == 0 {
		return nil, fmt.Errorf("rateLimit: neither a local nor a global rate limit")
	}
	return frags, nil
}

// mergeRateLimits merges the more specific policy's rate limits (patch)
// over the less specific one's (base), as Envoy Gateway merges the two
// it built: a part only one has is kept; the route's default local
// bucket wins (it always has one), its x-ratelimit option where it sets
// one; rules, named apart by policy, add up under StrategicMerge (the
// Gateway's first) and are replaced under JSONMerge — unless the route's
// list is empty, which leaves the Gateway's.
func mergeRateLimits(base, patch rlSet, strategic bool) rlSet {
	rules := func(b, p []rlRule) []rlRule {
		switch {
		case len(p) == 0:
			return b
		case strategic:
			return append(append([]rlRule{}, b...), p...)
		}
		return p
	}
	out := base
	if pl := patch.local; pl != nil {
		if bl := base.local; bl == nil {
			out.local = pl
		} else {
			l := *pl
			if l.xrl == nil {
				l.xrl = bl.xrl
			}
			l.rules = rules(bl.rules, pl.rules)
			out.local = &l
		}
	}
	if patch.hasGl {
		out.global = rules(base.global, patch.global)
		out.hasGl = true
	}
	return out
}

// localFragment is the local rate limit on the route: the filter stays
// on in the chain (without a bucket of its own it limits nothing but
// where a route's config says).
func localFragment(l *rlLocal) policy.Fragment {
	xrl := commonratelimitv3.XRateLimitHeadersRFCVersion_DRAFT_VERSION_03
	if deref(l.xrl) == "Off" {
		xrl = commonratelimitv3.XRateLimitHeadersRFCVersion_OFF
	}
	cfg := &localratelimitv3.LocalRateLimit{
		StatPrefix:                      "http_local_rate_limiter",
		TokenBucket:                     tokenBucket(l.requests, l.unit),
		FilterEnabled:                   percent100(),
		FilterEnforced:                  percent100(),
		EnableXRatelimitHeaders:         xrl,
		AlwaysConsumeDefaultTokenBucket: wrapperspb.Bool(false),
	}
	for ri := range l.rules {
		r := &l.rules[ri]
		for _, method := range methodsOrNone(r) {
			var b actions
			b.headers(r.headers, ri, 0)
			b.method(method, ri)
			b.path(r.path, ri)
			if c := r.cidr; c != nil {
				masked := fmt.Sprintf("rule-%d-masked-remote-address", ri)
				b.add(cidrAction(c, masked, cidrValue(c)), descEntry(masked, cidrValue(c)))
				if c.distinct {
					remote := fmt.Sprintf("rule-%d-remote-address", ri)
					b.add(cidrAction(c, remote, remoteAddressFormat), descEntry(remote, ""))
				}
			}
			b.queries(r.queries, ri, len(r.headers))
			cfg.RateLimits = append(cfg.RateLimits, &routev3.RateLimit{Actions: b.acts, XRatelimitOption: xRateLimitOption(r.xRateLimitHeaders)})
			cfg.Descriptors = append(cfg.Descriptors, &commonratelimitv3.LocalRateLimitDescriptor{
				Entries: b.entries, TokenBucket: tokenBucket(r.requests, r.unit), ShadowMode: r.shadow})
		}
	}
	return policy.Fragment{
		Capability: "local_ratelimit",
		Filter: &policy.HTTPFilter{Name: localRateLimitFilter, Order: orderLocalRateLimit, Enabled: true,
			Typed: &localratelimitv3.LocalRateLimit{StatPrefix: "http_local_rate_limiter", MaxDynamicDescriptors: wrapperspb.UInt32(10000)}},
		TypedPerFilterConfig: map[string]proto.Message{localRateLimitFilter: cfg},
	}
}

// globalFragment is the global rate limit: the rate limit service's
// cluster, and per route its filters and RateLimitPerRoute configs.
func globalFragment(rules []rlRule, cfg rateLimitSettings) (policy.Fragment, error) {
	cluster, err := rateLimitServiceCluster(cfg.url)
	if err != nil {
		return policy.Fragment{}, fmt.Errorf("rate limit service %q: %w", cfg.url, err)
	}
	return policy.Fragment{
		Capability:    "ratelimit",
		TypedClusters: []proto.Message{cluster},
		PerRoute: func(site policy.RouteSite) ([]policy.Fragment, error) {
			return globalPerRoute(rules, cfg, site), nil
		},
	}, nil
}

// globalPerRoute is one route's share of a global rate limit: its
// rate limits grouped by domain (the listener's, and each shared rule's
// policy's), and the filter of each domain.
func globalPerRoute(rules []rlRule, cfg rateLimitSettings, site policy.RouteSite) []policy.Fragment {
	listener := egListenerName(site)
	route := egRouteName(site)
	byDomain := map[string][]*routev3.RateLimit{}
	var domains []string
	for ri := range rules {
		r := &rules[ri]
		domain, key := listener, route
		if r.shared {
			domain, key = policyDomain(r.name), r.name
		}
		if _, ok := byDomain[domain]; !ok {
			domains = append(domains, domain)
		}
		di := domainRuleIndex(rules, ri)
		for _, method := range methodsOrNone(r) {
			var b actions
			b.acts = append(b.acts, genericKey(key, key))
			b.headers(r.headers, di, 0)
			b.method(method, di)
			b.path(r.path, di)
			if c := r.cidr; c != nil {
				b.acts = append(b.acts, cidrAction(c, "masked_remote_address", cidrValue(c)))
				if c.distinct {
					b.acts = append(b.acts, cidrAction(c, "remote_address", remoteAddressFormat))
				}
			}
			b.queries(r.queries, di, len(r.headers))
			if !r.matchSet() {
				k := fmt.Sprintf("rule-%d-match--1", di)
				b.acts = append(b.acts, genericKey(k, k))
			}
			rl := &routev3.RateLimit{Actions: b.acts, XRatelimitOption: xRateLimitOption(r.xRateLimitHeaders)}
			if md := r.fromMetadata; md != nil {
				rl.Limit = &routev3.RateLimit_Override{OverrideSpecifier: &routev3.RateLimit_Override_DynamicMetadata_{
					DynamicMetadata: &routev3.RateLimit_Override_DynamicMetadata{MetadataKey: &metadatav3.MetadataKey{
						Key: md.Namespace, Path: []*metadatav3.MetadataKey_PathSegment{{Segment: &metadatav3.MetadataKey_PathSegment_Key{Key: md.Key}}}}}}}
			}
			if c := r.requestCost; c != nil {
				rl.HitsAddend = hitsAddend(c)
			}
			byDomain[domain] = append(byDomain[domain], rl)
			if c := r.responseCost; c != nil {
				byDomain[domain] = append(byDomain[domain], &routev3.RateLimit{Actions: b.acts, ApplyOnStreamDone: true,
					XRatelimitOption: rl.XRatelimitOption, HitsAddend: hitsAddend(c), Limit: rl.Limit})
			}
		}
	}
	// The listener's filter is there whenever a route of the listener
	// has a global rate limit, shared or not.
	if _, ok := byDomain[listener]; !ok {
		domains = append(domains, listener)
	}
	var frags []policy.Fragment
	for _, d := range domains {
		name := rateLimitFilter
		if d != listener {
			name += "/" + d
		}
		f := policy.Fragment{Filter: &policy.HTTPFilter{Name: name, Order: orderRateLimit, Enabled: true, Typed: rateLimitFilterConfig(d, cfg)}}
		if rls, ok := byDomain[d]; ok {
			f.TypedPerFilterConfig = map[string]proto.Message{name: &ratelimitv3.RateLimitPerRoute{Domain: d, RateLimits: rls}}
		}
		frags = append(frags, f)
	}
	return frags
}

// egListenerName is Envoy Gateway's name of the listener serving a
// route: <gateway ns>/<gateway>/<listener>, or
// <gateway ns>/<gateway>/<listenerset ns>/<listenerset>/<listener> for a
// ListenerSet's.
func egListenerName(s policy.RouteSite) string {
	name := s.Gateway.Namespace + "/" + s.Gateway.Name + "/"
	if !s.ListenerSet.IsZero() {
		name += s.ListenerSet.Namespace + "/" + s.ListenerSet.Name + "/"
	}
	return name + s.Listener
}

// egRouteName is Envoy Gateway's name of a route:
// <kind>/<namespace>/<name>/rule/<i>/match/<j>/<hostname, dots as _>
// (match -1 for a rule without matches: not an HTTPRoute's, whose CRD
// gives such a rule the match PathPrefix /).
func egRouteName(s policy.RouteSite) string {
	return strings.ToLower(s.Kind) + "/" + s.Namespace + "/" + s.Name + "/rule/" + strconv.Itoa(s.Rule) +
		"/match/" + strconv.Itoa(s.Match) + "/" + strings.ReplaceAll(s.Hostname, ".", "_")
}

// policyDomain is a shared rule's domain: its policy's <ns>/<name>.
func policyDomain(rule string) string {
	if i := strings.LastIndex(rule, "/rule/"); i >= 0 {
		return rule[:i]
	}
	return rule
}

// domainRuleIndex numbers a rule among the rules of its domain (shared
// rules apart from the others).
func domainRuleIndex(rules []rlRule, ri int) int {
	n := 0
	for i := range ri {
		if rules[i].shared == rules[ri].shared {
			n++
		}
	}
	return n
}

// rateLimitFilterConfig is the ratelimit filter of one domain.
func rateLimitFilterConfig(domain string, cfg rateLimitSettings) *ratelimitv3.RateLimit {
	f := &ratelimitv3.RateLimit{
		Domain: domain,
		RateLimitService: &ratelimitconfv3.RateLimitServiceConfig{
			GrpcService: &corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{
				EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: rateLimitCluster}}},
			TransportApiVersion: corev3.ApiVersion_V3,
		},
		DisableXEnvoyRatelimitedHeader: true,
		EnableXRatelimitHeaders:        ratelimitv3.RateLimit_DRAFT_VERSION_03,
		FailureModeDeny:                cfg.failClosed,
	}
	if cfg.timeout > 0 {
		f.Timeout = durationpb.New(cfg.timeout)
	}
	return f
}

// rateLimitServiceCluster is the cluster of the rate limit service:
// gRPC (HTTP/2) over TLS, the proxy presenting Envoy Gateway's client
// certificate, resolving the service's host by DNS.
func rateLimitServiceCluster(raw string) (*clusterv3.Cluster, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, err
	}
	port, err := strconv.ParseUint(u.Port(), 10, 16)
	if err != nil || u.Hostname() == "" {
		return nil, fmt.Errorf("not a URL with a host and a port")
	}
	tls, err := anypb.New(&tlsv3.UpstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
		TlsParams: &tlsv3.TlsParameters{TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3},
		TlsCertificateSdsSecretConfigs: []*tlsv3.SdsSecretConfig{{
			Name:      policy.SecretSDSName(envoyClientCertNS, envoyClientCertName),
			SdsConfig: &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}},
		}},
		ValidationContextType: &tlsv3.CommonTlsContext_ValidationContext{ValidationContext: &tlsv3.CertificateValidationContext{
			TrustedCa: &corev3.DataSource{Specifier: &corev3.DataSource_Filename{Filename: rateLimitCA}}}},
	}})
	if err != nil {
		return nil, err
	}
	opts, err := anypb.New(&upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{
		ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{
			Http2ProtocolOptions: http2Windows()}}}})
	if err != nil {
		return nil, err
	}
	return &clusterv3.Cluster{
		Name:                 rateLimitCluster,
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STRICT_DNS},
		ConnectTimeout:       durationpb.New(10 * time.Second),
		LoadAssignment: &endpointv3.ClusterLoadAssignment{ClusterName: rateLimitCluster, Endpoints: []*endpointv3.LocalityLbEndpoints{{
			LbEndpoints: []*endpointv3.LbEndpoint{{HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
				Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
					Address: u.Hostname(), PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(port)}}}}}}}},
		}}},
		TransportSocket:               &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: tls}},
		TypedExtensionProtocolOptions: map[string]*anypb.Any{httpProtocolOptionsKey: opts},
	}, nil
}

// actions collects a rule's rate-limit actions and, for a local rate
// limit, the descriptor entries they produce.
type actions struct {
	acts    []*routev3.RateLimit_Action
	entries []*commonratelimitv3.RateLimitDescriptor_Entry
}

func (b *actions) add(a *routev3.RateLimit_Action, e *commonratelimitv3.RateLimitDescriptor_Entry) {
	b.acts = append(b.acts, a)
	b.entries = append(b.entries, e)
}

func descEntry(k, v string) *commonratelimitv3.RateLimitDescriptor_Entry {
	return &commonratelimitv3.RateLimitDescriptor_Entry{Key: k, Value: v}
}

// headers: a Distinct header is its value (rule-<i>-match-<j>), another
// a match of that key and value; j continues from offset.
func (b *actions) headers(ms []rlMatch, ri, offset int) {
	for j, m := range ms {
		key := fmt.Sprintf("rule-%d-match-%d", ri, offset+j)
		if m.distinct {
			b.add(&routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RequestHeaders_{
				RequestHeaders: &routev3.RateLimit_Action_RequestHeaders{HeaderName: m.name, DescriptorKey: key}}}, descEntry(key, ""))
			continue
		}
		b.add(headerValueMatch(key, m.name, m), descEntry(key, key))
	}
}

func (b *actions) method(m *rlMatch, ri int) {
	if m != nil {
		key := fmt.Sprintf("rule-%d-method", ri)
		b.add(headerValueMatch(key, ":method", *m), descEntry(key, key))
	}
}

func (b *actions) path(m *rlMatch, ri int) {
	if m != nil {
		key := fmt.Sprintf("rule-%d-path", ri)
		b.add(headerValueMatch(key, ":path", *m), descEntry(key, key))
	}
}

// queries: like headers, numbered after them.
func (b *actions) queries(ms []rlMatch, ri, offset int) {
	for j, m := range ms {
		key := fmt.Sprintf("rule-%d-match-%d", ri, offset+j)
		if m.distinct {
			b.add(&routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_QueryParameters_{
				QueryParameters: &routev3.RateLimit_Action_QueryParameters{QueryParameterName: m.name, DescriptorKey: key}}}, descEntry(key, ""))
			continue
		}
		b.add(&routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_QueryParameterValueMatch_{
			QueryParameterValueMatch: &routev3.RateLimit_Action_QueryParameterValueMatch{
				DescriptorKey: key, DescriptorValue: key, ExpectMatch: wrapperspb.Bool(!m.invert),
				QueryParameters: []*routev3.QueryParameterMatcher{{Name: m.name,
					QueryParameterMatchSpecifier: &routev3.QueryParameterMatcher_StringMatch{StringMatch: stringMatcher(m)}}},
			}}}, descEntry(key, key))
	}
}

func headerValueMatch(key, header string, m rlMatch) *routev3.RateLimit_Action {
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_HeaderValueMatch_{
		HeaderValueMatch: &routev3.RateLimit_Action_HeaderValueMatch{
			DescriptorKey: key, DescriptorValue: key, ExpectMatch: wrapperspb.Bool(!m.invert),
			Headers: []*routev3.HeaderMatcher{{Name: header, HeaderMatchSpecifier: &routev3.HeaderMatcher_StringMatch{StringMatch: stringMatcher(m)}}},
		}}}
}

func stringMatcher(m rlMatch) *matcherv3.StringMatcher {
	switch {
	case m.exact != nil:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: *m.exact}}
	case m.prefix != nil:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: *m.prefix}}
	case m.regex != nil:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: *m.regex}}}
	}
	return &matcherv3.StringMatcher{}
}

// remoteAddressFormat is the client's address, the descriptor value of
// a Distinct source CIDR (every address its own counter).
const remoteAddressFormat = "%DOWNSTREAM_REMOTE_ADDRESS_WITHOUT_PORT%"

// cidrValue is the descriptor value of a source CIDR, "invert:"-prefixed
// when inverted.
func cidrValue(c *rlCIDR) string {
	if c.invert {
		return "invert:" + c.cidr
	}
	return c.cidr
}

func cidrAction(c *rlCIDR, key, value string) *routev3.RateLimit_Action {
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_RemoteAddressMatch_{
		RemoteAddressMatch: &routev3.RateLimit_Action_RemoteAddressMatch{
			DescriptorKey: key, DescriptorValue: value,
			AddressMatcher: &matcherv3.AddressMatcher{InvertMatch: c.invert, Ranges: []*xdscorev3.CidrRange{{
				AddressPrefix: c.addr, PrefixLen: wrapperspb.UInt32(c.bits)}}},
		}}}
}

func genericKey(k, v string) *routev3.RateLimit_Action {
	return &routev3.RateLimit_Action{ActionSpecifier: &routev3.RateLimit_Action_GenericKey_{
		GenericKey: &routev3.RateLimit_Action_GenericKey{DescriptorKey: k, DescriptorValue: v}}}
}

// methodsOrNone: a rule with methods is one rate limit per method (any
// of them matches, one counter); without, one rate limit.
func methodsOrNone(r *rlRule) []*rlMatch {
	if len(r.methods) == 0 {
		return []*rlMatch{nil}
	}
	out := make([]*rlMatch, len(r.methods))
	for i := range r.methods {
		out[i] = &r.methods[i]
	}
	return out
}

// xRateLimitOption is a rule's xRateLimitHeaders (unset: the filter's).
func xRateLimitOption(o *egv1a1.XRateLimitHeadersOption) routev3.RateLimit_XRateLimitOption {
	switch deref(o) {
	case "Off":
		return routev3.RateLimit_OFF
	case "DraftVersion03":
		return routev3.RateLimit_DRAFT_VERSION_03
	}
	return routev3.RateLimit_UNSPECIFIED
}

func hitsAddend(c *egv1a1.RateLimitCostSpecifier) *routev3.RateLimit_HitsAddend {
	h := &routev3.RateLimit_HitsAddend{}
	if c.Number != nil {
		h.Number = wrapperspb.UInt64(*c.Number)
	}
	if md := c.Metadata; md != nil {
		h.Format = "%DYNAMIC_METADATA(" + md.Namespace + ":" + md.Key + ")%"
	}
	return h
}

// tokenBucket is requests per unit.
func tokenBucket(requests uint32, unit string) *typev3.TokenBucket {
	return &typev3.TokenBucket{MaxTokens: requests, TokensPerFill: wrapperspb.UInt32(requests),
		FillInterval: durationpb.New(time.Duration(unitSeconds[unit]) * time.Second)}
}

//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"slices"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	commondnsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/common/dns/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"
	cswrrv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/client_side_weighted_round_robin/v3"
	lbcommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/common/v3"
	leastrequestv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/least_request/v3"
	maglevv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/maglev/v3"
	overridehostv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/override_host/v3"
	randomv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/random/v3"
	roundrobinv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/round_robin/v3"
	wrrlocalityv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/wrr_locality/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/proxy_protocol/v3"
	rawbufferv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/raw_buffer/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders the BackendTrafficPolicy fields that shape the
// upstream connections of the routes a policy reaches: each is a partial
// Cluster (internal/render/envoy gives such a rule clusters of its own,
// named as Envoy Gateway names them, and merges the partials in), plus
// the RouteAction settings a few of them also make (a consistent hash's
// hash policy, a request timeout). The shapes are Envoy Gateway's
// (translator cluster building); sub-fields not rendered yet are
// reported unsupported, naming the sub-field, and fail the routes closed.

const httpProtocolOptionsKey = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"

// unsupportedPart is the fragment of a sub-field not rendered yet.
func unsupportedPart(field, part string) []policy.Fragment {
	return []policy.Fragment{{Capability: "envoygateway.BackendTrafficPolicy." + field + "." + part}}
}

// clusterFragment is a partial cluster as a fragment.
func clusterFragment(c *clusterv3.Cluster) []policy.Fragment {
	return []policy.Fragment{{Cluster: c}}
}

// httpOptions is a cluster whose only setting is its upstream HTTP
// protocol options.
func httpOptions(o *upstreamhttpv3.HttpProtocolOptions) (*clusterv3.Cluster, error) {
	a, err := anypb.New(o)
	if err != nil {
		return nil, err
	}
	return &clusterv3.Cluster{TypedExtensionProtocolOptions: map[string]*anypb.Any{httpProtocolOptionsKey: a}}, nil
}

// circuitBreakerDefault is the value of each threshold left unset (the
// API's default, which Envoy Gateway writes out).
const circuitBreakerDefault = 1024

// renderCircuitBreaker is the cluster's default-priority thresholds,
// each unset one at 1024, and the limit of requests per connection in
// the upstream HTTP protocol options.
func renderCircuitBreaker(cb *egv1a1.CircuitBreaker, who policyName) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, cb, "maxConnections", "maxPendingRequests", "maxParallelRequests", "maxParallelRetries", "maxRequestsPerConnection", "retryBudget"); k != "" {
		return unsupportedPart("circuitBreaker", k), nil
	}
	if cb == nil {
		cb = &egv1a1.CircuitBreaker{}
	}
	t := &clusterv3.CircuitBreakers_Thresholds{}
	for _, s := range []struct {
		name string
		v    *int64
		to   **wrapperspb.UInt32Value
	}{
		{"maxConnections", cb.MaxConnections, &t.MaxConnections},
		{"maxPendingRequests", cb.MaxPendingRequests, &t.MaxPendingRequests},
		{"maxParallelRequests", cb.MaxParallelRequests, &t.MaxRequests},
		{"maxParallelRetries", cb.MaxParallelRetries, &t.MaxRetries},
	} {
		n, err := uint32Or(s.v, circuitBreakerDefault)
		if err != nil {
			return nil, fmt.Errorf("circuitBreaker.%s: %w", s.name, err)
		}
		*s.to = wrapperspb.UInt32(n)
	}
	if rb := cb.RetryBudget; rb != nil {
		t.RetryBudget = retryBudget(rb)
	}
	c := &clusterv3.Cluster{CircuitBreakers: &clusterv3.CircuitBreakers{Thresholds: []*clusterv3.CircuitBreakers_Thresholds{t}}}
	if cb.MaxRequestsPerConnection != nil {
		n, err := uint32Or(cb.MaxRequestsPerConnection, 0)
		if err != nil {
			return nil, fmt.Errorf("circuitBreaker.maxRequestsPerConnection: %w", err)
		}
		o, err := httpOptions(&upstreamhttpv3.HttpProtocolOptions{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{MaxRequestsPerConnection: wrapperspb.UInt32(n)}})
		if err != nil {
			return nil, err
		}
		proto.Merge(c, o)
	}
	return clusterFragment(c), nil
}

// uint32Or is a non-negative count that fits Envoy's uint32, def when
// unset.
func uint32Or(v *int64, def uint32) (uint32, error) {
	if v == nil {
		return def, nil
	}
	if *v < 0 || *v > 1<<32-1 {
		return 0, fmt.Errorf("%d is out of range 0..4294967295", *v)
	}
	return uint32(*v), nil
}

// clientSideWeighted is the client-side weighted round robin Envoy
// Gateway builds for a BackendUtilization load balancer
// (clustersettings.go, xds cluster.go:
// buildBackendUtilizationLoadBalancingPolicy): the blackout, weight
// expiration and weight update periods where they are above zero (a
// zero one is Envoy's default, not written), the error utilization
// penalty as float32(percent)/100, the metric names, and out-of-band
// load reports (on, their period, and the port and authority where
// given).
func clientSideWeighted(bu *egv1a1.BackendUtilization) (*cswrrv3.ClientSideWeightedRoundRobin, error) {
	w := &cswrrv3.ClientSideWeightedRoundRobin{}
	if bu == nil {
		return w, nil
	}
	for _, p := range []struct {
		name string
		v    *gwapiv1.Duration
		to   **durationpb.Duration
	}{
		{"blackoutPeriod", bu.BlackoutPeriod, &w.BlackoutPeriod},
		{"weightExpirationPeriod", bu.WeightExpirationPeriod, &w.WeightExpirationPeriod},
		{"weightUpdatePeriod", bu.WeightUpdatePeriod, &w.WeightUpdatePeriod},
	} {
		d, err := optDuration(p.v)
		if err != nil {
			return nil, fmt.Errorf("loadBalancer.backendUtilization.%s: %w", p.name, err)
		}
		if d != nil && d.AsDuration() > 0 {
			*p.to = d
		}
	}
	if p := bu.ErrorUtilizationPenaltyPercent; p != nil {
		w.ErrorUtilizationPenalty = wrapperspb.Float(float32(*p) / 100.0)
	}
	w.MetricNamesForComputingUtilization = slices.Clone(bu.MetricNamesForComputingUtilization)
	if o := bu.OutOfBand; o != nil {
		w.EnableOobLoadReport = wrapperspb.Bool(true)
		d, err := optDuration(o.ReportingPeriod)
		if err != nil {
			return nil, fmt.Errorf("loadBalancer.backendUtilization.outOfBand.reportingPeriod: %w", err)
		}
		w.OobReportingPeriod = d
		if o.Port != nil || o.Authority != nil {
			w.OobReportingConfig = &lbcommonv3.OrcaOobReportingConfig{}
			if o.Port != nil && *o.Port >= 0 && *o.Port <= 65535 {
				w.OobReportingConfig.PortValue = uint32(*o.Port)
			}
			if o.Authority != nil {
				w.OobReportingConfig.Authority = *o.Authority
			}
		}
	}
	return w, nil
}

// retryBudget is Envoy Gateway's retry budget (clustersettings.go:
// buildRetryBudget, xds cluster.go: buildCircuitBreakerRetryBudget): the
// budget always written, its percent (required) as ToPercent computes it,
// num/den*100 in float64 in that order (1/3 is 33.33333333333333, where
// num*100/den gives 33.333333333333336), a numerator of 0 a budget of 0 %
// (not Envoy's default 20 %); the minimum retry concurrency written only
// where it is not 3, its default. A denominator the CRD refuses (below 1)
// is read as 100, and the value kept within 0–100, so the config stays
// one Envoy takes.
func retryBudget(rb *egv1a1.RetryBudget) *clusterv3.CircuitBreakers_Thresholds_RetryBudget {
	den := int32(100)
	if d := rb.Percent.Denominator; d != nil && *d > 0 {
		den = *d
	}
	pct := min(max(float64(rb.Percent.Numerator)/float64(den)*100, 0), 100)
	out := &clusterv3.CircuitBreakers_Thresholds_RetryBudget{BudgetPercent: &typev3.Percent{Value: pct}}
	if m := rb.MinRetryConcurrency; m != nil && *m != 3 {
		out.MinRetryConcurrency = wrapperspb.UInt32(*m)
	}
	return out
}

func wrapU32(v *uint32) *wrapperspb.UInt32Value {
	if v == nil {
		return nil
	}
	return wrapperspb.UInt32(*v)
}

// orcaHeaders are the response headers backends report their load in
// (ORCA), which Envoy Gateway removes from responses when it balances by
// backend utilization.
var orcaHeaders = []string{"endpoint-load-metrics", "endpoint-load-metrics-bin"}

// maglevTableSize is the Maglev table size Envoy Gateway uses unless the
// policy sets one.
const maglevTableSize = 65537

// renderLoadBalancer is the cluster's load-balancing policy — Envoy
// Gateway's typed load_balancing_policies extension per type, weighted by
// locality; a consistent hash is Maglev, with the route hashing what the
// policy names. An endpoint override wraps the policy (without locality
// weighting) as its fallback. Slow start, zone-aware routing with
// weighted zones and the other hash sources are not rendered yet.
func renderLoadBalancer(lb *egv1a1.LoadBalancer, who policyName) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, lb, "type", "consistentHash", "backendUtilization", "endpointOverride", "zoneAware"); k != "" {
		return unsupportedPart("loadBalancer", k), nil
	}
	if lb == nil {
		lb = &egv1a1.LoadBalancer{}
	}
	if k := unrenderedFields(who.at.field("zoneAware"), lb.ZoneAware, "weightedZones"); k != "" {
		return unsupportedPart("loadBalancer", "zoneAware."+k), nil
	}
	override := lb.EndpointOverride != nil
	var name string
	var cfg proto.Message
	var frags []policy.Fragment
	locality := &lbcommonv3.LocalityLbConfig{LocalityConfigSpecifier: &lbcommonv3.LocalityLbConfig_LocalityWeightedLbConfig_{LocalityWeightedLbConfig: &lbcommonv3.LocalityLbConfig_LocalityWeightedLbConfig{}}}
	if override {
		locality = nil
	}
	switch lb.Type {
	case "RoundRobin":
		name, cfg = "envoy.load_balancing_policies.round_robin", &roundrobinv3.RoundRobin{LocalityLbConfig: locality}
	case "LeastRequest":
		name, cfg = "envoy.load_balancing_policies.least_request", &leastrequestv3.LeastRequest{LocalityLbConfig: locality}
	case "Random":
		name, cfg = "envoy.load_balancing_policies.random", &randomv3.Random{LocalityLbConfig: locality}
	case "ConsistentHash":
		m, hash, err := consistentHash(lb)
		if err != nil || m == nil {
			return hash, err
		}
		name, cfg, frags = "envoy.load_balancing_policies.maglev", m, hash
	case "BackendUtilization":
		w, err := clientSideWeighted(lb.BackendUtilization)
		if err != nil {
			return nil, err
		}
		name, cfg = "envoy.load_balancing_policies.client_side_weighted_round_robin", w
		if bu := lb.BackendUtilization; bu == nil || bu.KeepResponseHeaders == nil || !*bu.KeepResponseHeaders {
			// The backends' ORCA load reports are Envoy's to read, not
			// the client's: the route removes them from the response
			// unless keepResponseHeaders says otherwise (Envoy Gateway's
			// default).
			frags = append(frags, policy.Fragment{Capability: "route", TypedRoute: &routev3.Route{ResponseHeadersToRemove: orcaHeaders}})
		}
		if lb.ZoneAware != nil && len(lb.ZoneAware.WeightedZones) > 0 {
			inner, err := lbPolicy(name, cfg)
			if err != nil {
				return nil, err
			}
			name, cfg = "envoy.load_balancing_policies.wrr_locality", &wrrlocalityv3.WrrLocality{EndpointPickingPolicy: inner}
		}
	default:
		return nil, fmt.Errorf("loadBalancer.type: unknown type %q", lb.Type)
	}
	policyCfg, err := lbPolicy(name, cfg)
	if err != nil {
		return nil, err
	}
	if override {
		oh := &overridehostv3.OverrideHost{FallbackPolicy: policyCfg}
		for _, src := range lb.EndpointOverride.ExtractFrom {
			if src.Header == nil {
				return unsupportedPart("loadBalancer", "endpointOverride.extractFrom"), nil
			}
			oh.OverrideHostSources = append(oh.OverrideHostSources, &overridehostv3.OverrideHost_OverrideHostSource{Header: *src.Header})
		}
		if policyCfg, err = lbPolicy("envoy.load_balancing_policies.override_host", oh); err != nil {
			return nil, err
		}
	}
	return append(frags, policy.Fragment{Cluster: &clusterv3.Cluster{LoadBalancingPolicy: policyCfg}}), nil
}

// lbPolicy is a load-balancing policy of one typed extension.
func lbPolicy(name string, cfg proto.Message) (*clusterv3.LoadBalancingPolicy, error) {
	a, err := anypb.New(cfg)
	if err != nil {
		return nil, err
	}
	return &clusterv3.LoadBalancingPolicy{Policies: []*clusterv3.LoadBalancingPolicy_Policy{{
		TypedExtensionConfig: &corev3.TypedExtensionConfig{Name: name, TypedConfig: a},
	}}}, nil
}

// consistentHash is the Maglev table and the route's hash policy; a nil
// table with fragments means a hash source not rendered yet.
func consistentHash(lb *egv1a1.LoadBalancer) (*maglevv3.Maglev, []policy.Fragment, error) {
	ch := lb.ConsistentHash
	m := &maglevv3.Maglev{TableSize: wrapperspb.UInt64(maglevTableSize)}
	if ch == nil {
		return nil, nil, fmt.Errorf("loadBalancer.consistentHash: missing for type ConsistentHash")
	}
	if ch.TableSize != nil {
		m.TableSize = wrapperspb.UInt64(*ch.TableSize)
	}
	hp := &routev3.RouteAction_HashPolicy{}
	switch {
	case ch.Type == "SourceIP":
		hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_ConnectionProperties_{ConnectionProperties: &routev3.RouteAction_HashPolicy_ConnectionProperties{SourceIp: true}}
	case ch.Type == "Header" && ch.Header != nil:
		hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_Header_{Header: &routev3.RouteAction_HashPolicy_Header{HeaderName: ch.Header.Name}}
	case ch.Type == "Cookie" && ch.Cookie != nil && ch.Cookie.Attributes == nil:
		ck := &routev3.RouteAction_HashPolicy_Cookie{Name: ch.Cookie.Name}
		ttl, err := optDuration(ch.Cookie.TTL)
		if err != nil {
			return nil, nil, fmt.Errorf("loadBalancer.consistentHash.cookie.ttl: %w", err)
		}
		ck.Ttl = ttl
		hp.PolicySpecifier = &routev3.RouteAction_HashPolicy_Cookie_{Cookie: ck}
	default:
		return nil, unsupportedPart("loadBalancer", "consistentHash."+string(ch.Type)), nil
	}
	return m, []policy.Fragment{{Capability: "route", TypedRouteAction: &routev3.RouteAction{HashPolicy: []*routev3.RouteAction_HashPolicy{hp}}}}, nil
}

// renderUseClientProtocol: the upstream connection speaks the
// downstream's protocol — HTTP/1.1 or HTTP/2, with Envoy Gateway's HTTP/2
// window sizes.
func renderUseClientProtocol(on *bool, _ policyName) ([]policy.Fragment, error) {
	if on == nil || !*on {
		return nil, nil
	}
	c, err := httpOptions(&upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_UseDownstreamProtocolConfig{
		UseDownstreamProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_UseDownstreamHttpConfig{
			HttpProtocolOptions:  &corev3.Http1ProtocolOptions{},
			Http2ProtocolOptions: http2Windows(),
		}}})
	if err != nil {
		return nil, err
	}
	return clusterFragment(c), nil
}

// renderUpstreamHTTP2 is a BackendTrafficPolicy's HTTP/2 options of the
// upstream connections, which Envoy Gateway writes only where the cluster
// speaks HTTP/2 (xds translator cluster.go
// buildTypedExtensionProtocolOptions: the explicit HTTP/2 options of a
// gRPC or h2c backend, and the HTTP/2 half of a cluster speaking the
// client's protocol): those options become the policy's, with Envoy
// Gateway's window sizes where it gives none (buildHTTP2Settings). A
// cluster speaking HTTP/1.1 keeps its options, and the policy stays
// accepted. It is a finishing step (policy.Fragment.ClusterFinish): what
// the cluster speaks is known once every field has shaped it.
func renderUpstreamHTTP2(h *egv1a1.HTTP2Settings, _ policyName) ([]policy.Fragment, error) {
	o, err := http2Settings(h)
	if err != nil {
		return nil, err
	}
	w := http2Windows()
	if o.InitialStreamWindowSize == nil {
		o.InitialStreamWindowSize = w.InitialStreamWindowSize
	}
	if o.InitialConnectionWindowSize == nil {
		o.InitialConnectionWindowSize = w.InitialConnectionWindowSize
	}
	return []policy.Fragment{{ClusterFinish: func(m proto.Message) { withHTTP2Options(m, o) }}}, nil
}

// withHTTP2Options makes o the HTTP/2 options of a cluster whose upstream
// HTTP protocol options have HTTP/2 ones (explicit HTTP/2, the protocol
// of the client's connection, or automatic); another cluster is left as
// it is.
func withHTTP2Options(m proto.Message, o *corev3.Http2ProtocolOptions) {
	editHTTPOptions(m, func(opts *upstreamhttpv3.HttpProtocolOptions, had bool) bool {
		if !had {
			return false
		}
		switch u := opts.UpstreamProtocolOptions.(type) {
		case *upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_:
			if _, h2 := u.ExplicitHttpConfig.GetProtocolConfig().(*upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions); !h2 {
				return false
			}
			u.ExplicitHttpConfig.ProtocolConfig = &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: proto.Clone(o).(*corev3.Http2ProtocolOptions)}
		case *upstreamhttpv3.HttpProtocolOptions_UseDownstreamProtocolConfig:
			u.UseDownstreamProtocolConfig.Http2ProtocolOptions = proto.Clone(o).(*corev3.Http2ProtocolOptions)
		case *upstreamhttpv3.HttpProtocolOptions_AutoConfig:
			u.AutoConfig.Http2ProtocolOptions = proto.Clone(o).(*corev3.Http2ProtocolOptions)
		default:
			return false
		}
		return true
	})
}

// editHTTPOptions edits a cluster's upstream HTTP protocol options in
// place: edit gets them (empty when the cluster has none; had says
// whether it had) and says whether to write them back. Options that do
// not decode, and messages that are not clusters, are left as they are.
func editHTTPOptions(m proto.Message, edit func(opts *upstreamhttpv3.HttpProtocolOptions, had bool) bool) {
	c, ok := m.(*clusterv3.Cluster)
	if !ok {
		return
	}
	a := c.GetTypedExtensionProtocolOptions()[httpProtocolOptionsKey]
	opts := &upstreamhttpv3.HttpProtocolOptions{}
	if a != nil && a.UnmarshalTo(opts) != nil {
		return
	}
	if !edit(opts, a != nil) {
		return
	}
	b, err := anypb.New(opts)
	if err != nil {
		return
	}
	if c.TypedExtensionProtocolOptions == nil {
		c.TypedExtensionProtocolOptions = map[string]*anypb.Any{}
	}
	c.TypedExtensionProtocolOptions[httpProtocolOptionsKey] = b
}

// withHTTP1Options makes o the HTTP/1.1 options of a cluster that speaks
// HTTP/1.1 upstream, as Envoy Gateway's buildTypedExtensionProtocolOptions
// writes a listener's HTTP/1 settings (requiresHTTP1Options): explicit
// HTTP/1.1 options where the cluster has none or explicit HTTP/1.1 ones,
// the HTTP/1.1 half of a cluster speaking the client's protocol or
// choosing automatically; a cluster speaking HTTP/2 (a gRPC or h2c
// backend) is left as it is.
func withHTTP1Options(m proto.Message, o *corev3.Http1ProtocolOptions) {
	editHTTPOptions(m, func(opts *upstreamhttpv3.HttpProtocolOptions, _ bool) bool {
		h1 := proto.Clone(o).(*corev3.Http1ProtocolOptions)
		switch u := opts.UpstreamProtocolOptions.(type) {
		case nil:
			opts.UpstreamProtocolOptions = &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
				ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{HttpProtocolOptions: h1}}}
		case *upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_:
			if _, h11 := u.ExplicitHttpConfig.GetProtocolConfig().(*upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions); !h11 {
				return false
			}
			u.ExplicitHttpConfig.ProtocolConfig = &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{HttpProtocolOptions: h1}
		case *upstreamhttpv3.HttpProtocolOptions_UseDownstreamProtocolConfig:
			u.UseDownstreamProtocolConfig.HttpProtocolOptions = h1
		case *upstreamhttpv3.HttpProtocolOptions_AutoConfig:
			u.AutoConfig.HttpProtocolOptions = h1
		default:
			return false
		}
		return true
	})
}

// http2Windows are Envoy Gateway's upstream HTTP/2 window sizes (1 MiB
// per connection, 64 KiB per stream).
func http2Windows() *corev3.Http2ProtocolOptions {
	return &corev3.Http2ProtocolOptions{InitialConnectionWindowSize: wrapperspb.UInt32(1 << 20), InitialStreamWindowSize: wrapperspb.UInt32(1 << 16)}
}

// dnsLookupFamilies are spec.dns.lookupFamily's values in Envoy's terms.
var dnsLookupFamilies = map[string]commondnsv3.DnsLookupFamily{
	"IPv4": commondnsv3.DnsLookupFamily_V4_ONLY, "IPv6": commondnsv3.DnsLookupFamily_V6_ONLY,
	"IPv4Preferred": commondnsv3.DnsLookupFamily_V4_PREFERRED, "IPv6Preferred": commondnsv3.DnsLookupFamily_AUTO,
	"IPv4AndIPv6": commondnsv3.DnsLookupFamily_ALL,
}

// dfpLookupFamilies are spec.dns.lookupFamily's values as a dynamic
// forward proxy's DNS cache takes them (Envoy Gateway's
// computeDNSLookupFamily: IPv4Preferred, like no value, is V4_PREFERRED).
var dfpLookupFamilies = map[string]clusterv3.Cluster_DnsLookupFamily{
	"IPv4": clusterv3.Cluster_V4_ONLY, "IPv6": clusterv3.Cluster_V6_ONLY,
	"IPv4Preferred": clusterv3.Cluster_V4_PREFERRED, "IPv6Preferred": clusterv3.Cluster_AUTO,
	"IPv4AndIPv6": clusterv3.Cluster_ALL,
}

// renderDNS tunes the resolution of DNS clusters (a Backend's hostname
// endpoints): a DnsCluster cluster type, which tunes a cluster of that
// type only — a Service's EDS cluster, resolved by the control plane, is
// left as it is, as Envoy Gateway leaves it. A DynamicResolver Backend's
// dynamic forward proxy cluster takes the lookup family and refresh rate
// instead, in its DNS cache and the cluster's lookup family, the cache
// named after the policy (dfpDNS); respectDnsTtl means nothing to it.
func renderDNS(d *egv1a1.DNS, who policyName) ([]policy.Fragment, error) {
	if d == nil {
		d = &egv1a1.DNS{}
	}
	cfg := &dnsclusterv3.DnsCluster{}
	rate, err := optDuration(d.DNSRefreshRate)
	if err != nil {
		return nil, fmt.Errorf("dns.dnsRefreshRate: %w", err)
	}
	cfg.DnsRefreshRate = rate
	if d.RespectDNSTTL != nil {
		cfg.RespectDnsTtl = *d.RespectDNSTTL
	}
	if d.LookupFamily != nil {
		f, ok := dnsLookupFamilies[string(*d.LookupFamily)]
		if !ok {
			return nil, fmt.Errorf("dns.lookupFamily: unknown family %q", *d.LookupFamily)
		}
		cfg.DnsLookupFamily = f
	}
	a, err := anypb.New(cfg)
	if err != nil {
		return nil, err
	}
	dfp, err := dfpDNS(d, who.result())
	if err != nil {
		return nil, err
	}
	return []policy.Fragment{{Cluster: &clusterv3.Cluster{ClusterDiscoveryType: &clusterv3.Cluster_ClusterType{
		ClusterType: &clusterv3.Cluster_CustomClusterType{Name: "envoy.cluster.dns", TypedConfig: a}}}, ClusterOfType: dfp}}, nil
}

// dfpDNS is spec.dns for a dynamic forward proxy cluster: Envoy Gateway's
// DNS cache for the family and refresh rate (30 s unless a positive rate
// is set), named after the policy, and the cluster's lookup family.
func dfpDNS(d *egv1a1.DNS, who policyName) (*clusterv3.Cluster, error) {
	family := clusterv3.Cluster_V4_PREFERRED
	if d.LookupFamily != nil {
		family = dfpLookupFamilies[string(*d.LookupFamily)] // known: renderDNS checked it
	}
	refresh := 30 * time.Second
	if rate, err := optDuration(d.DNSRefreshRate); err == nil && rate.AsDuration() > 0 {
		refresh = rate.AsDuration()
	}
	cfg, err := dfpClusterConfig(family, refresh, who.namespace+"/"+who.name)
	if err != nil {
		return nil, err
	}
	return &clusterv3.Cluster{
		ClusterDiscoveryType: &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{Name: dfpClusterType, TypedConfig: cfg}},
		DnsLookupFamily:      family,
	}, nil
}

// renderRoutingType: whether Envoy reaches a Service through its
// endpoints or its cluster IP is the endpoints the control plane sends
// over EDS, which gwpol does not render; Listeners, routes and clusters
// are the same either way, so the field renders to nothing (its owner is
// still named in the route's merge metadata). A value other than Service
// and Endpoint (the CRD has no enum for it) is no error either: Envoy
// Gateway's IsServiceRouting falls back to the EnvoyProxy's routing type
// for it, and the route forwards.
func renderRoutingType(*egv1a1.RoutingType, policyName) ([]policy.Fragment, error) {
	return nil, nil
}

// renderTimeout: the TCP connect timeout on the cluster, the HTTP
// connection's idle timeout and lifetime in its upstream HTTP protocol
// options, and the request timeout and the longest stream on the route
// (a request timeout the route rule sets itself, timeouts.request, wins;
// the render target adds the idle timeout Envoy Gateway pairs with it,
// see envoy.Target.RequestIdleTimeout). Other timeouts are not rendered
// yet.
func renderTimeout(t *egv1a1.Timeout, who policyName) ([]policy.Fragment, error) {
	if t == nil {
		t = &egv1a1.Timeout{}
	}
	if k := unrenderedFields(who.at.field("tcp"), t.TCP, "connectTimeout"); k != "" {
		return unsupportedPart("timeout", "tcp."+k), nil
	}
	if k := unrenderedFields(who.at.field("http"), t.HTTP, "connectionIdleTimeout", "maxConnectionDuration", "requestTimeout", "maxStreamDuration"); k != "" {
		return unsupportedPart("timeout", "http."+k), nil
	}
	c := &clusterv3.Cluster{}
	var frags []policy.Fragment
	if t.TCP != nil {
		d, err := optDuration(t.TCP.ConnectTimeout)
		if err != nil {
			return nil, fmt.Errorf("timeout.tcp.connectTimeout: %w", err)
		}
		c.ConnectTimeout = d
	}
	if h := t.HTTP; h != nil {
		idle, err := optDuration(h.ConnectionIdleTimeout)
		if err != nil {
			return nil, fmt.Errorf("timeout.http.connectionIdleTimeout: %w", err)
		}
		life, err := optDuration(h.MaxConnectionDuration)
		if err != nil {
			return nil, fmt.Errorf("timeout.http.maxConnectionDuration: %w", err)
		}
		if idle != nil || life != nil {
			o, err := httpOptions(&upstreamhttpv3.HttpProtocolOptions{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{IdleTimeout: idle, MaxConnectionDuration: life}})
			if err != nil {
				return nil, err
			}
			proto.Merge(c, o)
		}
		req, err := optDuration(h.RequestTimeout)
		if err != nil {
			return nil, fmt.Errorf("timeout.http.requestTimeout: %w", err)
		}
		stream, err := optDuration(h.MaxStreamDuration)
		if err != nil {
			return nil, fmt.Errorf("timeout.http.maxStreamDuration: %w", err)
		}
		if req != nil || stream != nil {
			ra := &routev3.RouteAction{}
			if req != nil {
				ra.Timeout = req
			}
			if stream != nil {
				ra.MaxStreamDuration = &routev3.RouteAction_MaxStreamDuration{MaxStreamDuration: stream}
			}
			frags = append(frags, policy.Fragment{Capability: "route", TypedRouteAction: ra})
		}
	}
	return append(frags, policy.Fragment{Cluster: c}), nil
}

// renderTCPKeepalive is the upstream connections' TCP keepalive, its
// times in whole seconds.
func renderTCPKeepalive(k *egv1a1.TCPKeepalive, _ policyName) ([]policy.Fragment, error) {
	if k == nil {
		k = &egv1a1.TCPKeepalive{}
	}
	ka := &corev3.TcpKeepalive{KeepaliveProbes: wrapU32(k.Probes)}
	for _, s := range []struct {
		name string
		v    *gwapiv1.Duration
		to   **wrapperspb.UInt32Value
	}{{"idleTime", k.IdleTime, &ka.KeepaliveTime}, {"interval", k.Interval, &ka.KeepaliveInterval}} {
		d, err := optDuration(s.v)
		if err != nil {
			return nil, fmt.Errorf("tcpKeepalive.%s: %w", s.name, err)
		}
		if d != nil {
			*s.to = wrapperspb.UInt32(uint32(d.AsDuration() / time.Second))
		}
	}
	return clusterFragment(&clusterv3.Cluster{UpstreamConnectionOptions: &clusterv3.UpstreamConnectionOptions{TcpKeepalive: ka}}), nil
}

// renderConnection is the upstream connections' buffer limit.
func renderConnection(c *egv1a1.BackendConnection, who policyName) ([]policy.Fragment, error) {
	if k := unrenderedFields(who.at, c, "bufferLimit"); k != "" {
		return unsupportedPart("connection", k), nil
	}
	out := &clusterv3.Cluster{}
	if c == nil {
		return clusterFragment(out), nil
	}
	if q := c.BufferLimit; q != nil {
		n, ok := q.AsInt64()
		if !ok || n < 0 || n > 1<<32-1 {
			return nil, fmt.Errorf("connection.bufferLimit: %s is not a byte count Envoy accepts", q)
		}
		out.PerConnectionBufferLimitBytes = wrapperspb.UInt32(uint32(n))
	}
	return clusterFragment(out), nil
}

// renderProxyProtocol sends a PROXY protocol header (V1 or V2) on each
// upstream connection: the upstream_proxy_protocol transport socket,
// wrapping the cluster's own.
func renderProxyProtocol(p *egv1a1.ProxyProtocol, _ policyName) ([]policy.Fragment, error) {
	if p == nil {
		p = &egv1a1.ProxyProtocol{}
	}
	cfg := &corev3.ProxyProtocolConfig{}
	switch p.Version {
	case "V1":
	case "V2":
		cfg.Version = corev3.ProxyProtocolConfig_V2
	default:
		return nil, fmt.Errorf("proxyProtocol.version: unknown version %q", p.Version)
	}
	raw, err := anypb.New(&rawbufferv3.RawBuffer{})
	if err != nil {
		return nil, err
	}
	a, err := anypb.New(&proxyprotocolv3.ProxyProtocolUpstreamTransport{Config: cfg, TransportSocket: &corev3.TransportSocket{
		Name: "envoy.transport_sockets.raw_buffer", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: raw}}})
	if err != nil {
		return nil, err
	}
	return clusterFragment(&clusterv3.Cluster{TransportSocket: &corev3.TransportSocket{
		Name: "envoy.transport_sockets.upstream_proxy_protocol", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: a}}}), nil
}

package envoygateway

import (
	"fmt"
	"strings"
	"time"

	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	dfpclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dynamic_forward_proxy/v3"
	commondfpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/dynamic_forward_proxy/v3"
	rbachttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	clusterprovidedv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/load_balancing_policies/cluster_provided/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/policy"
)

var _ policy.BackendClusterer = (*Kind)(nil)

// dfpLoopbackFilter is the RBAC filter Envoy Gateway adds to a chain that
// routes to a DynamicResolver Backend: on in the chain with no rules, and
// configured on each such route to refuse loopback hosts.
const dfpLoopbackFilter = "envoy.filters.http.rbac.dfp_loopback_deny"

// loopbackHosts are the hosts (with any port) a dynamic forward proxy
// route refuses to connect to, as Envoy Gateway lists them.
var loopbackHosts = []string{
	`^127\.0\.0\.1(?::\d+)?$`,
	`^localhost(?::\d+)?$`,
	`^localhost\.localdomain(?::\d+)?$`,
	`^ip6-localhost(?::\d+)?$`,
	`^ip6-loopback(?::\d+)?$`,
	`^\[::1\](?::\d+)?$`,
	`^::1(?::\d+)?$`,
}

// dfpClusterType is the custom cluster type of a DynamicResolver Backend.
const dfpClusterType = "envoy.clusters.dynamic_forward_proxy"

// dfpClusterConfig is a dynamic forward proxy cluster's configuration: its
// DNS cache, named as Envoy Gateway names it after the family, the refresh
// rate and, where a BackendTrafficPolicy's dns configures it, the policy
// ("<namespace>/<name>"; else "default").
func dfpClusterConfig(family clusterv3.Cluster_DnsLookupFamily, refresh time.Duration, by string) (*anypb.Any, error) {
	if by == "" {
		by = "default"
	}
	cache := &commondfpv3.DnsCacheConfig{
		Name:            fmt.Sprintf("envoy-gateway-dfp-cache-%s-%dms-%s", strings.ToLower(family.String()), refresh.Milliseconds(), by),
		DnsLookupFamily: family,
		DnsRefreshRate:  durationpb.New(refresh),
	}
	return anypb.New(&dfpclusterv3.ClusterConfig{ClusterImplementationSpecifier: &dfpclusterv3.ClusterConfig_DnsCacheConfig{DnsCacheConfig: cache}})
}

// BackendCluster implements policy.BackendClusterer for Envoy Gateway's
// Backend. A DynamicResolver Backend is a dynamic forward proxy cluster:
// Envoy resolves each request's host itself through a DNS cache (Envoy
// Gateway's default one: IPv4 preferred, refreshed every 30 s) and picks
// the host the cluster provides; routes to it refuse loopback hosts
// (PerRoute); with tls it connects over TLS (dynamicResolverTLS). Other
// Backend types keep the plain EDS cluster.
func (k *Kind) BackendCluster(o *manifest.Object, name string, _ *policy.Env) (*policy.BackendBuild, error) {
	if o.Group != Group || o.Kind != backend.Kind {
		return nil, nil
	}
	var spec struct {
		Type *egv1a1.BackendType        `json:"type"`
		TLS  *egv1a1.BackendTLSSettings `json:"tls"`
	}
	if err := o.DecodeField("spec", &spec); err != nil {
		return nil, err
	}
	if spec.Type == nil || *spec.Type != "DynamicResolver" {
		return nil, nil
	}
	tls, err := dynamicResolverTLS(spec.TLS, writtenAt{obj: o, path: "spec.tls", key: "tls"})
	if err != nil {
		return nil, err
	}
	const family = clusterv3.Cluster_V4_PREFERRED
	cfg, err := dfpClusterConfig(family, 30*time.Second, "")
	if err != nil {
		return nil, err
	}
	lb, err := lbPolicy("envoy.load_balancing_policies.cluster_provided", &clusterprovidedv3.ClusterProvided{})
	if err != nil {
		return nil, err
	}
	c := &clusterv3.Cluster{
		Name:                 name,
		ConnectTimeout:       durationpb.New(connectTimeout),
		ClusterDiscoveryType: &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{Name: dfpClusterType, TypedConfig: cfg}},
		DnsLookupFamily:      family,
		LoadBalancingPolicy:  lb,
	}
	if tls != nil {
		proto.Merge(c, tls)
	}
	return &policy.BackendBuild{
		Cluster:  c,
		Filter:   &policy.HTTPFilter{Name: dfpLoopbackFilter, Order: orderRBAC, Enabled: true, Typed: &rbachttpv3.RBAC{}},
		PerRoute: loopbackDeny,
	}, nil
}

// loopbackDeny is the per-route config of dfpLoopbackFilter for a route to
// a DynamicResolver Backend: deny when the host the proxy will connect to
// — the header the route rewrites the host from, else :authority — is a
// loopback one. A route that rewrites the host to a literal needs none
// (the host is known, not the client's to choose).
func loopbackDeny(action proto.Message) map[string]proto.Message {
	ra, ok := action.(*routev3.RouteAction)
	if !ok || ra.GetHostRewriteLiteral() != "" {
		return nil
	}
	header := ":authority"
	if h := ra.GetHostRewriteHeader(); h != "" {
		header = h
	}
	var ps []*xdsmatcherv3.Matcher_MatcherList_Predicate
	for _, re := range loopbackHosts {
		ps = append(ps, headerPredicate(header, &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_SafeRegex{SafeRegex: &xdsmatcherv3.RegexMatcher{
			Regex: re, EngineType: &xdsmatcherv3.RegexMatcher_GoogleRe2{GoogleRe2: &xdsmatcherv3.RegexMatcher_GoogleRE2{}}}}}))
	}
	m := &xdsmatcherv3.Matcher{
		MatcherType: &xdsmatcherv3.Matcher_MatcherList_{MatcherList: &xdsmatcherv3.Matcher_MatcherList{Matchers: []*xdsmatcherv3.Matcher_MatcherList_FieldMatcher{{
			Predicate: anyOf(ps),
			OnMatch:   rbacOnMatch("deny-loopback-host", "Deny"),
		}}}},
		OnNoMatch: rbacOnMatch("default", "Allow"),
	}
	return map[string]proto.Message{dfpLoopbackFilter: &rbachttpv3.RBACPerRoute{Rbac: &rbachttpv3.RBAC{Matcher: m}}}
}

// systemCASecret is the SDS secret Envoy Gateway serves the system's
// trusted CA certificates as.
const systemCASecret = "system_ca_certificates"

// dynamicResolverTLS is the TLS of a DynamicResolver Backend that trusts
// the system's CA certificates (wellKnownCACertificates: System): TLS
// 1.2 to 1.3 verified against the system CAs, SNI and the certificate's
// name checked against each request's host (the host is only known per
// request), HTTP/1.1 or HTTP/2 as ALPN decides. insecureSkipVerify false
// is that verification, as Envoy Gateway reads it (ptr.Deref(…, false));
// any other tls setting is not rendered yet (unsupported). nil without
// tls. at is where tls is written.
func dynamicResolverTLS(t *egv1a1.BackendTLSSettings, at writtenAt) (*clusterv3.Cluster, error) {
	if t == nil {
		return nil, nil
	}
	k := unrenderedFields(at, t, "wellKnownCACertificates", "insecureSkipVerify")
	if t.InsecureSkipVerify != nil && *t.InsecureSkipVerify {
		k = "insecureSkipVerify"
	}
	if k != "" {
		return nil, diag.Errorf(diag.Unsupported, "unsupported(required_capability: envoygateway.Backend.DynamicResolver.tls.%s): not rendered yet", k)
	}
	if t.WellKnownCACertificates == nil || *t.WellKnownCACertificates != "System" {
		return nil, diag.Errorf(diag.Unsupported, "unsupported(required_capability: envoygateway.Backend.DynamicResolver.tls): only wellKnownCACertificates System is rendered")
	}
	ctx := &tlsv3.UpstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{
		TlsParams: &tlsv3.TlsParameters{TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2, TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3},
		ValidationContextType: &tlsv3.CommonTlsContext_CombinedValidationContext{CombinedValidationContext: &tlsv3.CommonTlsContext_CombinedCertificateValidationContext{
			DefaultValidationContext: &tlsv3.CertificateValidationContext{},
			ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: systemCASecret, SdsConfig: &corev3.ConfigSource{
				ResourceApiVersion:    corev3.ApiVersion_V3,
				InitialFetchTimeout:   durationpb.New(0),
				ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
			}},
		}},
	}}
	sock, err := anypb.New(ctx)
	if err != nil {
		return nil, err
	}
	opts, err := httpOptions(&upstreamhttpv3.HttpProtocolOptions{
		UpstreamHttpProtocolOptions: &corev3.UpstreamHttpProtocolOptions{AutoSni: true, AutoSanValidation: true},
		UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_AutoConfig{AutoConfig: &upstreamhttpv3.HttpProtocolOptions_AutoHttpConfig{
			HttpProtocolOptions: &corev3.Http1ProtocolOptions{}, Http2ProtocolOptions: http2Windows()}},
	})
	if err != nil {
		return nil, err
	}
	opts.TransportSocket = &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: sock}}
	return opts, nil
}

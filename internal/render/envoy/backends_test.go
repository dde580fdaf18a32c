package envoy

import (
	"testing"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/proxy_protocol/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

func socket(name string, m proto.Message) *corev3.TransportSocket {
	return &corev3.TransportSocket{Name: name, ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(m)}}
}

// innerSocket is the socket a PROXY protocol socket wraps ("" when it is
// not one).
func innerSocket(t *testing.T, ts *corev3.TransportSocket) string {
	t.Helper()
	if ts.GetName() != proxyProtocolSocket {
		return ""
	}
	pp := &proxyprotocolv3.ProxyProtocolUpstreamTransport{}
	if err := ts.GetTypedConfig().UnmarshalTo(pp); err != nil {
		t.Fatal(err)
	}
	return pp.GetTransportSocket().GetName()
}

// TestMergeClusterSockets: a PROXY protocol socket wraps the TLS socket
// whichever policy comes first, and a raw buffer when there is none.
func TestMergeClusterSockets(t *testing.T) {
	tls := &clusterv3.Cluster{TransportSocket: socket("envoy.transport_sockets.tls", &tlsv3.UpstreamTlsContext{Sni: "a"})}
	pp := &clusterv3.Cluster{TransportSocket: socket(proxyProtocolSocket, &proxyprotocolv3.ProxyProtocolUpstreamTransport{Config: &corev3.ProxyProtocolConfig{}})}
	for _, tc := range []struct {
		name  string
		order []*clusterv3.Cluster
		inner string
	}{
		{"tls then proxy protocol", []*clusterv3.Cluster{tls, pp}, "envoy.transport_sockets.tls"},
		{"proxy protocol then tls", []*clusterv3.Cluster{pp, tls}, "envoy.transport_sockets.tls"},
		{"proxy protocol alone", []*clusterv3.Cluster{pp}, "envoy.transport_sockets.raw_buffer"},
	} {
		b := &builder{target: policy.UpstreamTarget}
		c := b.baseCluster("c")
		for _, p := range tc.order {
			b.mergeCluster(c, p)
		}
		if got := innerSocket(t, c.TransportSocket); got != tc.inner {
			t.Errorf("%s: inner socket %q, want %q", tc.name, got, tc.inner)
		}
	}
}

// TestMergeClusterHTTPOptions: HTTP protocol options of several fields
// merge into one extension, which then names HTTP/1.1 when nothing chose
// the protocol; other settings merge as proto.Merge does.
func TestMergeClusterHTTPOptions(t *testing.T) {
	common := &clusterv3.Cluster{TypedExtensionProtocolOptions: map[string]*anypb.Any{httpProtocolOptionsKey: mustAny(&upstreamhttpv3.HttpProtocolOptions{
		CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{MaxHeadersCount: wrapperspb.UInt32(15)}})}}
	timeout := &clusterv3.Cluster{ConnectTimeout: durationpb.New(2e9)}
	b := &builder{target: policy.UpstreamTarget}
	c := b.baseCluster("c")
	b.mergeCluster(c, common)
	b.mergeCluster(c, timeout)
	finishHTTPOptions(c)
	o := &upstreamhttpv3.HttpProtocolOptions{}
	if err := c.TypedExtensionProtocolOptions[httpProtocolOptionsKey].UnmarshalTo(o); err != nil {
		t.Fatal(err)
	}
	if o.GetCommonHttpProtocolOptions().GetMaxHeadersCount().GetValue() != 15 {
		t.Errorf("common options lost: %v", o)
	}
	if o.GetExplicitHttpConfig().GetHttpProtocolOptions() == nil {
		t.Errorf("no explicit HTTP/1.1 config: %v", o)
	}
	if c.ConnectTimeout.AsDuration() != 2e9 || c.GetEdsClusterConfig() == nil {
		t.Errorf("other settings: timeout %v, eds %v", c.ConnectTimeout.AsDuration(), c.GetEdsClusterConfig())
	}
	if err := c.ValidateAll(); err != nil {
		t.Errorf("merged cluster does not validate: %v", err)
	}
}

// TestMergeClusterHealthCheckHost: under a target whose controller clears
// them (policy.Target.CheckHostClearsEndpointHosts), a health check naming
// its host clears the health-check hostname of a static backend's
// endpoints, and one without keeps it; under a target that does not, the
// endpoints keep theirs.
func TestMergeClusterHealthCheckHost(t *testing.T) {
	clears := policy.Target{Name: "clears", CheckHostClearsEndpointHosts: true}
	keeps := policy.Target{Name: "keeps"}
	withHost := &corev3.HealthCheck{HealthChecker: &corev3.HealthCheck_HttpHealthCheck_{HttpHealthCheck: &corev3.HealthCheck_HttpHealthCheck{Host: "probe.example.com", Path: "/"}}}
	for _, tc := range []struct {
		name   string
		target policy.Target
		hc     *corev3.HealthCheck
		want   string
	}{
		{"http host", clears, withHost, ""},
		{"grpc authority", clears, &corev3.HealthCheck{HealthChecker: &corev3.HealthCheck_GrpcHealthCheck_{GrpcHealthCheck: &corev3.HealthCheck_GrpcHealthCheck{Authority: "probe"}}}, ""},
		{"http without host", clears, &corev3.HealthCheck{HealthChecker: &corev3.HealthCheck_HttpHealthCheck_{HttpHealthCheck: &corev3.HealthCheck_HttpHealthCheck{Path: "/"}}}, "svc.example.com"},
		{"http host, target keeps", keeps, withHost, "svc.example.com"},
	} {
		c := &clusterv3.Cluster{Name: "c", LoadAssignment: &endpointv3.ClusterLoadAssignment{ClusterName: "c", Endpoints: []*endpointv3.LocalityLbEndpoints{{LbEndpoints: []*endpointv3.LbEndpoint{{
			HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{HealthCheckConfig: &endpointv3.Endpoint_HealthCheckConfig{Hostname: "svc.example.com"}}},
		}}}}}}
		b := &builder{target: tc.target}
		b.mergeCluster(c, &clusterv3.Cluster{HealthChecks: []*corev3.HealthCheck{tc.hc}})
		got := c.LoadAssignment.Endpoints[0].LbEndpoints[0].GetEndpoint().GetHealthCheckConfig().GetHostname()
		if got != tc.want {
			t.Errorf("%s: endpoint health-check hostname %q, want %q", tc.name, got, tc.want)
		}
	}
}

// TestMergeClusterOfType: settings of one cluster type tune only a cluster
// of that type, and replace its type configuration and lookup family
// whole, zero values (AUTO) included.
func TestMergeClusterOfType(t *testing.T) {
	typed := func(name string, family clusterv3.Cluster_DnsLookupFamily, rate string) *clusterv3.Cluster {
		return &clusterv3.Cluster{
			ClusterDiscoveryType: &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{Name: name, TypedConfig: &anypb.Any{TypeUrl: "t", Value: []byte(rate)}}},
			DnsLookupFamily:      family,
		}
	}
	b := &builder{target: policy.UpstreamTarget}
	dst := typed("dfp", clusterv3.Cluster_V4_PREFERRED, "30s")
	b.mergeClusterOfType(dst, typed("dfp", clusterv3.Cluster_AUTO, "1s"))
	if dst.DnsLookupFamily != clusterv3.Cluster_AUTO || string(dst.GetClusterType().GetTypedConfig().GetValue()) != "1s" {
		t.Errorf("same type: %v", dst)
	}
	other := typed("dns", clusterv3.Cluster_V4_PREFERRED, "30s")
	b.mergeClusterOfType(other, typed("dfp", clusterv3.Cluster_ALL, "1s"))
	if other.DnsLookupFamily != clusterv3.Cluster_V4_PREFERRED || string(other.GetClusterType().GetTypedConfig().GetValue()) != "30s" {
		t.Errorf("other type: %v", other)
	}
	eds := &clusterv3.Cluster{ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS}}
	b.mergeClusterOfType(eds, typed("dfp", clusterv3.Cluster_ALL, "1s"))
	if eds.DnsLookupFamily != clusterv3.Cluster_AUTO || eds.GetType() != clusterv3.Cluster_EDS {
		t.Errorf("EDS: %v", eds)
	}
}

// TestShapeTypedClusters: a fragment's cluster parts
// (policy.Fragment.TypedClusterParts) shape each of its whole clusters as
// a backend's fields shape its cluster — two parts' HTTP protocol options
// merge into one extension, a PROXY protocol socket wraps the cluster's
// TLS one, a part of another cluster type's settings leaves it as it is,
// the finishing steps run last — and leave the fragment's clusters as
// given untouched; a part that is no Cluster is an error.
func TestShapeTypedClusters(t *testing.T) {
	whole := &clusterv3.Cluster{Name: "svc", ConnectTimeout: durationpb.New(1e10),
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:     &clusterv3.Cluster_EdsClusterConfig{EdsConfig: &corev3.ConfigSource{ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}},
		TransportSocket:      socket("envoy.transport_sockets.tls", &tlsv3.UpstreamTlsContext{Sni: "a"})}
	given := proto.Clone(whole)
	opts := func(o *upstreamhttpv3.HttpProtocolOptions) *clusterv3.Cluster {
		return &clusterv3.Cluster{TypedExtensionProtocolOptions: map[string]*anypb.Any{httpProtocolOptionsKey: mustAny(o)}}
	}
	finished := false
	b := &builder{target: policy.UpstreamTarget}
	fr, err := b.shapeTypedClusters(policy.Fragment{TypedClusters: []proto.Message{whole}, TypedClusterParts: []policy.Fragment{
		{Cluster: opts(&upstreamhttpv3.HttpProtocolOptions{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{IdleTimeout: durationpb.New(5e9)}})},
		{Cluster: opts(&upstreamhttpv3.HttpProtocolOptions{CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{MaxRequestsPerConnection: wrapperspb.UInt32(1)}})},
		{Cluster: &clusterv3.Cluster{TransportSocket: socket(proxyProtocolSocket, &proxyprotocolv3.ProxyProtocolUpstreamTransport{Config: &corev3.ProxyProtocolConfig{}})}},
		{ClusterOfType: &clusterv3.Cluster{ClusterDiscoveryType: &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{Name: "other", TypedConfig: mustAny(&corev3.ProxyProtocolConfig{})}}, DnsLookupFamily: clusterv3.Cluster_V6_ONLY}},
		{ClusterFinish: func(m proto.Message) {
			finished = m.(*clusterv3.Cluster).GetTransportSocket().GetName() == proxyProtocolSocket
		}},
	}})
	if err != nil {
		t.Fatal(err)
	}
	if len(fr.TypedClusters) != 1 || fr.TypedClusterParts != nil {
		t.Fatalf("fragment %v; want one cluster, the parts used up", fr)
	}
	c := fr.TypedClusters[0].(*clusterv3.Cluster)
	o := &upstreamhttpv3.HttpProtocolOptions{}
	if err := c.TypedExtensionProtocolOptions[httpProtocolOptionsKey].UnmarshalTo(o); err != nil {
		t.Fatal(err)
	}
	if o.GetCommonHttpProtocolOptions().GetIdleTimeout() == nil || o.GetCommonHttpProtocolOptions().GetMaxRequestsPerConnection() == nil || o.GetExplicitHttpConfig() == nil {
		t.Errorf("options %v; want both parts' and HTTP/1.1 named", o)
	}
	if got := innerSocket(t, c.TransportSocket); got != "envoy.transport_sockets.tls" {
		t.Errorf("inner socket %q; want the TLS one wrapped", got)
	}
	if c.GetType() != clusterv3.Cluster_EDS || c.DnsLookupFamily != clusterv3.Cluster_AUTO || !finished {
		t.Errorf("type %v, lookup family %v, finished %v; want EDS kept, no family, the finishing step run after the merges", c.GetType(), c.DnsLookupFamily, finished)
	}
	if !proto.Equal(whole, given) {
		t.Errorf("the fragment's cluster as given was changed: %v", whole)
	}
	if _, err := b.shapeTypedClusters(policy.Fragment{TypedClusters: []proto.Message{whole}, TypedClusterParts: []policy.Fragment{{Cluster: &corev3.ProxyProtocolConfig{}}}}); err == nil {
		t.Error("a part that is no Cluster: no error")
	}
}

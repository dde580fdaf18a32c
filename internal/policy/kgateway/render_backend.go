package kgateway

import (
	"fmt"
	"net/netip"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	dnscommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/common/dns/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"
	dfpclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dynamic_forward_proxy/v3"
	dfpfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/dynamic_forward_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// The kgateway Backend's cluster, as kgateway builds it.
var _ policy.BackendClusterer = Kind{}

// BackendCluster implements policy.BackendClusterer for kgateway's
// Backend: static hosts are a DNS cluster with one endpoint per host
// (HTTP/2 when appProtocol says so); a dynamic forward proxy is Envoy's
// dynamic_forward_proxy cluster, with its HTTP filter in the chain.
// AWS Lambda is a DNS cluster whose upstream filters invoke the function
// (render_backend_aws.go); GCP a DNS cluster to the service whose
// requests carry an identity token (render_backend_gcp.go).
func (Kind) BackendCluster(o *manifest.Object, name string, env *policy.Env) (*policy.BackendBuild, error) {
	build, err := backendCluster(o, name, envModel(env))
	if err == nil && build != nil {
		var cfg policy.Config
		if env != nil {
			cfg = env.Config
		}
		resolveWith(build.Cluster, DNSLookupFamily.String(cfg))
	}
	return build, err
}

// resolveWith is kgateway's processDnsLookupFamily, run on every backend's
// cluster once its plugin built it: a cluster resolved by the DNS cluster
// extension looks names up in the deployment's address family
// (dnsLookupFamily), whatever the plugin set; other clusters (EDS, a
// dynamic forward proxy, the extra clusters a backend brings) keep theirs.
func resolveWith(m proto.Message, family string) {
	c, ok := m.(*clusterv3.Cluster)
	ct := c.GetClusterType()
	if !ok || ct.GetName() != "envoy.clusters.dns" || ct.GetTypedConfig() == nil {
		return
	}
	d := &dnsclusterv3.DnsCluster{}
	if ct.GetTypedConfig().UnmarshalTo(d) != nil {
		return
	}
	d.DnsLookupFamily = dnscommonv3.DnsLookupFamily(dnscommonv3.DnsLookupFamily_value[family])
	ct.TypedConfig = pack(d)
}

func backendCluster(o *manifest.Object, name string, m *model.Model) (*policy.BackendBuild, error) {
	var b Backend
	if err := o.Decode(&b); err != nil {
		return nil, err
	}
	c := &clusterv3.Cluster{Name: name, ConnectTimeout: durationpb.New(5 * time.Second)}
	switch s := b.Spec; {
	case s.Static != nil:
		if err := checkStaticHosts(s.Static.Hosts); err != nil {
			return nil, err
		}
		var eps []*endpointv3.LbEndpoint
		for _, h := range s.Static.Hosts {
			eps = append(eps, &endpointv3.LbEndpoint{
				HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{
					Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
						Address: h.Host, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(h.Port)},
					}}},
					Hostname:          h.Host,
					HealthCheckConfig: &endpointv3.Endpoint_HealthCheckConfig{Hostname: h.Host},
				}},
			})
		}
		c.LoadAssignment = &endpointv3.ClusterLoadAssignment{ClusterName: name, Endpoints: []*endpointv3.LocalityLbEndpoints{{LbEndpoints: eps}}}
		c.ClusterDiscoveryType = &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC}
		if !allAddresses(s.Static.Hosts) {
			c.ClusterDiscoveryType = &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{
				Name: "envoy.clusters.dns", TypedConfig: pack(&dnsclusterv3.DnsCluster{DnsLookupFamily: dnscommonv3.DnsLookupFamily_V4_PREFERRED}),
			}}
		}
		if p := s.Static.AppProtocol; p != nil && staticHTTP2(*p) {
			c.TypedExtensionProtocolOptions = map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": pack(&upstreamhttpv3.HttpProtocolOptions{
				UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
					ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: &corev3.Http2ProtocolOptions{}},
				}},
			})}
		}
		return &policy.BackendBuild{Cluster: c}, nil
	case s.DynamicForwardProxy != nil:
		c.LbPolicy = clusterv3.Cluster_CLUSTER_PROVIDED
		c.ClusterDiscoveryType = &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{
			Name: "envoy.clusters.dynamic_forward_proxy",
			TypedConfig: pack(&dfpclusterv3.ClusterConfig{ClusterImplementationSpecifier: &dfpclusterv3.ClusterConfig_SubClustersConfig{
				SubClustersConfig: &dfpclusterv3.SubClustersConfig{LbPolicy: clusterv3.Cluster_LEAST_REQUEST},
			}}),
		}}
		if t := s.DynamicForwardProxy.EnableTLS; t != nil && *t {
			ctx := &tlsv3.UpstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{ValidationContextType: &tlsv3.CommonTlsContext_CombinedValidationContext{
				CombinedValidationContext: &tlsv3.CommonTlsContext_CombinedCertificateValidationContext{
					DefaultValidationContext:         &tlsv3.CertificateValidationContext{},
					ValidationContextSdsSecretConfig: &tlsv3.SdsSecretConfig{Name: "SYSTEM_CA_CERT"},
				}}}}
			c.TransportSocket = &corev3.TransportSocket{Name: "envoy.transport_sockets.tls", ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: pack(ctx)}}
		}
		f := &policy.HTTPFilter{Name: "envoy.filters.http.dynamic_forward_proxy", Typed: &dfpfilterv3.FilterConfig{
			ImplementationSpecifier: &dfpfilterv3.FilterConfig_SubClusterConfig{SubClusterConfig: &dfpfilterv3.SubClusterConfig{}},
		}}
		return &policy.BackendBuild{Cluster: c, Filter: f}, nil
	case s.Aws != nil:
		c, err := awsCluster(s.Aws, model.KeyOf(o).Namespace, name, m)
		if err != nil {
			return nil, err
		}
		return &policy.BackendBuild{Cluster: c}, nil
	case s.Gcp != nil:
		return gcpBackend(s.Gcp, name)
	}
	return nil, diag.Errorf(diag.Unsupported, "the Backend sets no backend type gwpol renders")
}

// checkStaticHosts holds static hosts to the bounds kgateway's Backend
// CRD sets (at least one host; a host is not empty; a port is 1–65535):
// without the CRD at hand gwpol would otherwise write an endpoint Envoy
// refuses.
func checkStaticHosts(hosts []Host) error {
	if len(hosts) == 0 {
		return diag.FieldErrorf(diag.Invalid, "spec.static.hosts", "spec.static.hosts is empty; give at least one host")
	}
	for i, h := range hosts {
		path := fmt.Sprintf("spec.static.hosts[%d]", i)
		if h.Host == "" {
			return diag.FieldErrorf(diag.Invalid, path+".host", "%s.host is empty", path)
		}
		if h.Port < 1 || h.Port > 65535 {
			return diag.FieldErrorf(diag.Invalid, path+".port", "%s.port %d is not a port (1-65535)", path, h.Port)
		}
	}
	return nil
}

// allAddresses: every static host is an IP address, so nothing is
// resolved and kgateway's buildStaticIr keeps the cluster STATIC; one
// host name among them makes it a DNS cluster (the DNS cluster extension)
// for all.
func allAddresses(hosts []Host) bool {
	for _, h := range hosts {
		if _, err := netip.ParseAddr(h.Host); err != nil {
			return false
		}
	}
	return true
}

var _ policy.BackendDescriber = Kind{}

// BackendSettings implements policy.BackendDescriber: the cluster
// settings BackendCluster takes from a Backend's own spec, which a
// BackendConfigPolicy or BackendTLSPolicy on the Backend replaces.
func (Kind) BackendSettings(o *manifest.Object) map[string]string {
	var b Backend
	if err := o.Decode(&b); err != nil {
		return nil
	}
	out := map[string]string{}
	switch s := b.Spec; {
	case s.Static != nil:
		if p := s.Static.AppProtocol; p != nil && staticHTTP2(*p) {
			out[policy.ClusterHTTP2Options] = "spec.static.appProtocol"
		}
	case s.DynamicForwardProxy != nil:
		out[policy.ClusterLoadBalancing] = "spec.dynamicForwardProxy"
		if t := s.DynamicForwardProxy.EnableTLS; t != nil && *t {
			out[policy.ClusterTransportSocket] = "spec.dynamicForwardProxy.enableTls"
		}
	case s.Aws != nil && s.Aws.Lambda != nil:
		out[policy.ClusterCommonHTTPOptions] = "spec.aws.lambda"
		out[policy.ClusterHTTP2Options] = "spec.aws.lambda"
		if _, _, tls, err := lambdaEndpoint(s.Aws.Lambda.EndpointURL, defaultAwsRegion); err == nil && tls {
			out[policy.ClusterTransportSocket] = "spec.aws.lambda"
		}
	case s.Aws != nil && s.Aws.Ec2 != nil:
		out[policy.ClusterLoadBalancing] = "spec.aws.ec2"
	case s.Gcp != nil:
		out[policy.ClusterTransportSocket] = "spec.gcp.host"
	}
	return out
}

// staticHTTP2: the appProtocols kgateway speaks HTTP/2 to.
func staticHTTP2(appProtocol string) bool {
	switch appProtocol {
	case "http2", "grpc", "grpc-web", "kubernetes.io/h2c":
		return true
	}
	return false
}

var _ policy.PortlessBackends = Kind{}

// PortlessBackendKinds implements policy.PortlessBackends: a Backend
// defines its own ports, and kgateway refuses a backendRef to one that
// names a port (ErrBackendPortNotAllowed).
func (Kind) PortlessBackendKinds() []model.GroupKind { return Kind{}.BackendKinds() }

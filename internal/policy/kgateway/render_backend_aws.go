package kgateway

import (
	"fmt"
	"net/url"
	"strconv"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	dnscommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/common/dns/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"
	awsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/aws/v3"
	awslambdav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/aws_lambda/v3"
	awssigningv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/aws_request_signing/v3"
	upstreamcodecv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/upstream_codec/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// AWS Backends, as kgateway builds their clusters.

// defaultAwsRegion is kgateway's region when the Backend names none.
const defaultAwsRegion = "us-east-1"

// awsCluster builds the cluster of an AWS Backend: a Lambda function or
// EC2 instances.
func awsCluster(a *AwsBackend, ns, name string, m *model.Model) (*clusterv3.Cluster, error) {
	switch {
	case a.Lambda != nil:
		return lambdaCluster(a, ns, name, m)
	case a.Ec2 != nil:
		return ec2Cluster(name), nil
	}
	return nil, diag.Errorf(diag.Invalid, "aws sets neither lambda nor ec2")
}

// ec2Cluster: the instances discovery finds are the cluster's endpoints,
// served over EDS by the controller (kgateway weighs them by zone), so
// offline the cluster has none.
func ec2Cluster(name string) *clusterv3.Cluster {
	return &clusterv3.Cluster{
		Name:                      name,
		ConnectTimeout:            durationpb.New(5 * time.Second),
		ClusterDiscoveryType:      &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:          &clusterv3.Cluster_EdsClusterConfig{EdsConfig: &corev3.ConfigSource{ResourceApiVersion: corev3.ApiVersion_V3, ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}}}},
		IgnoreHealthOnHostRemoval: true,
		CommonLbConfig: &clusterv3.Cluster_CommonLbConfig{LocalityConfigSpecifier: &clusterv3.Cluster_CommonLbConfig_LocalityWeightedLbConfig_{
			LocalityWeightedLbConfig: &clusterv3.Cluster_CommonLbConfig_LocalityWeightedLbConfig{}}},
	}
}

// lambdaCluster is a DNS cluster to the Lambda endpoint (the region's, or
// endpointURL) speaking HTTP/2, whose upstream filters turn the request
// into an invocation of the function and sign it.
func lambdaCluster(a *AwsBackend, ns, name string, m *model.Model) (*clusterv3.Cluster, error) {
	l := a.Lambda
	region := defaultAwsRegion
	if a.Region != nil && *a.Region != "" {
		region = *a.Region
	}
	account := lambdaAccount(a)
	if account == "" || l.FunctionName == "" {
		return nil, diag.Errorf(diag.Invalid, "aws.lambda needs an accountId and a functionName")
	}
	qualifier := "$LATEST"
	if l.Qualifier != nil && *l.Qualifier != "" {
		qualifier = *l.Qualifier
	}
	host, port, tls, err := lambdaEndpoint(l.EndpointURL, region)
	if err != nil {
		return nil, err
	}
	invoke := &awslambdav3.Config{
		Arn:                fmt.Sprintf("arn:aws:lambda:%s:%s:function:%s:%s", region, account, l.FunctionName, qualifier),
		PayloadPassthrough: l.PayloadTransformMode != nil && *l.PayloadTransformMode == "None",
	}
	if l.InvocationMode != nil && *l.InvocationMode == "Async" {
		invoke.InvocationMode = awslambdav3.Config_ASYNCHRONOUS
	}
	signing := &awssigningv3.AwsRequestSigning{ServiceName: "lambda", Region: region, CredentialProvider: awsCredentials(a.Auth, ns, m)}
	opts := &upstreamhttpv3.HttpProtocolOptions{
		CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{IdleTimeout: durationpb.New(30 * time.Second)},
		UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: &corev3.Http2ProtocolOptions{}},
		}},
		HttpFilters: []*hcmv3.HttpFilter{
			upstreamFilter("envoy.filters.http.aws_lambda", pack(invoke)),
			upstreamFilter("envoy.filters.http.aws_request_signing", pack(signing)),
			upstreamFilter("envoy.filters.http.upstream_codec", pack(&upstreamcodecv3.UpstreamCodec{})),
		},
	}
	c := hostCluster(name, host, port, tls)
	c.ClusterDiscoveryType = dnsClusterType(&dnsclusterv3.DnsCluster{AllAddressesInSingleEndpoint: true, DnsLookupFamily: dnscommonv3.DnsLookupFamily_V4_PREFERRED})
	c.TypedExtensionProtocolOptions = map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": pack(opts)}
	return c, nil
}

// lambdaAccount is the account whose function is invoked: lambda's own
// accountId, else the deprecated one beside it (kgateway's
// getLambdaAccountID, and the pinned CRD: "When both fields are set,
// spec.aws.lambda.accountId takes precedence").
func lambdaAccount(a *AwsBackend) string {
	if a.Lambda != nil && a.Lambda.AccountID != "" {
		return a.Lambda.AccountID
	}
	return a.AccountID
}

// lambdaEndpoint is where invocations go: endpointURL (a local Lambda
// emulator, say) or the region's Lambda endpoint over TLS.
func lambdaEndpoint(endpointURL *string, region string) (host string, port uint32, tls bool, err error) {
	if endpointURL == nil || *endpointURL == "" {
		return "lambda." + region + ".amazonaws.com", 443, true, nil
	}
	u, err := url.Parse(*endpointURL)
	if err != nil || u.Hostname() == "" {
		return "", 0, false, diag.Errorf(diag.Invalid, "aws.lambda.endpointURL %q is not a URL with a host", *endpointURL)
	}
	// kgateway takes the port from the URL alone, with no scheme default:
	// a URL without one fails to parse (backend/aws.go:
	// configureLambdaEndpoint).
	n, err := strconv.ParseUint(u.Port(), 10, 16)
	if err != nil {
		return "", 0, false, diag.Errorf(diag.Invalid, "aws.lambda.endpointURL %q: failed to parse port: the URL must name its port", *endpointURL)
	}
	return u.Hostname(), uint32(n), u.Scheme == "https", nil
}

// awsCredentials signs with the Secret's keys (never read offline: named
// by placeholders) or with an assumed role; without auth, Envoy's default
// credential chain. The Secret's session token is written beside its keys
// when the Secret holds one (kgateway's configureAWSAuth writes
// deriveStaticSecret's session, an empty one being none); a Secret whose
// data is not in the input is taken to hold none.
func awsCredentials(auth *AwsAuth, ns string, m *model.Model) *awsv3.AwsCredentialProvider {
	switch {
	case auth == nil:
		return nil
	case auth.AssumeRole != nil:
		return &awsv3.AwsCredentialProvider{AssumeRoleCredentialProvider: &awsv3.AssumeRoleCredentialProvider{RoleArn: auth.AssumeRole.RoleARN}}
	case auth.SecretRef != nil:
		inline := &awsv3.InlineCredentialProvider{
			AccessKeyId:     policy.SecretPlaceholder(ns, auth.SecretRef.Name, "accessKey"),
			SecretAccessKey: policy.SecretPlaceholder(ns, auth.SecretRef.Name, "secretKey"),
		}
		if holdsValue(m, ns, auth.SecretRef.Name, "sessionToken") {
			inline.SessionToken = policy.SecretPlaceholder(ns, auth.SecretRef.Name, "sessionToken")
		}
		return &awsv3.AwsCredentialProvider{InlineCredential: inline}
	}
	return nil
}

// hostCluster is a cluster with one endpoint, host:port, and TLS with
// the host as SNI when asked.
func hostCluster(name, host string, port uint32, tls bool) *clusterv3.Cluster {
	c := &clusterv3.Cluster{Name: name, ConnectTimeout: durationpb.New(5 * time.Second),
		LoadAssignment: &endpointv3.ClusterLoadAssignment{ClusterName: name, Endpoints: []*endpointv3.LocalityLbEndpoints{{LbEndpoints: []*endpointv3.LbEndpoint{{
			HostIdentifier: &endpointv3.LbEndpoint_Endpoint{Endpoint: &endpointv3.Endpoint{Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
				Address: host, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: port},
			}}}}},
		}}}}}}
	if tls {
		c.TransportSocket = &corev3.TransportSocket{Name: "envoy.transport_sockets.tls",
			ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: pack(&tlsv3.UpstreamTlsContext{Sni: host})}}
	}
	return c
}

func dnsClusterType(d *dnsclusterv3.DnsCluster) *clusterv3.Cluster_ClusterType {
	return &clusterv3.Cluster_ClusterType{ClusterType: &clusterv3.Cluster_CustomClusterType{Name: "envoy.clusters.dns", TypedConfig: pack(d)}}
}

func upstreamFilter(name string, cfg *anypb.Any) *hcmv3.HttpFilter {
	return &hcmv3.HttpFilter{Name: name, ConfigType: &hcmv3.HttpFilter_TypedConfig{TypedConfig: cfg}}
}

// holdsValue: the Secret ns/name is in the input with its data, and holds
// a non-empty key (what kgateway reads as set).
func holdsValue(m *model.Model, ns, name, key string) bool {
	if m == nil {
		return false
	}
	s := m.Secret(ns, name)
	if s == nil || s.Assumed {
		return false
	}
	v, ok := s.Value(key)
	return ok && v.Len() > 0
}

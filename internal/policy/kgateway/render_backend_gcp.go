package kgateway

import (
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	dnscommonv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/common/dns/v3"
	dnsclusterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/clusters/dns/v3"
	gcpauthnv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/gcp_authn/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// GCP Backends, as kgateway builds them: the service over TLS on 443, the
// gcp_authn filter fetching an identity token for the cluster's audience
// from the GCE metadata server (its own cluster), and routes rewriting
// the host to the service's.

const (
	gcpAuthnFilter  = "envoy.filters.http.gcp_authn"
	gcpAuthnCluster = "gcp_authn"
)

// gcpBackend builds a GCP Backend's cluster and what routing to it needs.
func gcpBackend(g *GcpBackend, name string) (*policy.BackendBuild, error) {
	if g.Host == "" {
		return nil, diag.Errorf(diag.Invalid, "gcp.host is empty")
	}
	audience := "https://" + g.Host
	if g.Audience != nil && *g.Audience != "" {
		audience = *g.Audience
	}
	c := hostCluster(name, g.Host, 443, true)
	c.ClusterDiscoveryType = dnsClusterType(&dnsclusterv3.DnsCluster{DnsLookupFamily: dnscommonv3.DnsLookupFamily_V4_PREFERRED})
	c.Metadata = &corev3.Metadata{TypedFilterMetadata: map[string]*anypb.Any{gcpAuthnFilter: pack(&gcpauthnv3.Audience{Url: audience})}}
	filter := &policy.HTTPFilter{Name: gcpAuthnFilter, Enabled: true, Typed: &gcpauthnv3.GcpAuthnFilterConfig{
		Cluster: gcpAuthnCluster, Timeout: durationpb.New(10 * time.Second)}}
	route := &routev3.RouteAction{HostRewriteSpecifier: &routev3.RouteAction_AutoHostRewrite{AutoHostRewrite: wrapperspb.Bool(true)}}
	return &policy.BackendBuild{Cluster: c, Filter: filter, Clusters: []proto.Message{metadataServerCluster()}, Route: route}, nil
}

// metadataServerCluster is the GCE metadata server the gcp_authn filter
// fetches tokens from.
func metadataServerCluster() *clusterv3.Cluster {
	c := hostCluster(gcpAuthnCluster, "metadata.google.internal", 80, false)
	c.AltStatName = gcpAuthnCluster
	c.ClusterDiscoveryType = dnsClusterType(&dnsclusterv3.DnsCluster{DnsLookupFamily: dnscommonv3.DnsLookupFamily_V4_ONLY, RespectDnsTtl: true})
	return c
}

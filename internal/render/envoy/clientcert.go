package envoy

import (
	"slices"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/policy"
)

// A Gateway whose spec.tls.backend names a client certificate presents it
// on the upstream TLS connections of its routes. The clusters are shared
// by every Gateway, so each TLS cluster gets a variant of the Gateway's
// own — named by the target (policy.XDSNames.ClientCertCluster), the
// certificate added — and the Gateway's routes send to the variant.

const tlsSocket = "envoy.transport_sockets.tls"

// gatewayClientCertificate adds the Gateway's client-certificate variants
// of its TLS clusters and points its routes at them.
func (gb *gatewayBuild) gatewayClientCertificate(rcs []*routev3.RouteConfiguration) {
	if !gb.presentsClientCertificate() {
		return
	}
	ref := gb.gw.Spec.TLS.Backend.ClientCertificateRef
	ns := gb.gw.Namespace
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	sds := &tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(ns, string(ref.Name)), SdsConfig: adsSource()}
	variants := map[string]string{}
	for _, name := range slices.Sorted(mapKeys(gb.clusters)) {
		c := gb.clusters[name]
		v, ok := clientCertVariant(c, gb.naming.ClientCertCluster, gb.gw.Namespace, gb.gw.Name, sds)
		if ok {
			variants[name] = v.Name
			gb.clusters[v.Name] = v
		}
	}
	if len(variants) == 0 {
		return
	}
	for _, rc := range rcs {
		for _, vh := range rc.VirtualHosts {
			for _, r := range vh.Routes {
				renameClusters(r.GetRoute(), variants)
			}
		}
	}
}

// clientCertVariant is the Gateway's variant of a cluster with an upstream
// TLS socket: the same cluster presenting the certificate.
func clientCertVariant(c *clusterv3.Cluster, variant func(cluster, ns, gateway string) (string, bool), gwNS, gwName string, sds *tlsv3.SdsSecretConfig) (*clusterv3.Cluster, bool) {
	if c.GetTransportSocket().GetName() != tlsSocket {
		return nil, false
	}
	ctx := &tlsv3.UpstreamTlsContext{}
	if err := c.GetTransportSocket().GetTypedConfig().UnmarshalTo(ctx); err != nil {
		return nil, false
	}
	name, ok := variant(c.Name, gwNS, gwName)
	if !ok {
		return nil, false
	}
	v := proto.Clone(c).(*clusterv3.Cluster)
	v.Name = name
	if v.LoadAssignment != nil {
		v.LoadAssignment.ClusterName = v.Name
	}
	if ctx.CommonTlsContext == nil {
		ctx.CommonTlsContext = &tlsv3.CommonTlsContext{}
	}
	ctx.CommonTlsContext.TlsCertificateSdsSecretConfigs = []*tlsv3.SdsSecretConfig{sds}
	v.TransportSocket = &corev3.TransportSocket{Name: tlsSocket, ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(ctx)}}
	return v, true
}

// renameClusters points a route action at the variants.
func renameClusters(a *routev3.RouteAction, to map[string]string) {
	if a == nil {
		return
	}
	if n, ok := to[a.GetCluster()]; ok {
		a.ClusterSpecifier = &routev3.RouteAction_Cluster{Cluster: n}
	}
	for _, w := range a.GetWeightedClusters().GetClusters() {
		if n, ok := to[w.Name]; ok {
			w.Name = n
		}
	}
	for _, m := range a.RequestMirrorPolicies {
		if n, ok := to[m.Cluster]; ok {
			m.Cluster = n
		}
	}
}

// presentsClientCertificate reports whether the Gateway names a client
// certificate for its backends.
func (gb *gatewayBuild) presentsClientCertificate() bool {
	tls := gb.gw.Spec.TLS
	return tls != nil && tls.Backend != nil && tls.Backend.ClientCertificateRef != nil
}

package envoy

import (
	"fmt"
	"slices"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file renders the L4 side of a Gateway: TCP and TLS listeners carry
// no HTTP connection manager but one tcp_proxy filter chain per route
// they serve.
//
//   - The routes served are topology's Listener.StreamRoutes (its
//     controller's rule: on a TCP listener one route, in a chain
//     without a match; on a TLS listener every one), less those the
//     controller's route verdict refuses on the listener
//     (policy.RouteVerdict.UnservedOn). A TLSRoute's chain matches the
//     SNI of its hostnames (the listener's hostname when the route names
//     none); a TCPRoute's matches nothing. Its connections go to the
//     backends of its rules (pooledBackends).
//   - A chain is named, and its tcp_proxy stat prefix is, as the target
//     names it (policy.XDSNames.StreamChain).
//   - A backendRef that does not resolve still takes its share of
//     connections: they go to blackhole-cluster, which exists nowhere, so
//     they fail as the spec asks (Envoy closes them: no route).
//   - A listener that terminates TLS (mode Terminate, with certificates)
//     puts its certificates on the chain, offering no ALPN protocol.
//   - A TCP or TLS listener that serves no route has no chain, and a port
//     with no chain no Envoy listener — unless the target names an empty
//     cluster (policy.Target.EmptyStreamCluster): the port then gets one
//     chain to it (emptyStreamChain).

// streamChains builds the tcp_proxy filter chains of the TCP and TLS
// listeners of one port (the Envoy listener named listenerName), and
// reports whether one matches on SNI (the listener then needs a
// tls_inspector). whole are the Gateway's rendered fields on the port,
// whose network filters, TCP proxy and TLS settings the chains take;
// own, per listener, the merge of its own policies of the kinds that
// configure such listeners (streamListenerScopes): its fields replace the
// Gateway's of the same kind and key, and its merge metadata goes on the
// listener's chains.
func (gb *gatewayBuild) streamChains(listenerName string, ls []*topology.Listener, whole []*rendered, own map[*topology.Listener]*scoped) ([]*listenerv3.FilterChain, bool) {
	var chains []*listenerv3.FilterChain
	var empty *listenerv3.FilterChain
	byName := map[string]*listenerv3.FilterChain{}
	for _, l := range ls {
		fields := whole
		var md *corev3.Metadata
		if s := own[l]; s != nil {
			fields = overWhole(whole, onPort(s.fields, int32(l.Port)))
			md = s.metadata
		}
		served := false
		dropped := gb.streamRoutesDropped(l)
		for _, a := range l.StreamRoutes() {
			if _, unserved := gb.res.Verdict(a.Route, gb.gw).Unserved(l); unserved || dropped {
				continue // the controller refuses the route on this listener, or all of them
			}
			served = true
			fc := gb.streamChain(listenerName, l, a, fields)
			if fc == nil {
				continue
			}
			fc.Metadata = md
			if prev, ok := byName[fc.Name]; ok {
				widenMatch(prev, fc)
				continue
			}
			byName[fc.Name] = fc
			chains = append(chains, fc)
		}
		if !served && empty == nil && gb.awaitsStreamRoute(l) {
			// the port's first listener without a route decides the
			// settings of its one empty chain
			empty = gb.emptyStreamChain(fields)
			empty.Metadata = md
		}
	}
	if empty != nil {
		chains = append(chains, empty)
	}
	sni := slices.ContainsFunc(chains, func(fc *listenerv3.FilterChain) bool { return len(fc.GetFilterChainMatch().GetServerNames()) > 0 })
	return chains, sni
}

// widenMatch folds a second chain of the same route on one port (the
// route attached through two TLS listeners) into the first: Envoy takes
// no two chains of one name, so the first serves both sets of names —
// any name, when either matches any — with the first listener's TLS
// settings.
func widenMatch(into, from *listenerv3.FilterChain) {
	a, b := into.GetFilterChainMatch().GetServerNames(), from.GetFilterChainMatch().GetServerNames()
	if len(a) == 0 || len(b) == 0 {
		into.FilterChainMatch = nil
		return
	}
	names := slices.Concat(a, b)
	slices.Sort(names)
	into.FilterChainMatch.ServerNames = slices.Compact(names)
}

// streamChain is the filter chain of one route attached to a TCP or TLS
// listener, nil when none is programmed for it.
func (gb *gatewayBuild) streamChain(listenerName string, l *topology.Listener, a *topology.Attachment, fields []*rendered) *listenerv3.FilterChain {
	r := a.Route
	terminate := streamTerminatesTLS(l)
	if terminate && apimeta.IsStatusConditionFalse(l.Conditions, "ResolvedRefs") {
		return nil // certificates that do not resolve (the listener's ResolvedRefs False): no chain
	}
	name := gb.naming.StreamChain(listenerName, r.Meta.Namespace, r.Meta.Name)
	fc := proxyChain(name, gb.tcpProxy(name, pooledBackends(r)), fields)
	if r.Kind == "TLSRoute" && len(a.Hostnames) > 0 {
		fc.FilterChainMatch = &listenerv3.FilterChainMatch{ServerNames: slices.Clone(a.Hostnames)}
	}
	if terminate {
		fc.TransportSocket = gb.streamTLS(l, fields)
	}
	return fc
}

// proxyChain is a filter chain of that name whose TCP proxy is tp, with
// the network filters and TCP proxy settings of fields.
func proxyChain(name string, tp *tcpproxyv3.TcpProxy, fields []*rendered) *listenerv3.FilterChain {
	var network []*listenerv3.Filter
	for _, f := range fields {
		network = append(network, f.network...)
		if f.tcpProxy != nil {
			overlay(tp, f.tcpProxy)
		}
	}
	return &listenerv3.FilterChain{
		Name: name,
		Filters: append(network, &listenerv3.Filter{
			Name:       "envoy.filters.network.tcp_proxy",
			ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(tp)},
		}),
	}
}

// streamRoutesDropped reports whether the target serves none of TCP or
// TLS listener l's routes because an invalid policy of a kind that
// configures such listeners reaches it (policy.Target.InvalidDropsStreamRoutes):
// the listener's own, or the Gateway's where the controller applies it
// on l.
func (gb *gatewayBuild) streamRoutesDropped(l *topology.Listener) bool {
	if !gb.target.InvalidDropsStreamRoutes || (l.Protocol != gwv1.TCPProtocolType && l.Protocol != gwv1.TLSProtocolType) {
		return false
	}
	if lp := gb.res.Listener(l); lp != nil {
		for _, p := range lp.Own {
			if configuresStreams(p.Kind) && len(p.Invalid) > 0 {
				return true // the Gateway's policy invalid on l alone, or l's own
			}
		}
	}
	gp := gb.res.Gateway(gb.gw)
	if gp == nil {
		return false
	}
	for _, p := range gp.Whole {
		if !configuresStreams(p.Kind) {
			continue
		}
		for _, c := range p.Invalid {
			if gb.res.RejectedOn(c.Policy, l) == nil {
				return true
			}
		}
	}
	return false
}

// configuresStreams reports whether a kind's policies configure TCP and
// TLS listeners (policy.StreamListenerConfigurer).
func configuresStreams(k policy.Kind) bool {
	sc, ok := k.(policy.StreamListenerConfigurer)
	return ok && sc.ConfiguresStreamListeners()
}

// awaitsStreamRoute reports whether the target gives a served TCP or TLS
// listener l that serves no route an empty chain
// (policy.Target.EmptyStreamCluster): one whose controller builds it,
// not a terminating one whose certificates do not resolve.
func (gb *gatewayBuild) awaitsStreamRoute(l *topology.Listener) bool {
	if gb.target.EmptyStreamCluster == "" || (l.Protocol != gwv1.TCPProtocolType && l.Protocol != gwv1.TLSProtocolType) {
		return false
	}
	return !streamTerminatesTLS(l) || !apimeta.IsStatusConditionFalse(l.Conditions, "ResolvedRefs")
}

// emptyStreamChain is the one chain of a port whose TCP or TLS listener
// serves no route (policy.Target.EmptyStreamCluster): named after the
// empty cluster and proxying to it, matching no server name, terminating
// no TLS (there is no route's TLS to take), with the listener's network
// filters and TCP proxy settings.
func (gb *gatewayBuild) emptyStreamChain(fields []*rendered) *listenerv3.FilterChain {
	name := gb.emptyStreamCluster()
	return proxyChain(name, &tcpproxyv3.TcpProxy{StatPrefix: name, ClusterSpecifier: &tcpproxyv3.TcpProxy_Cluster{Cluster: name}}, fields)
}

// emptyStreamCluster records the target's empty cluster, a static one
// without endpoints, and returns its name.
func (gb *gatewayBuild) emptyStreamCluster() string {
	name := gb.target.EmptyStreamCluster
	gb.referenced[name] = true
	if _, ok := gb.clusters[name]; !ok {
		gb.clusters[name] = &clusterv3.Cluster{Name: name, ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC}}
	}
	return name
}

// streamTLS is the TLS transport socket of a TLS listener that terminates:
// its certificates by SDS name, TlsParams written out empty, Envoy's
// defaults (or the target's Baseline, without its ALPN protocols), and no
// ALPN protocol (nothing above TLS is negotiated on a TCP chain); over
// those the TLS settings of the Gateway's fields.
func (gb *gatewayBuild) streamTLS(l *topology.Listener, fields []*rendered) *corev3.TransportSocket {
	tls := &tlsv3.DownstreamTlsContext{CommonTlsContext: &tlsv3.CommonTlsContext{TlsParams: &tlsv3.TlsParameters{}}}
	if bl := gb.target.Baseline; bl != nil && bl.TLS != nil {
		overlay(tls, bl.TLS)
		tls.CommonTlsContext.AlpnProtocols = nil
	}
	common := tls.CommonTlsContext
	owner := l.Gateway.Namespace
	if l.Set != nil {
		owner = l.Set.Namespace
	}
	for _, ref := range l.TLS.CertificateRefs {
		ns := owner
		if ref.Namespace != nil && *ref.Namespace != "" {
			ns = string(*ref.Namespace)
		}
		common.TlsCertificateSdsSecretConfigs = append(common.TlsCertificateSdsSecretConfigs,
			&tlsv3.SdsSecretConfig{Name: policy.SecretSDSName(ns, string(ref.Name)), SdsConfig: adsSource()})
	}
	for _, f := range fields {
		if f.tls != nil || len(f.unset) > 0 {
			applySettings(tls, "tls", f, f.tls)
		}
	}
	return &corev3.TransportSocket{
		Name:       "envoy.transport_sockets.tls",
		ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(tls)},
	}
}

// streamTerminatesTLS: a TLS listener terminates TLS in mode Terminate
// (the spec's default) when it has certificates.
func streamTerminatesTLS(l *topology.Listener) bool {
	if l.Protocol != gwv1.TLSProtocolType || l.TLS == nil || len(l.TLS.CertificateRefs) == 0 {
		return false
	}
	return l.TLS.Mode == nil || *l.TLS.Mode == gwv1.TLSModeTerminate
}

// pooledBackends are the backends of a stream route's rules, in rule
// order: a TCPRoute or TLSRoute rule has no match to choose it by, so a
// controller that programs a route of several rules pools them into one
// destination; one that programs routes of one rule only (its
// StreamRouteRule) has that rule's.
func pooledBackends(r *topology.Route) []*topology.Backend {
	var out []*topology.Backend
	for _, rule := range r.Rules {
		out = append(out, rule.Backends...)
	}
	return out
}

// tcpProxy proxies connections to a route's backends: one cluster, or
// the backends weighted (a zero weight takes nothing and is left out).
func (gb *gatewayBuild) tcpProxy(statPrefix string, backends []*topology.Backend) *tcpproxyv3.TcpProxy {
	tp := &tcpproxyv3.TcpProxy{StatPrefix: statPrefix}
	names := make([]string, len(backends))
	for i, b := range backends {
		names[i] = BlackholeCluster
		if b.Resolved {
			op := backendClusterOp(b)
			op.http2 = false // a byte stream: no HTTP upstream protocol to choose
			gb.applyCluster(op)
			names[i] = op.name
		}
	}
	if len(names) == 1 {
		tp.ClusterSpecifier = &tcpproxyv3.TcpProxy_Cluster{Cluster: names[0]}
		return tp
	}
	wc := &tcpproxyv3.TcpProxy_WeightedCluster{}
	for i, b := range backends {
		if b.Weight > 0 {
			wc.Clusters = append(wc.Clusters, &tcpproxyv3.TcpProxy_WeightedCluster_ClusterWeight{Name: names[i], Weight: uint32(b.Weight)})
		}
	}
	if len(wc.Clusters) == 0 {
		// every weight is zero: no backend takes a connection (Envoy
		// wants at least one weighted cluster, so say it plainly)
		tp.ClusterSpecifier = &tcpproxyv3.TcpProxy_Cluster{Cluster: BlackholeCluster}
		return tp
	}
	tp.ClusterSpecifier = &tcpproxyv3.TcpProxy_WeightedClusters{WeightedClusters: wc}
	return tp
}

// streamListenerScopes renders, for each TCP and TLS listener of a port,
// the merge of its own policies (sectionName, its ListenerSet) of the
// kinds that configure such listeners (policy.StreamListenerConfigurer:
// their TLS, connection, keepalive, PROXY protocol and TCP timeout
// settings go on the listener's TCP proxy chains, as their controller
// puts them). Other kinds' policies there configure nothing a controller
// programs, and are not rendered (the output is as without them). A
// rendered field none of whose settings a
// stream chain takes is reported unsupported (GWP404).
func (gb *gatewayBuild) streamListenerScopes(ls []*topology.Listener, port int32) map[*topology.Listener]*scoped {
	out := map[*topology.Listener]*scoped{}
	for _, l := range ls {
		if l.Protocol != gwv1.TCPProtocolType && l.Protocol != gwv1.TLSProtocolType {
			continue
		}
		lp := gb.res.Listener(l)
		if lp == nil {
			continue
		}
		var pts merge.Points
		for _, p := range lp.Own {
			if configuresStreams(p.Kind) {
				pts = append(pts, p)
			}
		}
		if len(pts) == 0 {
			continue
		}
		s := gb.onListeners(gb.gatewayScope(pts, policy.ScopeRouteConfig), l)
		terminate := streamTerminatesTLS(l)
		for _, f := range onPort(s.fields, port) {
			if streamTakes(f, terminate) || !renderedSomething(f) {
				continue
			}
			for _, p := range f.contributors {
				gb.report(p, f.field, policy.LintUnsupportedCapability.Code, fmt.Sprintf(
					"unsupported: field %s sets nothing the TCP proxy chains of %s listener %s take (they have no HTTP connection manager, and TLS settings only where the listener terminates TLS); render target %s leaves the field out",
					f.field, l.Protocol, l.Name, gb.target.Name))
			}
		}
		out[l] = s
	}
	return out
}

// streamTakes reports whether a stream chain (one that terminates TLS
// or not) takes some of a rendered field's settings.
func streamTakes(f *rendered, terminate bool) bool {
	if f.listener != nil || len(f.network) > 0 || f.tcpProxy != nil || (terminate && f.tls != nil) {
		return true
	}
	return slices.ContainsFunc(f.unset, func(p string) bool {
		return strings.HasPrefix(p, "listener.") || (terminate && strings.HasPrefix(p, "tls."))
	})
}

// renderedSomething: the field made settings of some resource (a field
// that made none was reported where it was rendered, or sets nothing).
func renderedSomething(f *rendered) bool {
	return f.hcm != nil || f.tls != nil || f.chain != nil || len(f.filters) > 0 || len(f.perFilter) > 0 ||
		f.routeAction != nil || f.route != nil || f.vhost != nil || f.http3 || len(f.unset) > 0
}

// overWhole are the fields of a listener's own merge over the Gateway's:
// the Gateway's, less those the listener's merge has a field of the same
// kind and key for, then the listener's (explain's order: the listener's
// owner decides a field, the Gateway's only where the listener has none).
func overWhole(whole, own []*rendered) []*rendered {
	mine := map[string]bool{}
	for _, f := range own {
		mine[f.kindKey] = true
	}
	out := make([]*rendered, 0, len(whole)+len(own))
	for _, f := range whole {
		if !mine[f.kindKey] {
			out = append(out, f)
		}
	}
	return append(out, own...)
}

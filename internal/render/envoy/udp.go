package envoy

import (
	"fmt"

	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	udpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/udp/udp_proxy/v3"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file renders the UDP listeners of a Gateway whose controller
// serves them (one it does not serve is Unserved, and left out): each is
// an Envoy listener of its own, bound for UDP on the listener's port (UDP
// shares no socket with the port's TCP listeners), with no filter chain
// but a udp_proxy listener filter sending every datagram to the cluster of
// the route the listener serves (topology's Listener.StreamRoutes, its
// controller's rule, such as the oldest UDPRoute of one rule), as a
// controller's xDS translator builds it (a matcher whose on_no_match
// routes to the cluster). The udp_proxy routes to one cluster: a route
// whose datagrams would go to several backends is not rendered but
// reported (GWP404), since gwpol's clusters are one per backend where a
// controller may weigh them inside one. A UDP listener without a route
// proxies to the target's empty cluster (policy.Target.EmptyStreamCluster),
// or has no Envoy listener when the target names none.

// udpListeners are the Envoy listeners of gw's served UDP listeners.
func (gb *gatewayBuild) udpListeners(ls []*topology.Listener) []*listenerv3.Listener {
	var out []*listenerv3.Listener
	for _, l := range ls {
		if l.Protocol != gwv1.UDPProtocolType || l.Conflicted || l.Unserved != "" {
			continue
		}
		cluster, ok := gb.udpCluster(l)
		if !ok {
			continue
		}
		name := gb.naming.Listener(int32(l.Port)) + "~udp"
		addr, compat := gb.target.ListenerAddress(gb.opt.Config)
		proxy := &udpproxyv3.UdpProxyConfig{
			StatPrefix: name,
			RouteSpecifier: &udpproxyv3.UdpProxyConfig_Matcher{Matcher: &xdsmatcherv3.Matcher{
				OnNoMatch: &xdsmatcherv3.Matcher_OnMatch{OnMatch: &xdsmatcherv3.Matcher_OnMatch_Action{Action: &xdscorev3.TypedExtensionConfig{
					Name: "route", TypedConfig: mustAny(&udpproxyv3.Route{Cluster: cluster}),
				}}},
			}},
		}
		out = append(out, &listenerv3.Listener{
			Name: name,
			Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
				Protocol: corev3.SocketAddress_UDP, Address: addr, Ipv4Compat: compat, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(l.Port)},
			}}},
			ListenerFilters: []*listenerv3.ListenerFilter{{
				Name:       "envoy.filters.udp_listener.udp_proxy",
				ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: mustAny(proxy)},
			}},
		})
	}
	return out
}

// udpCluster is the cluster UDP listener l proxies its datagrams to, and
// whether it is rendered: its route's one backend's; without a route, the
// target's empty cluster (policy.Target.EmptyStreamCluster), or no
// listener at all when it has none.
func (gb *gatewayBuild) udpCluster(l *topology.Listener) (string, bool) {
	routes := l.StreamRoutes()
	if len(routes) == 0 {
		if gb.target.EmptyStreamCluster == "" {
			return "", false // nothing to proxy: the controller programs no listener
		}
		return gb.emptyStreamCluster(), true
	}
	r := routes[0].Route
	var backends []*topology.Backend
	for _, b := range pooledBackends(r) {
		if b.Weight > 0 || len(pooledBackends(r)) == 1 {
			backends = append(backends, b)
		}
	}
	if len(backends) != 1 {
		gb.mu.Lock()
		gb.diags = append(gb.diags, diag.Diagnostic{Code: policy.LintUnsupportedCapability.Code, Severity: policy.LintUnsupportedCapability.Severity,
			Object: r.Key().Ref(), Field: "spec.rules[0].backendRefs", Pos: r.Src.FieldPos("spec.rules[0].backendRefs"),
			Message: fmt.Sprintf("unsupported: %s %s/%s sends datagrams to %d weighted backends; render target %s proxies UDP to one cluster and leaves UDP listener %s out", r.Kind, r.Meta.Namespace, r.Meta.Name, len(backends), gb.target.Name, l.ID())})
		gb.mu.Unlock()
		return "", false
	}
	if b := backends[0]; b.Resolved {
		op := backendClusterOp(b)
		op.http2 = false
		gb.applyCluster(op)
		return op.name, true
	}
	return BlackholeCluster, true
}

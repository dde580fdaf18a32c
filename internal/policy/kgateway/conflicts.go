package kgateway

import (
	"slices"

	"github.com/gwpol/gwpol/internal/topology"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// markConflicts is kgateway's verdict on listeners sharing a port
// (policy.Family.Conflicts; translator/listener/validation.go:
// validateListeners, protocolConflict, hostNameConflict). Its listeners
// come in precedence order (the Gateway's, then its ListenerSets'). On a
// port whose listeners speak more than one protocol (HTTPS and TLS
// counting as one), the first listener wins: those of the same protocol
// as it stand (an HTTPS listener's port shared with TLS is not such a
// protocol, as kgateway compares them as written), every other is
// ProtocolConflict. Of the listeners left, the first with each hostname
// (none counting as "*") stands and a later one is HostnameConflict —
// the first even when its protocol lost it the port. A listener
// kgateway refuses before (a protocol it does not serve, no route kind
// it can carry) takes no part.
func markConflicts(gw *topology.Gateway) {
	type port struct {
		protocols map[gwv1.ProtocolType]bool
		first     *topology.Listener
		hosts     map[gwv1.Hostname]*topology.Listener
	}
	ports := map[gwv1.PortNumber]*port{}
	var candidates []*topology.Listener
	for _, l := range gw.Listeners {
		l.Conflicted, l.ConflictReason = false, ""
		if !servesProtocol(l.Protocol) || carriesNoKind(l) {
			continue
		}
		candidates = append(candidates, l)
		p := ports[l.Port]
		if p == nil {
			p = &port{protocols: map[gwv1.ProtocolType]bool{}, first: l, hosts: map[gwv1.Hostname]*topology.Listener{}}
			ports[l.Port] = p
		}
		p.protocols[sniClass(l.Protocol)] = true
		if h := hostnameOrAny(l.Hostname); p.hosts[h] == nil {
			p.hosts[h] = l
		}
	}
	for _, l := range candidates {
		p := ports[l.Port]
		switch {
		case len(p.protocols) > 1 && l.Protocol != p.first.Protocol:
			l.Conflicted, l.ConflictReason = true, "ProtocolConflict"
		case p.hosts[hostnameOrAny(l.Hostname)] != l:
			l.Conflicted, l.ConflictReason = true, "HostnameConflict"
		}
	}
}

// servesProtocol: the listener protocols kgateway translates.
func servesProtocol(p gwv1.ProtocolType) bool {
	return slices.Contains([]gwv1.ProtocolType{gwv1.HTTPProtocolType, gwv1.HTTPSProtocolType, gwv1.TCPProtocolType, gwv1.TLSProtocolType}, p)
}

// carriesNoKind: the listener names route kinds and kgateway can carry
// none of them (validateSupportedRoutes drops it).
func carriesNoKind(l *topology.Listener) bool {
	return l.AllowedRoutes != nil && len(l.AllowedRoutes.Kinds) > 0 && len(topology.InvalidRouteKinds(l)) == len(l.AllowedRoutes.Kinds)
}

// sniClass is the protocol a port's listeners are compared by: HTTPS and
// TLS listeners are both routed by SNI (kgateway's NormalizedHTTPSTLSType).
func sniClass(p gwv1.ProtocolType) gwv1.ProtocolType {
	if p == gwv1.TLSProtocolType {
		return gwv1.HTTPSProtocolType
	}
	return p
}

func hostnameOrAny(h *gwv1.Hostname) gwv1.Hostname {
	if h == nil || *h == "" {
		return "*"
	}
	return *h
}

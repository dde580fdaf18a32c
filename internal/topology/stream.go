package topology

import (
	"slices"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// StreamRoutes are the route attachments kgateway programs on a TCP or
// TLS listener, each as a tcp_proxy filter chain: on a TCP listener the
// oldest route attached only (then the first by kind, namespace and name,
// the order of l.Routes), on a TLS listener every one. A route counts when
// it has exactly one rule and that rule has backendRefs; kgateway
// programs nothing for the others. Render builds the chains from them,
// and a TCP or TLS port where no listener has one is not programmed.
func (l *Listener) StreamRoutes() []*Attachment {
	var atts []*Attachment
	switch {
	case len(l.Routes) == 0:
		return nil
	case l.Protocol == gwv1.TCPProtocolType:
		atts = []*Attachment{slices.MinFunc(l.Routes, func(a, b *Attachment) int {
			return a.Route.Meta.CreationTimestamp.Compare(b.Route.Meta.CreationTimestamp.Time)
		})}
	case l.Protocol == gwv1.TLSProtocolType:
		atts = l.Routes
	default:
		return nil
	}
	return slices.DeleteFunc(slices.Clone(atts), func(a *Attachment) bool {
		return len(a.Route.Rules) != 1 || len(a.Route.Rules[0].Backends) == 0
	})
}

package policy

import (
	"github.com/gwpol/gwpol/internal/topology"
)

// XDSNames are how a render target's controller names the xDS resources
// it writes, and the body it gives a resource it replaces because a
// policy merged into it is invalid (Target.Names). A family fills in the
// parts its controller's translator has, in its own package, citing that
// translator; Registry.Targets completes the parts a target leaves unset
// from the first registered target that sets them, so that every target
// names every resource (gwpol emulates one controller's names where
// another's are not modelled). Render takes them from its target once and
// calls them per resource.
type XDSNames struct {
	// Listener names the Envoy listener of a Gateway port; the port's
	// HTTP listeners share one filter chain and one RouteConfiguration
	// of the same name.
	Listener func(port int32) string
	// HTTPSChain names an HTTPS listener's filter chain and its
	// RouteConfiguration.
	HTTPSChain func(l *topology.Listener) string
	// VirtualHost names the virtual host of a hostname ("*": none) in a
	// RouteConfiguration.
	VirtualHost func(routeConfig, hostname string) string
	// Route names the Envoy route of one match of a route rule.
	Route func(r RouteName) string
	// StreamChain names the filter chain (and the TCP proxy's stat
	// prefix) of a TCP or TLS route, by its namespace and name, on the
	// Envoy listener named listener.
	StreamChain func(listener, namespace, name string) string
	// RuleCluster names a cluster of a route rule's own (its route-level
	// policies shape its upstream connections).
	RuleCluster func(c RuleClusterName) string
	// ClientCertCluster names a Gateway's variant of a TLS cluster that
	// presents the client certificate its spec.tls.backend names (the
	// cluster is shared by every Gateway; the variant is the Gateway's
	// own); ok false when the cluster's name cannot carry a variant.
	ClientCertCluster func(cluster, gatewayNamespace, gatewayName string) (name string, ok bool)
	// InvalidBody is the body of the 500 direct response that replaces a
	// resource an invalid policy merges into.
	InvalidBody string
}

// RouteName is what names an Envoy route (XDSNames.Route).
type RouteName struct {
	// VirtualHost is the name of the route's virtual host, and Position
	// the route's place in it (Gateway API precedence order).
	VirtualHost string
	Position    int
	// Kind, Namespace and Name are the route object's.
	Kind, Namespace, Name string
	// Rule is the rule's index as the controller numbers it (along a
	// delegation chain: the index the chain gives it), RuleName its name
	// ("" when unnamed), and Match the index of the match.
	Rule     int
	RuleName string
	Match    int
}

// RuleClusterName is what names a cluster of a rule's own
// (XDSNames.RuleCluster).
type RuleClusterName struct {
	// Kind, Namespace and Name are the route object's, Rule the rule's
	// index in it.
	Kind, Namespace, Name string
	Rule                  int
	// Backend is the index of the backendRef the cluster serves among
	// the rule's Backends.
	Backend, Backends int
	// Own: the backendRef's policies give it a cluster of its own.
	Own bool
}

// Complete reports whether every part is set.
func (n XDSNames) Complete() bool {
	return n.Listener != nil && n.HTTPSChain != nil && n.VirtualHost != nil && n.Route != nil &&
		n.StreamChain != nil && n.RuleCluster != nil && n.ClientCertCluster != nil && n.InvalidBody != ""
}

// completeFrom sets each unset part to the first of ts that sets it.
func (n XDSNames) completeFrom(ts []Target) XDSNames {
	for _, t := range ts {
		o := t.Names
		if n.Listener == nil {
			n.Listener = o.Listener
		}
		if n.HTTPSChain == nil {
			n.HTTPSChain = o.HTTPSChain
		}
		if n.VirtualHost == nil {
			n.VirtualHost = o.VirtualHost
		}
		if n.Route == nil {
			n.Route = o.Route
		}
		if n.StreamChain == nil {
			n.StreamChain = o.StreamChain
		}
		if n.RuleCluster == nil {
			n.RuleCluster = o.RuleCluster
		}
		if n.ClientCertCluster == nil {
			n.ClientCertCluster = o.ClientCertCluster
		}
		if n.InvalidBody == "" {
			n.InvalidBody = o.InvalidBody
		}
	}
	return n
}

package envoygateway

import (
	"fmt"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file is the backendSettings of a service a policy calls (a remote
// JWKS, an external processor) on the cluster Envoy Gateway builds for
// that service. Its translator copies the settings' cluster features onto
// the cluster's arguments (xds translator utils.go: applyTraffic — load
// balancer, PROXY protocol, circuit breaker, health check, the timeouts
// of a cluster, TCP keepalive, connection, DNS, HTTP/2) and builds the
// cluster as any other (cluster.go: buildXdsCluster), as for a cluster no
// route owns: a consistent hash's hash policy goes in the cluster's HTTP
// protocol options rather than on a route, and so does the longest stream
// (buildTypedExtensionProtocolOptions, !isRoute); the request timeout is
// no cluster's (Timeout.ClusterOnly). Each setting is rendered by the
// renderer of the BackendTrafficPolicy field of its name, and render
// merges the parts into the cluster as it merges a backend's fields
// (policy.Fragment.TypedClusterParts).

// serviceClusterParts are the parts of a service's cluster its
// backendSettings cs make (nil when none); at is where cs was written.
// capability names a setting render cannot express yet, which the
// renderer of that setting reported, as a path under the backendSettings
// ("loadBalancer.zoneAware.force"): the caller reports it unsupported.
func serviceClusterParts(cs *egv1a1.ClusterSettings, at writtenAt, who policyName) (parts []policy.Fragment, capability string, err error) {
	if cs == nil {
		return nil, "", nil
	}
	type setting struct {
		key    string
		set    bool
		render func(policyName) ([]policy.Fragment, error)
	}
	settings := []setting{
		{"loadBalancer", cs.LoadBalancer != nil, func(w policyName) ([]policy.Fragment, error) { return renderLoadBalancer(cs.LoadBalancer, w) }},
		{"proxyProtocol", cs.ProxyProtocol != nil, func(w policyName) ([]policy.Fragment, error) { return renderProxyProtocol(cs.ProxyProtocol, w) }},
		{"circuitBreaker", cs.CircuitBreaker != nil, func(w policyName) ([]policy.Fragment, error) { return renderCircuitBreaker(cs.CircuitBreaker, w) }},
		{"healthCheck", cs.HealthCheck != nil, func(w policyName) ([]policy.Fragment, error) { return renderHealthCheck(cs.HealthCheck, w) }},
		{"timeout", cs.Timeout != nil, func(w policyName) ([]policy.Fragment, error) { return renderTimeout(cs.Timeout, w) }},
		{"tcpKeepalive", cs.TCPKeepalive != nil, func(w policyName) ([]policy.Fragment, error) { return renderTCPKeepalive(cs.TCPKeepalive, w) }},
		{"connection", cs.Connection != nil, func(w policyName) ([]policy.Fragment, error) { return renderConnection(cs.Connection, w) }},
		{"dns", cs.DNS != nil, func(w policyName) ([]policy.Fragment, error) { return renderDNS(cs.DNS, w) }},
		{"http2", cs.HTTP2 != nil, func(w policyName) ([]policy.Fragment, error) { return renderUpstreamHTTP2(cs.HTTP2, w) }},
	}
	for _, s := range settings {
		if !s.set {
			continue
		}
		w := who
		w.at = at.field(s.key)
		frags, err := s.render(w)
		if err != nil {
			return nil, "", fmt.Errorf("backendSettings.%w", err)
		}
		for _, fr := range frags {
			switch {
			case fr.Capability != "" && fr.Capability != "route":
				// the setting's own part, named under the backendSettings
				return nil, strings.TrimPrefix(fr.Capability, "envoygateway.BackendTrafficPolicy."), nil
			case fr.TypedRouteAction != nil:
				part, err := serviceRouteSettings(fr.TypedRouteAction)
				if err != nil {
					return nil, "", err
				}
				if part != nil {
					parts = append(parts, policy.Fragment{Cluster: part})
				}
			}
			// A health check's Host per route (PerRoute) is no service's:
			// a cluster no route owns keeps its check without one.
			if fr.Cluster != nil || fr.ClusterOfType != nil || fr.ClusterFinish != nil {
				parts = append(parts, policy.Fragment{Cluster: fr.Cluster, ClusterOfType: fr.ClusterOfType, ClusterFinish: fr.ClusterFinish})
			}
		}
	}
	return parts, "", nil
}

// serviceRouteSettings is what of a setting's route action a service's
// cluster takes (nil when nothing): a consistent hash's hash policy and
// the longest stream, in its HTTP protocol options.
func serviceRouteSettings(m any) (*clusterv3.Cluster, error) {
	ra, ok := m.(*routev3.RouteAction)
	if !ok {
		return nil, fmt.Errorf("route action settings are a %T", m)
	}
	o := &upstreamhttpv3.HttpProtocolOptions{HashPolicy: ra.HashPolicy}
	if d := ra.GetMaxStreamDuration().GetMaxStreamDuration(); d != nil {
		o.CommonHttpProtocolOptions = &corev3.HttpProtocolOptions{MaxStreamDuration: d}
	}
	if o.HashPolicy == nil && o.CommonHttpProtocolOptions == nil {
		return nil, nil
	}
	return httpOptions(o)
}

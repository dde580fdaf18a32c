package envoygateway

import (
	"cmp"
	"encoding/json"
	"slices"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// ruleClusterMode is how Envoy Gateway builds a route rule's cluster on
// a Gateway (policy.Controller.RuleClusterOnce): once per rule, named
// after it; with the Gateway's EnvoyProxy setting mergeBackends, only
// for the routes whose policies below the Gateway write clusters
// (gatewayapi route.go: routeDestinationForListener,
// mergeBackendsConfigForGateway).
func ruleClusterMode(gw *topology.Gateway, m *model.Model) policy.RuleClusterMode {
	if pc, ok := effectiveProxy(gw.Gateway, m); ok {
		if b, err := pc.FieldJSON("spec.mergeBackends"); err == nil && len(b) > 0 && string(b) != "null" {
			return policy.RuleClusterBelowGateway
		}
	}
	return policy.RuleClusterFirst
}

// listenerOrder lists a Gateway's listeners as Envoy Gateway translates
// them into its xDS IR (policy.Controller.ListenerOrder): the Gateway's
// own in spec order, then each attached ListenerSet's, in spec order, the
// ListenerSets taken as resources.Sort orders them — older
// creationTimestamp first, then namespace, then name (gatewayapi
// resource/resource.go: Resources.Sort; listenerset.go:
// processListenerSet appends their listeners to the Gateway's; listener.go:
// ProcessListeners builds the IR's HTTP listeners in that order).
func listenerOrder(gw *topology.Gateway) []*topology.Listener {
	out := make([]*topology.Listener, 0, len(gw.Listeners))
	sets := map[*topology.ListenerSet][]*topology.Listener{}
	var order []*topology.ListenerSet
	for _, l := range gw.Listeners {
		if l.Set == nil {
			out = append(out, l)
			continue
		}
		if _, ok := sets[l.Set]; !ok {
			order = append(order, l.Set)
		}
		sets[l.Set] = append(sets[l.Set], l)
	}
	slices.SortStableFunc(order, func(a, b *topology.ListenerSet) int {
		ta, tb := a.CreationTimestamp, b.CreationTimestamp
		if !ta.Equal(&tb) {
			if ta.Before(&tb) {
				return -1
			}
			return 1
		}
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	for _, s := range order {
		ls := sets[s]
		slices.SortStableFunc(ls, func(a, b *topology.Listener) int { return a.Index - b.Index })
		out = append(out, ls...)
	}
	return out
}

var _ policy.ClusterSetter = (*Kind)(nil)

// SetsCluster: a BackendTrafficPolicy's timeout sets the route's cluster
// with a TCP connect timeout or an HTTP connection idle timeout or
// lifetime only (renderTimeout; its request timeout and longest stream
// are the route's); every other field declaring cluster paths sets them
// whatever its value.
func (k *Kind) SetsCluster(key string, values []any) bool {
	if k != backendTrafficPolicy || key != "timeout" {
		return true
	}
	for _, v := range values {
		fv, ok := v.(*fieldValue)
		if !ok {
			return true
		}
		var t egv1a1.Timeout
		if json.Unmarshal(fv.raw, &t) != nil {
			return true
		}
		if t.TCP != nil && t.TCP.ConnectTimeout != nil || t.HTTP != nil && (t.HTTP.ConnectionIdleTimeout != nil || t.HTTP.MaxConnectionDuration != nil) {
			return true
		}
	}
	return false
}

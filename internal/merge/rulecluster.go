package merge

import (
	"slices"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// ClusterShape is the verdict on a field whose kind writes the cluster a
// route sends to (policy.EnvoyPath.OnCluster), for a rule served through
// several listeners of a Gateway whose controller builds the rule's
// cluster once (policy.Controller.RuleClusterOnce): the rule's route on
// the first of those listeners shaped that one cluster, and the route on
// every other listener sends to it. Where the first listener's policies
// give the field another value (or none), this route's value of the
// field is not on its cluster: Field's is. Render builds the cluster
// from the first listener's view, explain says which listener's route
// shaped it; both read this verdict (EffectiveField.ClusterFrom).
type ClusterShape struct {
	// Listener is the first listener serving the rule, whose route
	// shaped the cluster.
	Listener *topology.Listener
	// Field is the field of the same kind and key in effect there; nil
	// when none is: the cluster has none of the field's settings.
	Field *Field
}

// RuleClusterFrom is the listener whose route of the rule (along path)
// shaped the cluster the rule's route on l sends to, when that is another
// listener of l's Gateway: its controller builds a rule's cluster once
// per Gateway (policy.Controller.RuleClusterOnce), and the first
// listener serving the rule, in the controller's order (ListenerOrder),
// whose route sends to that cluster writes it. nil when the route on l
// shapes its own cluster (l is first, the rule is served through l
// alone, the controller gives each route its own) or sends to its
// backends' shared clusters (policy.RuleClusterBelowGateway, no policy
// below the Gateway writing clusters there).
func (r *Result) RuleClusterFrom(rule *topology.Rule, path *RulePath, l *topology.Listener) *topology.Listener {
	if rule == nil || l == nil {
		return nil
	}
	rt := r.routeOf(rule)
	if rt == nil || len(rt.Parents) < 1 {
		return nil
	}
	co, ok := r.clusterOrders()[l.Gateway]
	if !ok {
		return nil
	}
	sends := func(x *topology.Listener) bool {
		if x.Unserved != "" {
			return false
		}
		served := false
		for _, p := range rt.Parents {
			if p.Gateway == l.Gateway && slices.Contains(p.Listeners, x) {
				served = true
				break
			}
		}
		return served && (co.mode != policy.RuleClusterBelowGateway || r.clusterBelowGateway(rule, path, x))
	}
	if !sends(l) {
		return nil
	}
	for _, x := range co.order {
		if x == l {
			return nil
		}
		if sends(x) {
			return x
		}
	}
	return nil
}

// clusterBelowGateway: a policy in effect on the rule served on l,
// attached below the Gateway (a listener, a ListenerSet, the route or the
// rule), writes the cluster the route sends to.
func (r *Result) clusterBelowGateway(rule *topology.Rule, path *RulePath, l *topology.Listener) bool {
	for _, pt := range r.RoutedOn(rule, path, l) {
		for _, f := range pt.Fields {
			if f.Owner != nil && f.Owner.Level != LevelGateway && writesCluster(pt.Kind, f.Key) {
				return true
			}
		}
	}
	return false
}

// clusterOrder is a Gateway's rule cluster mode and its listeners in its
// controller's order.
type clusterOrder struct {
	mode  policy.RuleClusterMode
	order []*topology.Listener
}

// clusterOrders lists, once, the listeners of each Gateway whose
// controller builds a rule's cluster once, in that controller's order.
func (r *Result) clusterOrders() map[*topology.Gateway]clusterOrder {
	r.clusterOnce.Do(func() {
		if r.Graph == nil || r.Registry == nil {
			return
		}
		for _, gw := range r.Graph.Gateways {
			name, _ := r.Graph.Controller(gw, r.Registry.DefaultController().Name)
			c, ok := r.Registry.Controller(name)
			if !ok || c.RuleClusterOnce == nil || len(gw.Listeners) < 2 {
				continue
			}
			mode := c.RuleClusterOnce(gw, r.Graph.Model)
			if mode == policy.RuleClusterPerRoute {
				continue
			}
			order := gw.Listeners
			if c.ListenerOrder != nil {
				order = c.ListenerOrder(gw)
			}
			if r.clusterOrder == nil {
				r.clusterOrder = map[*topology.Gateway]clusterOrder{}
			}
			r.clusterOrder[gw] = clusterOrder{mode, order}
		}
	})
	return r.clusterOrder
}

// clusterFrom lays the verdict of the rule's cluster over a view (out)
// of a rule on a listener whose cluster the rule's route on first shaped,
// given first's view: a field writing the cluster whose value differs
// there (another owner or contributors, or none) gets ClusterFrom; a
// field only first's view holds joins the view, in effect on the cluster
// only (ClusterOnly). A field another family's kind overrides
// (OverriddenBy) takes no part on either side.
func clusterFrom(out []EffectiveField, first *topology.Listener, there []EffectiveField) []EffectiveField {
	type key struct {
		k   policy.Kind
		key string
	}
	theirs := map[key]*Field{}
	var order []key
	for _, e := range there {
		if e.OverriddenBy == nil && writesCluster(e.Kind, e.Key) {
			k := key{e.Kind, e.Key}
			theirs[k] = e.Field
			order = append(order, k)
		}
	}
	mine := map[key]bool{}
	for i := range out {
		e := &out[i]
		if e.OverriddenBy != nil || !writesCluster(e.Kind, e.Key) {
			continue
		}
		k := key{e.Kind, e.Key}
		mine[k] = true
		if f := theirs[k]; !sameField(e.Field, f) {
			e.ClusterFrom = &ClusterShape{Listener: first, Field: f}
		}
	}
	for _, k := range order {
		if !mine[k] {
			f := theirs[k]
			out = append(out, EffectiveField{Kind: k.k, Key: k.key, Field: f, Inherited: true,
				ClusterFrom: &ClusterShape{Listener: first, Field: f}, ClusterOnly: true})
		}
	}
	return out
}

// writesCluster: the kind's field writes the cluster a route sends to.
func writesCluster(k policy.Kind, key string) bool {
	return slices.ContainsFunc(k.Spec().FieldWrites(key), policy.EnvoyPath.OnCluster)
}

// sameField: two results of a field hold the same value, from the same
// policies merged the same way (b may be nil).
func sameField(a, b *Field) bool {
	switch {
	case a == b:
		return true
	case a == nil || b == nil:
		return false
	case a.Owner.Policy != b.Owner.Policy || a.Strategy != b.Strategy || len(a.Contributors) != len(b.Contributors):
		return false
	}
	for i, c := range a.Contributors {
		if c.Policy != b.Contributors[i].Policy {
			return false
		}
	}
	return true
}

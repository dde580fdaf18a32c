package envoy

import (
	"fmt"
	"maps"
	"slices"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file places the configuration a field builds per Envoy route
// (policy.Fragment.PerRoute): a field renders once for every route it
// reaches, but some of what it configures names the route or the
// listener serving it — a global rate limit may key its descriptors by
// the route's name and its domain by the listener's.

// perRouteFn is one fragment's PerRoute, with what names the field in a
// 503 body.
type perRouteFn struct {
	build func(policy.RouteSite) ([]policy.Fragment, error)
	what  string // "<Kind> <ns>/<name> field <key>"
}

// routeSite describes the route of entry e in the virtual host for host,
// served through listener l.
func routeSite(e entry, host string, l *topology.Listener) policy.RouteSite {
	rt := e.att.Route
	s := policy.RouteSite{Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name,
		Rule: e.ruleIndex, RuleName: e.rule.Name, Match: SiteMatch(e.rule, e.match), Hostname: host}
	if l != nil {
		s.Listener = string(l.Name)
		if l.Gateway != nil && l.Gateway.Gateway != nil {
			s.Gateway = policy.GatewayName{Namespace: l.Gateway.Namespace, Name: l.Gateway.Name}
		}
		if l.Set != nil && l.Set.ListenerSet != nil {
			s.ListenerSet = policy.GatewayName{Namespace: l.Set.Namespace, Name: l.Set.Name}
		}
	}
	return s
}

// SiteMatch is the match index a route site names for the Envoy route
// built from match m of rule (policy.RouteSite.Match): m, or -1 for a
// rule that lists no matches (its one catch-all route).
func SiteMatch(rule *topology.Rule, m int) int {
	if !ruleHasMatches(rule) {
		return -1
	}
	return m
}

// ruleHasMatches reports whether a rule lists matches (matchCount counts
// a rule without any as one catch-all match).
func ruleHasMatches(rule *topology.Rule) bool {
	switch {
	case rule.HTTP != nil:
		return len(rule.HTTP.Matches) > 0
	case rule.GRPC != nil:
		return len(rule.GRPC.Matches) > 0
	}
	return false
}

// applyPerRoute adds to r what the route scope's fields build for this
// route: per-filter configs (over a copy of the shared map), route
// settings, HTTP filters for the chain, and settings of the clusters of
// its rule's own (those recorded from vb.clusters[from] on, see
// ruleClusters). It reports the 503 body when one of them fails ("" when
// none does).
func (vb *vhostBuild) applyPerRoute(r *routev3.Route, rs *scoped, site policy.RouteSite, from int) string {
	copied := false
	for _, f := range rs.fields {
		for _, fn := range f.perRoute {
			frags, err := fn.build(site)
			if err != nil {
				return fmt.Sprintf("gwpol: %s cannot be rendered for route %s: %v", fn.what, r.Name, err)
			}
			for _, fr := range frags {
				if err := vb.addPerRoute(r, fr, &copied, from); err != nil {
					return fmt.Sprintf("gwpol: %s renders to invalid Envoy config for route %s: %v", fn.what, r.Name, err)
				}
			}
		}
	}
	return ""
}

// addPerRoute adds one per-route fragment to r.
func (vb *vhostBuild) addPerRoute(r *routev3.Route, fr policy.Fragment, copied *bool, from int) error {
	if fr.Cluster != nil {
		if err := vb.addRuleClusterSettings(fr.Cluster, from); err != nil {
			return err
		}
	}
	if f := fr.Filter; f != nil {
		if f.Typed == nil {
			return fmt.Errorf("filter %s: per-route filters are typed", f.Name)
		}
		a, err := vb.anys.typedAny(f.Typed)
		if err != nil {
			return fmt.Errorf("filter %s: %w", f.Name, err)
		}
		vb.routeFilters = append(vb.routeFilters, filterDef{name: f.Name, order: f.Order, precedence: f.Precedence, enabled: f.Enabled, upstream: f.Upstream, config: a})
	}
	for _, name := range slices.Sorted(maps.Keys(fr.TypedPerFilterConfig)) {
		a, err := vb.anys.typedAny(fr.TypedPerFilterConfig[name])
		if err != nil {
			return fmt.Errorf("typed_per_filter_config %s: %w", name, err)
		}
		if !*copied {
			r.TypedPerFilterConfig = withPerFilter(r.TypedPerFilterConfig, map[string]*anypb.Any{})
			*copied = true
		}
		r.TypedPerFilterConfig[name] = a
	}
	if fr.TypedRoute != nil {
		m, ok := fr.TypedRoute.(*routev3.Route)
		if !ok {
			return fmt.Errorf("route settings are a %T", fr.TypedRoute)
		}
		ownFields(r, m)
		proto.Merge(r, m)
	}
	return nil
}

// ownFields gives r copies of the fields src is about to merge into:
// a route's messages, lists and maps may be shared with the other routes
// of its rule (a field renders once), and proto.Merge changes them in
// place.
func ownFields(r, src proto.Message) {
	dst := r.ProtoReflect()
	src.ProtoReflect().Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if !dst.Has(fd) {
			return true
		}
		old := dst.Get(fd)
		switch {
		case fd.IsList():
			l := dst.NewField(fd).List()
			for i := range old.List().Len() {
				l.Append(cloneValue(fd, old.List().Get(i)))
			}
			dst.Set(fd, protoreflect.ValueOfList(l))
		case fd.IsMap():
			m := dst.NewField(fd).Map()
			old.Map().Range(func(k protoreflect.MapKey, v protoreflect.Value) bool {
				m.Set(k, cloneValue(fd.MapValue(), v))
				return true
			})
			dst.Set(fd, protoreflect.ValueOfMap(m))
		case fd.Message() != nil:
			dst.Set(fd, protoreflect.ValueOfMessage(proto.Clone(old.Message().Interface()).ProtoReflect()))
		}
		return true
	})
}

// cloneValue copies a message value; other values are immutable.
func cloneValue(fd protoreflect.FieldDescriptor, v protoreflect.Value) protoreflect.Value {
	if fd.Message() == nil {
		return v
	}
	return protoreflect.ValueOfMessage(proto.Clone(v.Message().Interface()).ProtoReflect())
}

// addRuleClusterSettings adds settings a field builds for one route (an
// HTTP health check sending the route's hostname) to the clusters of the
// route's rule recorded from vb.clusters[from] on: merged after the
// field's shared settings, they replace what those set (mergeCluster).
// Rule clusters differ from each other where the settings do
// (gatewayBuild.ruleCluster). A route none of whose backends has a
// cluster (every share invalid: Envoy answers 500) has none to tune.
func (vb *vhostBuild) addRuleClusterSettings(m proto.Message, from int) error {
	c, ok := m.(*clusterv3.Cluster)
	if !ok {
		return fmt.Errorf("cluster settings are a %T", m)
	}
	for i := range vb.clusters[from:] {
		if op := &vb.clusters[from+i]; op.of != "" {
			op.settings = append(slices.Clip(op.settings), clusterSetting{c: c})
		}
	}
	return nil
}

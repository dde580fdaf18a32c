package envoy

import (
	"slices"

	"google.golang.org/protobuf/types/known/anypb"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file renders the policies a backendRef's ExtensionRef filters name
// (merge.RulePoints.BackendRefs, kinds with policy.KindSpec.BackendRefFilter):
// the controller applies them to that backend's share of the rule with
// their per-filter configuration only (policy.FieldSpec.PerBackend), as
// the typed_per_filter_config of the backend's weighted cluster — which
// Envoy prefers, filter by filter, to the route's. A rule with one
// backend has no weighted clusters: the backend's configuration goes on
// the route, under the route's own for a filter both configure (the
// backend's is written first and the route's policies overwrite it, as
// the controller of such kinds writes them). The filters they enable
// join the chain, and the clusters they call are emitted. No merge
// metadata is written for them (Envoy's weighted clusters have no
// metadata field); explain shows who owns what.

// backendRefScope renders the per-backend fields of the policies
// backendRef i of rule names; nil when it names none, or when only an
// invalid policy does (the controller's own finding says why).
func (gb *gatewayBuild) backendRefScope(rule *topology.Rule, i int) *scoped {
	pts := gb.res.Rule(rule).BackendRef(i)
	if len(pts) == 0 {
		return nil
	}
	var keep merge.Points
	for _, pt := range pts {
		c := *pt
		c.Fields = slices.DeleteFunc(slices.Clone(pt.Fields), func(f *merge.Field) bool { return !perBackend(pt.Kind, f.Key) })
		c.Invalid = nil // an invalid policy takes no part in the merge, and replaces nothing per backend
		keep = append(keep, &c)
	}
	s := gb.scope(keep, policy.ScopeRoute)
	if len(s.fields) == 0 {
		return nil
	}
	return s.ownClustersOnly()
}

// ownClustersOnly: a field that makes settings of a backendRef's own
// cluster (policy.Fragment.BackendCluster) takes effect there only, not
// through the chain's filters and the per-filter configuration it makes
// for a rule. Rendered fields are shared (builder.rendered): those are
// replaced by copies.
func (s *scoped) ownClustersOnly() *scoped {
	changed := false
	for i, f := range s.fields {
		if f.ownCluster != nil && (f.filters != nil || f.perFilter != nil) {
			c := *f
			c.filters, c.perFilter = nil, nil
			s.fields[i], changed = &c, true
		}
	}
	if changed {
		s.tpfc = s.buildPerFilter()
	}
	return s
}

// ownClusterSettings are the settings of the backendRef's own cluster
// the scope's fields make (nil: the backendRef forwards to its backend's
// cluster).
func (s *scoped) ownClusterSettings() []clusterSetting {
	var cs []clusterSetting
	for _, f := range s.fields {
		if f.ownCluster != nil {
			cs = append(cs, clusterSetting{c: f.ownCluster})
		}
	}
	return cs
}

// perBackend reports whether kind k applies field key per backend.
func perBackend(k policy.Kind, key string) bool {
	for _, fs := range k.Spec().Fields {
		if fs.Key == key {
			return fs.PerBackend
		}
	}
	return false
}

// backendRefConfig is what the policies of one backendRef configure:
// the per-filter configuration of its weighted cluster, and the 503 body
// when one of their fields cannot be rendered ("" when none). It records
// the filters and clusters they need, and the settings of the
// backendRef's own cluster (vhostBuild.ownClusters, for ruleClusters).
func (vb *vhostBuild) backendRefConfig(rule *topology.Rule, i int) (map[string]*anypb.Any, string) {
	bs := vb.backendRefScope(rule, i)
	if bs == nil {
		return nil, ""
	}
	if bs.failBody != "" {
		return nil, bs.failBody
	}
	vb.usePolicies(bs, []*scoped{bs})
	if cs := bs.ownClusterSettings(); cs != nil {
		if vb.ownClusters == nil {
			vb.ownClusters = map[int][]clusterSetting{}
		}
		vb.ownClusters[i] = cs
	}
	return bs.perFilter(), ""
}

package envoy

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file gives a rule whose route-level policies shape its upstream
// connections (circuit breakers, load balancing, health checks,
// timeouts… a fragment's cluster settings on the routes a policy
// targets) clusters of its own, named by the target
// (policy.XDSNames.RuleCluster): the backend's shared cluster cannot
// carry one route's settings without imposing them on every other route
// to the same backend.

// clusterSetting is one field's partial cluster; ofType: it applies to a
// cluster of its custom cluster type only (mergeClusterOfType); or, with
// no cluster, an adjustment of the whole cluster once every setting is
// merged (finish, policy.Fragment.ClusterFinish).
type clusterSetting struct {
	c      *clusterv3.Cluster
	ofType bool
	finish func(proto.Message)
}

// clusterSettings are the partial clusters the scope's fields make, and
// the merge metadata of just those fields (the cluster says who shaped
// it, as the route says who configured it), but for the fields skip
// names (kindKeys: those a policy on the backend of another family's
// kind overrides on its cluster, merge.ClusterOverride).
func (s *scoped) clusterSettings(skip []string) ([]clusterSetting, *corev3.Metadata) {
	var cs []clusterSetting
	var md map[string]*structpb.Struct
	for _, f := range s.fields {
		if f.cluster == nil && f.ofType == nil && len(f.finish) == 0 || slices.Contains(skip, f.kindKey) {
			continue
		}
		if f.cluster != nil {
			cs = append(cs, clusterSetting{c: f.cluster})
		}
		if f.ofType != nil {
			cs = append(cs, clusterSetting{c: f.ofType, ofType: true})
		}
		for _, fin := range f.finish {
			cs = append(cs, clusterSetting{finish: fin})
		}
		owners := s.metadata.GetFilterMetadata()[f.metaKey].GetFields()[f.field]
		if owners == nil {
			continue
		}
		if md == nil {
			md = map[string]*structpb.Struct{}
		}
		if md[f.metaKey] == nil {
			md[f.metaKey] = &structpb.Struct{Fields: map[string]*structpb.Value{}}
		}
		md[f.metaKey].Fields[f.field] = owners
	}
	if md == nil {
		return cs, nil
	}
	return cs, &corev3.Metadata{FilterMetadata: md}
}

// ruleClusters points a forwarding route at clusters of its rule's own
// when the route scope's fields shape clusters (see the file comment),
// and a backendRef whose policies give it a cluster of its own
// (vhostBuild.ownClusters) at that one, with the rule's settings too.
// The backend clusters the route recorded (vb.clusters from from on)
// that it no longer names become templates (clusterOp.template). Where
// the rule's route on another listener shaped the rule's one cluster
// (merge.Result.RuleClusterFrom, merge.ClusterShape), the settings are
// that route's scope's, served on that listener, whatever this route's
// own (rs) set: its cluster, or none.
//
// A backend whose own policy of another family's kind wins a cluster
// setting a field of the shaping route's writes
// (merge.Result.ClusterOverridden) gets a cluster without that field's
// settings.
func (vb *vhostBuild) ruleClusters(r *routev3.Route, e entry, l *topology.Listener, rs *scoped, from int) {
	path := vb.pathOf(e)
	shaping := l
	if first := vb.res.RuleClusterFrom(e.rule, path, l); first != nil {
		rs = vb.without(vb.routeScope(e.rule, path, first), vb.res.Overridden(e.rule, path, first))
		shaping = first
	}
	// the listener's own policies that write its routes' clusters (a
	// connection-level setting the upstream connections share), under
	// the route's
	ls := vb.listenerClusters(shaping)
	collect := func(skip []string) ([]clusterSetting, *corev3.Metadata) {
		settings, md := rs.clusterSettings(skip)
		if ls == nil {
			return settings, md
		}
		under, umd := ls.clusterSettings(skip)
		return append(under, settings...), joinMetadata(umd, md)
	}
	settings, md := collect(nil)
	if len(settings) == 0 && len(vb.ownClusters) == 0 {
		return
	}
	over := vb.res.ClusterOverridden(e.rule, path, shaping)
	replaced := func(name string) {
		for i := range vb.clusters[from:] {
			if op := &vb.clusters[from+i]; op.name == name && op.backend != nil && op.of == "" {
				op.template = true
			}
		}
	}
	// retarget records the cluster of the rule's (and the backendRef's)
	// own for a route's cluster name, and points the route at it.
	retarget := func(have *string, ref, backends int) {
		if *have == BlackholeCluster {
			// a backendRef that takes no traffic keeps its place as a
			// cluster nothing defines (Envoy answers its share 500): a
			// cluster of the rule's own, built from that name, would be
			// defined, and answer otherwise
			return
		}
		own := vb.ownClusters[ref]
		settings, md := settings, md
		if b := backendAt(e, ref); b != nil && len(over) > 0 {
			if skip := over[merge.ClusterOf{Backend: model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}, Port: b.Port}]; len(skip) > 0 {
				settings, md = collect(skip)
			}
		}
		if len(settings) == 0 && len(own) == 0 {
			return
		}
		rt := e.att.Route
		name := vb.naming.RuleCluster(policy.RuleClusterName{Kind: rt.Kind, Namespace: rt.Meta.Namespace, Name: rt.Meta.Name, Rule: e.rule.Index,
			Backend: ref, Backends: backends, Own: len(own) > 0})
		replaced(*have)
		vb.clusters = append(vb.clusters, clusterOp{name: name, of: *have, settings: slices.Concat(settings, own), metadata: md,
			grpc: rt.Kind == "GRPCRoute", retarget: func(n string) { *have = n }})
		*have = name
	}
	refs := vb.forwardedRefs(e)
	switch cs := r.GetRoute().GetClusterSpecifier().(type) {
	case *routev3.RouteAction_Cluster:
		ref := 0
		if len(refs) > 0 {
			ref = refs[0]
		}
		retarget(&cs.Cluster, ref, 1)
	case *routev3.RouteAction_WeightedClusters:
		wcs := cs.WeightedClusters.GetClusters()
		k := 0
		for j, wc := range wcs {
			if share := vb.target.InvalidShare; share != "" && wc.Name == share {
				continue // no cluster: Envoy answers its share 500
			}
			ref := j
			if k < len(refs) {
				ref = refs[k] // named by its backendRef (policy.RuleClusterName.Backend)
			}
			k++
			retarget(&wc.Name, ref, len(wcs))
		}
	}
}

// backendAt is the entry's rule's backendRef i, nil when there is none.
func backendAt(e entry, i int) *topology.Backend {
	if i < 0 || i >= len(e.rule.Backends) {
		return nil
	}
	return e.rule.Backends[i]
}

// dropTemplates leaves out the backend clusters that only served as
// templates of rule clusters: every route that recorded one sends to
// clusters of its rule's own instead, and nothing else (another route, a
// mirror, a policy's fragment, a TCP route) names it
// (Target.DropReplacedClusters).
func (gb *gatewayBuild) dropTemplates() {
	for name := range gb.templates {
		if !gb.referenced[name] {
			delete(gb.clusters, name)
		}
	}
}

// ruleCluster builds a rule's cluster: a copy of the backend's cluster
// (recorded before it, by the same route), fed the backend's endpoints
// under the backend cluster's EDS name, with the settings merged in
// order. The backend's own policies reach it too (clusterBackend). A rule
// served through several listeners brings its cluster once per route:
// the same settings share it; where listener-level policies make them
// differ, the later route gets a cluster of its own, its name suffixed
// with a hash of the settings (the target's one name per rule,
// XDSNames.RuleCluster, could not hold both).
func (gb *gatewayBuild) ruleCluster(op clusterOp) {
	c := gb.buildRuleCluster(op)
	have, ok := gb.clusters[op.name]
	switch {
	case !ok:
	case proto.Equal(have, c):
		return
	default:
		c.Name = op.name + "/" + settingsHash(c)
		op.retarget(c.Name)
		if _, dup := gb.clusters[c.Name]; dup {
			return
		}
	}
	gb.clusters[c.Name] = c
	if len(op.settings) > 0 {
		// policies' settings are in it: its packed configs are checked
		// with the Gateway (Gateway.validate)
		gb.policyShaped[c.Name] = true
	}
	if k, ok := gb.clusterBackend[op.of]; ok {
		gb.clusterBackend[c.Name] = k
		gb.clusterOrigin[c.Name] = gb.originCluster(op.of)
		gb.routeKinds[c.Name] |= routeKindOf(op.grpc)
	}
}

// originCluster is the backend cluster a rule's cluster copies (itself
// for any other): a copy is named for its rule, not its backend's port,
// and that port decides which of the backend's policies reach it
// (BackendPoints.ForPort) and the protocol they are judged for.
func (gb *gatewayBuild) originCluster(name string) string {
	if o, ok := gb.clusterOrigin[name]; ok {
		return o
	}
	return name
}

// settingsHash names a rule cluster's variant: 8 hex digits of the
// SHA-256 of its deterministic encoding.
func settingsHash(c *clusterv3.Cluster) string {
	b, _ := proto.MarshalOptions{Deterministic: true}.Marshal(c)
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:4])
}

// buildRuleCluster is the cluster ruleCluster records.
func (gb *gatewayBuild) buildRuleCluster(op clusterOp) *clusterv3.Cluster {
	backend := gb.cluster(op.of)
	c := proto.Clone(backend).(*clusterv3.Cluster)
	c.Name = op.name
	if c.GetType() == clusterv3.Cluster_EDS && c.EdsClusterConfig != nil && c.EdsClusterConfig.ServiceName == "" {
		c.EdsClusterConfig.ServiceName = op.of // the backend's endpoints (a copy of a copy keeps them)
	}
	var finish []func(proto.Message)
	for _, s := range op.settings {
		switch {
		case s.finish != nil:
			finish = append(finish, s.finish)
		case s.ofType:
			gb.mergeClusterOfType(c, s.c)
		default:
			gb.mergeCluster(c, s.c)
		}
	}
	for _, f := range finish {
		f(c)
	}
	finishHTTPOptions(c)
	if op.metadata != nil {
		if c.Metadata == nil {
			c.Metadata = &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{}}
		}
		for k, v := range op.metadata.FilterMetadata {
			c.Metadata.FilterMetadata[k] = v
		}
	}
	return c
}

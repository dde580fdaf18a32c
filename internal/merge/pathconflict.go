package merge

import (
	"fmt"
	"slices"
	"strings"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// PathOverride is the verdict on a field in effect on a route rule
// whose Envoy path on the route a field of a kind of another family
// writes too, and wins (policy.FieldSpec.Writes): on a Gateway that takes
// every kind (its GatewayClass absent, or naming no controller gwpol
// knows), one family's timeouts field and another family's timeout field
// may both set route.timeout. Only one value of a path can be in the
// route, so the loser's field takes no part in the route at all — a field
// is won whole, as within one kind — and every view reads this verdict:
// render leaves the field out, explain shows it overridden, lint reports
// it (GWP307).
//
// A route rule's view decides the route's own paths
// (policy.EnvoyPath.OnRoute); a listener's view the paths of the
// resources built per listener that its routes share
// (policy.EnvoyPath.OnListener: its connection manager, the Envoy
// listener, its filter chain and TLS, its virtual hosts), once for every
// route it serves: a rule's view takes the listener's verdict on the
// fields it inherits from there (OverriddenOnListener). Render leaves the
// loser out of those resources as out of the route. The clusters a rule
// sends to are the backends': a policy on the backend itself wins their
// settings over the rule's, on that backend's cluster alone
// (ClusterOverride).
//
// The winner is decided as GEP-713 orders policies, without any one
// family's own precedence (a kind's weight annotation,
// policy.KindSpec.WeightAnnotation, means nothing to another family's
// controller): the owner attached at the more specific level wins (rule
// over route over listener over Gateway), then the older policy
// (creationTimestamp; a dated one before an undated one), then the
// namespace/name that sorts first, then the group/kind that sorts first.
// A user can predict it from the objects alone, whatever the order of
// the families in gwpol's registry.
type PathOverride struct {
	// Path is the first path (in the loser's declaration order) both
	// write.
	Path policy.EnvoyPath
	// Kind, Key and Field are the winning field.
	Kind  policy.Kind
	Key   string
	Field *Field
	// Decision is why the winner's owner came first.
	Decision Decision
}

// MultiFamily reports whether policies of kinds of more than one family
// are in the input: only then can two fields write one path across
// families. Computed once.
func (r *Result) MultiFamily() bool {
	r.familiesOnce.Do(func() {
		if r.Policies == nil || r.Registry == nil {
			return
		}
		first := ""
		for _, p := range r.Policies.Policies {
			f := familyOf(r.Registry, p.Kind)
			if first == "" {
				first = f
			} else if f != first {
				r.manyFamilies = true
				return
			}
		}
	})
	return r.manyFamilies
}

// familyOf names a kind's family (its API group when no family lists it).
func familyOf(reg *policy.Registry, k policy.Kind) string {
	if f := reg.FamilyOf(k); f != nil {
		return f.Name
	}
	return k.GroupKind().Group
}

// crossFamily decides, among a view's fields in effect (out, as
// EffectiveFrom combined them per kind), those whose Envoy paths of the
// resource the view decides (decided: a route rule's, or a listener's)
// a field of a kind of another family also writes: the fields are taken in
// precedence order (crossDecide) and one that writes an exclusive path
// a field already kept of another family writes is overridden
// (EffectiveField.OverriddenBy). Fields of one family are left as their
// kinds merged them: a family's own kinds share paths by its
// controller's rules (render places them as it does). A field whose
// value in effect is a route rule's own (its owner is built in: the
// rule's timeouts, retry, a CORS filter) is no policy's and takes no part:
// the rule's own Gateway API values are what every controller
// translates, ahead of any policy (render writes them after the
// policies' values, and explain shows them owned by the rule). A field
// already overridden (a listener's verdict on an inherited field)
// neither wins nor loses; decided says which of a field's paths the view
// decides (a path the field's value does not reach there takes no part).
func crossFamily(reg *policy.Registry, out []EffectiveField, decided func(*EffectiveField, policy.EnvoyPath) bool) {
	if len(out) < 2 {
		return
	}
	fams := make([]string, len(out))
	several := false
	for i, e := range out {
		fams[i] = familyOf(reg, e.Kind)
		several = several || fams[i] != fams[0]
	}
	if !several {
		return
	}
	order := make([]int, len(out))
	for i := range order {
		order[i] = i
	}
	slices.SortStableFunc(order, func(a, b int) int { return crossCompare(&out[a], &out[b]) })
	var kept []int
	for _, i := range order {
		e := &out[i]
		if e.Field.Owner.IsBuiltIn() || e.OverriddenBy != nil {
			continue // a route rule's own value (see above), or one a listener's view already decided
		}
		for _, j := range kept {
			if fams[j] == fams[i] {
				continue
			}
			if p, ok := sharedPath(e, &out[j], decided); ok {
				w := &out[j]
				e.OverriddenBy = &PathOverride{Path: p, Kind: w.Kind, Key: w.Key, Field: w.Field, Decision: crossDecide(w, e)}
				break
			}
		}
		if e.OverriddenBy == nil {
			kept = append(kept, i)
		}
	}
}

// sharedPath is the first exclusive path of the resource the view
// decides (decided: a route's own in a rule's view,
// policy.EnvoyPath.OnRoute; a listener's in a listener's,
// policy.EnvoyPath.OnListener) in e's declaration that w's declaration
// overlaps.
func sharedPath(e, w *EffectiveField, decided func(*EffectiveField, policy.EnvoyPath) bool) (policy.EnvoyPath, bool) {
	ws := w.Kind.Spec().FieldWrites(w.Key)
	for _, p := range e.Kind.Spec().FieldWrites(e.Key) {
		if !p.Exclusive() || !decided(e, p) {
			continue
		}
		for _, q := range ws {
			if q.Exclusive() && decided(w, q) && p.Overlaps(q) {
				return p, true
			}
		}
	}
	return "", false
}

// crossCompare orders two fields of kinds of different families by the
// owners of their values in effect (PathOverride's rule): negative when
// a's comes first.
func crossCompare(a, b *EffectiveField) int {
	x, y := a.Field.Owner, b.Field.Owner
	if d := specificity[y.Level] - specificity[x.Level]; d != 0 {
		return d
	}
	p, q := x.Policy, y.Policy
	if !p.Created.Equal(q.Created) {
		switch {
		case q.Created.IsZero():
			return -1
		case p.Created.IsZero():
			return 1
		case p.Created.Before(q.Created):
			return -1
		}
		return 1
	}
	if c := strings.Compare(p.Obj.Namespace+"/"+p.Obj.Name, q.Obj.Namespace+"/"+q.Obj.Name); c != 0 {
		return c
	}
	return strings.Compare(a.Kind.GroupKind().String(), b.Kind.GroupKind().String())
}

// crossDecide says why w's owner beat the loser l's across families.
func crossDecide(w, l *EffectiveField) Decision {
	x, y := w.Field.Owner, l.Field.Owner
	p, q := x.Policy, y.Policy
	switch {
	case x.Level != y.Level:
		return Decision{RuleLevel, fmt.Sprintf("%s level is more specific than %s level", levelWord(x), levelWord(y))}
	case !p.Created.Equal(q.Created) && q.Created.IsZero():
		return Decision{RuleAge, fmt.Sprintf("created %s; the other has no creationTimestamp", stamp(p.Created))}
	case !p.Created.Equal(q.Created):
		return Decision{RuleAge, fmt.Sprintf("older: created %s, the other %s", stamp(p.Created), stamp(q.Created))}
	case p.Obj.Namespace != q.Obj.Namespace || p.Obj.Name != q.Obj.Name:
		return Decision{RuleName, fmt.Sprintf("same level and age: name %s/%s sorts before %s/%s",
			p.Obj.Namespace, p.Obj.Name, q.Obj.Namespace, q.Obj.Name)}
	}
	return Decision{RuleName, fmt.Sprintf("same level, age and name: kind %s sorts before %s", w.Kind.GroupKind(), l.Kind.GroupKind())}
}

// Overridden are the fields of a rule served on listener l along path
// (nil: its Own merge) that a field of another family's kind overrides
// there (EffectiveField.OverriddenBy), as "group/kind#key"; nil when
// none, and without building the view when the input holds one family's
// policies only. Render reads it to leave those fields out of the route.
func (r *Result) Overridden(rule *topology.Rule, path *RulePath, l *topology.Listener) []string {
	if !r.MultiFamily() {
		return nil
	}
	var out []string
	for _, e := range r.EffectiveOn(rule, path, l) {
		if e.OverriddenBy != nil {
			out = append(out, e.Kind.GroupKind().String()+"#"+e.Key)
		}
	}
	return out
}

// listenerCross are the fields of listener l's own view (Effective(nil,
// l)) that a field of another family's kind overrides on one of the
// listener's paths (PathOverride), computed once per listener; nil when
// the input holds one family's policies only.
func (r *Result) listenerCross(l *topology.Listener) []EffectiveField {
	if l == nil || !r.MultiFamily() {
		return nil
	}
	r.crossMu.Lock()
	v, ok := r.crossOn[l]
	r.crossMu.Unlock()
	if ok {
		return v
	}
	for _, e := range r.EffectiveFrom(nil, nil, l, nil) {
		if e.OverriddenBy != nil {
			v = append(v, e)
		}
	}
	r.crossMu.Lock()
	if r.crossOn == nil {
		r.crossOn = map[*topology.Listener][]EffectiveField{}
	}
	r.crossOn[l] = v
	r.crossMu.Unlock()
	return v
}

// fromListener marks, in a rule's view served on l (out), the fields it
// inherits that l's view finds overridden (listenerCross): the same
// policy's field of the same kind and key, which the listener's verdict
// takes out of every route it serves.
func (r *Result) fromListener(out []EffectiveField, l *topology.Listener) {
	lo := r.listenerCross(l)
	if len(lo) == 0 {
		return
	}
	for i := range out {
		e := &out[i]
		for _, o := range lo {
			if e.OverriddenBy == nil && o.Kind == e.Kind && o.Key == e.Key && o.Field.Owner.Policy == e.Field.Owner.Policy && o.Field.Owner.Level == e.Field.Owner.Level {
				e.OverriddenBy = o.OverriddenBy
			}
		}
	}
}

// onRoute is a rule's view's decided paths: the route's own.
func onRoute(_ *EffectiveField, p policy.EnvoyPath) bool { return p.OnRoute() }

// onListener is listener l's view's decided paths: those of the
// resources built for the listener (policy.EnvoyPath.OnListener) that a
// field's value there reaches. A value of the whole Gateway's reaches
// them all. A listener's own value reaches neither what its controller
// records but does not apply — a field that configures the Envoy
// listener of the whole port (policy.FieldSpec.PortWide), or the chain
// the HTTP listeners of a port share (ChainWide, on an HTTP listener):
// explain notes them — nor, where another programmed listener shares its
// port (topology.Listener.SharesPort), the port's Envoy listener, which
// only the whole Gateway's policies configure, or, on an HTTP listener,
// the connection manager and chain the port's HTTP listeners share (as
// render builds them).
func onListener(l *topology.Listener) func(*EffectiveField, policy.EnvoyPath) bool {
	shared := l.SharesPort()
	return func(e *EffectiveField, p policy.EnvoyPath) bool {
		if !p.OnListener() {
			return false
		}
		if e.Field.Owner.Level == LevelGateway {
			return true
		}
		http := l.Protocol == gwv1.HTTPProtocolType
		for _, fs := range e.Kind.Spec().Fields {
			if fs.Key == e.Key && (fs.PortWide || fs.ChainWide && http) {
				return false
			}
		}
		s := string(p)
		switch {
		case !shared:
			return true
		case strings.HasPrefix(s, "listener."):
			return false
		case http && (strings.HasPrefix(s, "hcm.") || strings.HasPrefix(s, "chain.")):
			return false
		}
		return true
	}
}

// OverriddenOnListener are the fields of listener l's view that a field
// of another family's kind overrides on one of the listener's paths
// (PathOverride), as "group/kind#key"; nil when none, and without
// building the view when the input holds one family's policies only.
// Render reads it to leave those fields out of the resources it builds
// for l (its connection manager, listener, chain, TLS, virtual hosts).
func (r *Result) OverriddenOnListener(l *topology.Listener) []string {
	var out []string
	for _, e := range r.listenerCross(l) {
		out = append(out, e.Kind.GroupKind().String()+"#"+e.Key)
	}
	return out
}

// ClusterOverride is one backend of a rule whose cluster takes a
// setting a field of the rule's view writes (a cluster.… path of its
// declaration) from a field of a policy on the backend itself, of a kind
// of another family (one family's backend policy's connect timeout and
// another's route policy's timeout: cluster.connect_timeout),
// on a Gateway that takes every kind. The cluster a rule's route-level
// settings make for the backend is one Envoy resource both write into;
// the backend's own policy attached at the more specific level — GEP-713's
// hierarchy runs Gateway, route, backend — and wins: render leaves the
// field's settings out of that backend's cluster alone, while the field
// stays in effect on the route and on the rule's other backends' clusters
// (explain notes it, lint reports GWP307). Kinds no family lists (the
// Gateway API's BackendTLSPolicy), which every controller reads and
// composes with its own kinds, are not judged.
type ClusterOverride struct {
	// Backend and Port name the backend's cluster.
	Backend model.Key
	Port    int32
	PathOverride
}

// fromBackends records, on the fields of a rule's view (out) served on
// Gateway gw, the backends of the rule whose policies' fields of
// another family's kinds win one of their cluster paths
// (EffectiveField.OnClusters, ClusterOverride): the backend's points as
// gw's controller builds its cluster (BackendOn).
func (r *Result) fromBackends(out []EffectiveField, rule *topology.Rule, gw *topology.Gateway) {
	if len(r.backendsBy) == 0 || gw == nil {
		return
	}
	type seenKey struct {
		k    model.Key
		port int32
	}
	var seen []seenKey
	for _, b := range rule.Backends {
		if b == nil || !b.Resolved || b.Extension {
			continue
		}
		key := model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}
		bp := r.backendsBy[key]
		if bp == nil || slices.Contains(seen, seenKey{key, b.Port}) {
			continue
		}
		seen = append(seen, seenKey{key, b.Port})
		pts := r.BackendOn(bp.ForPort(servicePortName(b)), gw)
		for i := range out {
			e := &out[i]
			if e.OverriddenBy != nil || e.Field.Owner.IsBuiltIn() || r.Registry.FamilyOf(e.Kind) == nil {
				continue
			}
			if o, ok := r.clusterWinner(e, pts); ok {
				e.OnClusters = append(e.OnClusters, ClusterOverride{Backend: key, Port: b.Port, PathOverride: o})
			}
		}
	}
}

// clusterWinner is the first field of a backend's points (pts) of a kind
// of another registered family that writes a cluster path e writes.
func (r *Result) clusterWinner(e *EffectiveField, pts Points) (PathOverride, bool) {
	fam := familyOf(r.Registry, e.Kind)
	for _, pt := range pts {
		if len(pt.Invalid) > 0 || r.Registry.FamilyOf(pt.Kind) == nil || familyOf(r.Registry, pt.Kind) == fam {
			continue
		}
		for _, f := range pt.Fields {
			w := EffectiveField{Kind: pt.Kind, Key: f.Key, Field: f}
			if p, ok := sharedPath(e, &w, onCluster); ok {
				return PathOverride{Path: p, Kind: pt.Kind, Key: f.Key, Field: f,
					Decision: Decision{RuleLevel, "backend level is more specific than " + levelWord(e.Field.Owner) + " level"}}, true
			}
		}
	}
	return PathOverride{}, false
}

// onCluster is a cluster's decided paths: the targeted backend's
// cluster's settings (cluster.…).
func onCluster(_ *EffectiveField, p policy.EnvoyPath) bool {
	return strings.HasPrefix(string(p), "cluster.")
}

// servicePortName is the name of the Service port a backendRef sends to
// ("" for another kind, or a port without a name): the port whose
// policies a backend's cluster takes (BackendPoints.ForPort).
func servicePortName(b *topology.Backend) string {
	if b.Service == nil {
		return ""
	}
	for _, p := range b.Service.Spec.Ports {
		if p.Port == b.Port {
			return p.Name
		}
	}
	return ""
}

// ClusterOverridden are the fields of a rule served on listener l along
// path (nil: its Own merge) whose settings one backend's cluster takes
// from a policy on the backend of another family's kind instead
// (EffectiveField.OnClusters), as "group/kind#key" per backend; nil when
// none, and without building the view when the input holds one family's
// policies only. Render reads it to leave those fields' settings out of
// that backend's cluster of the rule.
func (r *Result) ClusterOverridden(rule *topology.Rule, path *RulePath, l *topology.Listener) map[ClusterOf][]string {
	if !r.MultiFamily() || len(r.backendsBy) == 0 {
		return nil
	}
	var out map[ClusterOf][]string
	for _, e := range r.EffectiveOn(rule, path, l) {
		for _, c := range e.OnClusters {
			if out == nil {
				out = map[ClusterOf][]string{}
			}
			k := ClusterOf{c.Backend, c.Port}
			out[k] = append(out[k], e.Kind.GroupKind().String()+"#"+e.Key)
		}
	}
	return out
}

// ClusterOf names a backend's cluster: the object and its port.
type ClusterOf struct {
	Backend model.Key
	Port    int32
}

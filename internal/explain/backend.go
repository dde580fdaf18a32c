package explain

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/gwpol/gwpol/internal/attach"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file explains a backend object's clusters: for a Service each
// port's cluster (kube_<ns>_<name>_<port>), for another backend kind
// (policy.BackendProvider) its one cluster. Every cluster setting a backend
// policy kind can configure gets a row: the policy that owns it (read
// from merge.BackendPoints, the same merge render writes as the
// cluster's merge.<group>/<kind> metadata), else the object's own spec
// (policy.BackendDescriber), else the cluster's default.

// Owners of a cluster setting no policy sets.
const (
	ownerDefault = "default"
	levelDefault = "cluster default"
	levelSpec    = "backend spec"
)

// explainBackend explains a Service (each port, or the one Section
// names by number or name) or another backend object.
func explainBackend(r *merge.Result, t TargetSpec, opt Options) (*Report, error) {
	keys := backendKeys(r, t)
	if len(keys) == 0 {
		return nil, Absent(r.Graph.Model, t, backendNames(r, t.Kind))
	}
	rep := &Report{Targets: []Target{}}
	bps := map[model.Key]*merge.BackendPoints{}
	for _, bp := range r.Backends {
		bps[bp.Key] = bp
	}
	for _, k := range keys {
		bp := bps[k]
		if bp == nil {
			bp = &merge.BackendPoints{Key: k}
		}
		if k.Kind != string(policy.TargetService) {
			rep.Targets = append(rep.Targets, backendTarget(r, bp, "", "", opt))
			continue
		}
		svc := r.Graph.Model.Service(k.Namespace, k.Name)
		var ports []string
		for _, p := range svc.Spec.Ports {
			num := strconv.Itoa(int(p.Port))
			ports = append(ports, num)
			if t.Section == "" || t.Section == num || t.Section == p.Name {
				rep.Targets = append(rep.Targets, backendTarget(r, bp, num, p.Name, opt))
			}
		}
		if len(rep.Targets) == 0 {
			return nil, NotFound(t, ports)
		}
	}
	return rep, nil
}

// backendKeys finds the objects a target names: the Service, or the
// objects of every registered backend kind of that name (two families'
// backend kinds may share the kind name).
func backendKeys(r *merge.Result, t TargetSpec) []model.Key {
	m := r.Graph.Model
	if t.Kind == string(policy.TargetService) {
		if m.Service(t.Namespace, t.Name) == nil {
			return nil
		}
		return []model.Key{{Group: model.CoreGroup, Kind: t.Kind, Namespace: t.Namespace, Name: t.Name}}
	}
	var out []model.Key
	for _, gk := range slices.SortedFunc(maps.Keys(r.Registry.BackendKinds()), compareGK) {
		k := model.Key{Group: gk.Group, Kind: gk.Kind, Namespace: t.Namespace, Name: t.Name}
		if _, ok := m.Object(k); ok && strings.EqualFold(gk.Kind, t.Kind) {
			out = append(out, k)
		}
	}
	return out
}

// backendNames are the objects of a backend kind as NAMESPACE/NAME, for
// a not-found error.
func backendNames(r *merge.Result, kind string) []string {
	var out []string
	for gk := range r.Registry.BackendKinds() {
		if kind == string(policy.TargetService) || !strings.EqualFold(gk.Kind, kind) {
			continue
		}
		for _, o := range r.Graph.Model.OfKind(gk) {
			k := model.KeyOf(o)
			out = append(out, k.Namespace+"/"+k.Name)
		}
	}
	if kind == string(policy.TargetService) {
		for _, o := range r.Graph.Model.OfKind(model.GroupKind{Group: model.CoreGroup, Kind: kind}) {
			k := model.KeyOf(o)
			out = append(out, k.Namespace+"/"+k.Name)
		}
	}
	slices.Sort(out)
	return out
}

// backendTarget explains one cluster of a backend: port "" for a
// backend object other than a Service.
func backendTarget(r *merge.Result, bp *merge.BackendPoints, port, portName string, opt Options) Target {
	k := bp.Key
	ref := Ref{Group: k.Group, Kind: k.Kind, Namespace: k.Namespace, Name: k.Name, Section: port}
	t := Target{Target: ref, EnvoyRoutes: []string{}, Cluster: backendClusterName(k, port)}
	if v, refused := r.Attach.RefusedObject(k); refused && (port == "" || !v.Refused()) {
		on := ""
		if k.Group == model.CoreGroup && v.Controller != "" {
			on = " on the Gateways of " + v.Controller
		}
		t.Notes = append(t.Notes, strings.TrimPrefix(untranslatedText(v), "is ")+": its cluster is left out of the Envoy config"+on+", "+
			"so the requests routes send it answer 500, and none of the fields listed take effect")
	}
	if opt.ClusterLeftOut != nil {
		for _, lo := range opt.ClusterLeftOut(t.Cluster) {
			t.Notes = append(t.Notes, "left out of the Envoy config of Gateway "+lo.Gateway+" ("+lo.Why+"): the routes sending to it there answer their cluster-not-found status, and none of the fields listed take effect there")
		}
	}
	// a port only GRPCRoutes send to, on Gateways whose controller builds
	// their backends without the port's name, takes the whole Service's
	// policies alone, as render's cluster (policy.Target.BackendPortName)
	gRPCWho, gRPCOnly := grpcWholeServiceOnly(r, k, port)
	if gRPCOnly && bp.Ports[portName] != nil {
		t.Notes = append(t.Notes, fmt.Sprintf("only GRPCRoutes send to this port, on Gateways of %s, which builds a GRPCRoute's backend without the port's name: its cluster takes the policies on the whole Service alone, none naming port %s (sectionName)", gRPCWho, portName))
		portName = ""
	}
	pts := bp.ForPort(portName)
	notOn := notOnGateways(r, k, pts)
	for _, n := range notOn {
		t.Notes = append(t.Notes, n.note)
	}
	var effective []merge.EffectiveField
	for _, pt := range pts {
		for _, f := range pt.Fields {
			effective = append(effective, merge.EffectiveField{Kind: pt.Kind, Key: f.Key, Field: f})
		}
		for _, c := range pt.Invalid {
			t.Notes = append(t.Notes, "the invalid policy "+c.Policy.ID()+" targets this backend, so none of the fields listed take effect"+blackholedBy(r.Registry))
		}
	}
	if portName != "" {
		if ppts, own := bp.Ports[portName]; own {
			// the port's own policies come first, but for a kind whose
			// controller lists the whole Service's first
			// (KindSpec.WholeTargetFirst), named as such
			// (KindSpec.WholeTargetFirst), named as such, and a kind the
			// controller ranks by age alone (Candidate.Rank)
			var wholeFirst, byAge []string
			for _, pt := range ppts {
				switch {
				case slices.ContainsFunc(pt.Candidates, func(c *merge.Candidate) bool { return c.Rank != nil }):
					byAge = append(byAge, pt.Kind.GroupKind().Kind)
				case pt.Kind.Spec().WholeTargetFirst && slices.ContainsFunc(pt.Candidates, func(c *merge.Candidate) bool { return c.Via == attach.ViaSection }):
					wholeFirst = append(wholeFirst, pt.Kind.GroupKind().Kind)
				}
			}
			if len(wholeFirst)+len(byAge) < len(ppts) {
				t.Notes = append(t.Notes, fmt.Sprintf("policies naming port %s (sectionName) come before those on the whole Service", portName))
			}
			for _, kind := range wholeFirst {
				t.Notes = append(t.Notes, fmt.Sprintf("%s policies on the whole Service come before those naming port %s (sectionName), as the controller lists them", kind, portName))
			}
			for _, kind := range byAge {
				t.Notes = append(t.Notes, fmt.Sprintf("%s policies naming port %s (sectionName) and those on the whole Service are ranked together by age, then reference, as the controller ranks them", kind, portName))
			}
			if gRPCWho != "" {
				t.Notes = append(t.Notes, fmt.Sprintf("GRPCRoutes send to this port on Gateways of %s, which builds a GRPCRoute's backend without the port's name (the policies on the whole Service alone, none naming port %s); other routes send to it too, and its one cluster takes the policies as listed here", gRPCWho, portName))
			}
		}
	}
	num, _ := strconv.Atoi(port)
	t.Fields = clusterRows(r, k, int32(num), fields(effective, opt), opt)
	for i := range t.Fields {
		f := &t.Fields[i]
		if f.Owner == ownerDefault || f.Level == levelSpec {
			continue
		}
		for _, why := range []string{whyStranger, whyRefused} {
			var gws []string
			for _, n := range notOn {
				if n.kind == f.PolicyKind && n.why == why && (why == whyStranger || n.policy == f.Owner) {
					gws = append(gws, n.gateway)
				}
			}
			if len(gws) > 0 {
				f.Notes = append(f.Notes, "not on Gateway "+strings.Join(gws, ", Gateway ")+", "+why)
			}
		}
	}
	return t
}

// Why a Gateway's cluster of a backend takes none of a field
// (notOnGateway.why).
const (
	whyStranger = "whose controller does not read the kind"
	whyRefused  = "whose controller refuses the policy"
	whyRanked   = "its controller ranks the policies on a backend itself (by age, a port's own and the whole object's alike)"
)

// rankedOwner is the policy owning the first field of pt ("" when none).
func rankedOwner(pt *merge.Point) string {
	if pt == nil || len(pt.Fields) == 0 {
		return ""
	}
	return pt.Fields[0].Owner.Policy.ID()
}

// notOnGateway is a Gateway routing to a backend whose cluster there
// takes none of one kind's policies, or of one policy of it
// (merge.Result.BackendOn).
type notOnGateway struct {
	kind, gateway, note string
	why                 string // whyStranger or whyRefused
	policy              string // the refused policy's ID (whyRefused)
}

// notOnGateways are, per Gateway whose routes send to the backend k and
// kind of its merge (pts) that Gateway's controller does not read, or
// policy of it the controller refuses where the other controllers using
// it accept it, what render decided (merge.Result.BackendOn): its
// cluster there is built without that kind's fields, or with that
// policy as an invalid one. Only when the input mixes controllers.
func notOnGateways(r *merge.Result, k model.Key, pts merge.Points) []notOnGateway {
	if len(pts) == 0 || r.Attach == nil || !r.Attach.Mixed() && len(r.Attach.RefusedBy) == 0 && !r.RankMixed() {
		return nil
	}
	var out []notOnGateway
	for _, gw := range r.Graph.BackendGateways()[k] {
		on := r.BackendOn(pts, gw)
		name := gw.Namespace + "/" + gw.Name
		for _, pt := range pts {
			if slices.Contains(on, pt) {
				continue
			}
			gk := pt.Kind.GroupKind()
			if again := on.Of(pt.Kind); again != nil { // merged again: a policy of it refused there, or ranked as that controller does
				if owner := rankedOwner(again); owner != "" && owner != rankedOwner(pt) {
					out = append(out, notOnGateway{kind: gk.Group + "/" + gk.Kind, gateway: name, why: whyRanked,
						note: "the cluster Gateway " + name + " builds for it takes " + gk.Kind + " from " + owner + ": " + whyRanked})
				}
				for _, c := range pt.Candidates {
					for _, msg := range r.RefusedOn(c.Policy, gw) {
						out = append(out, notOnGateway{kind: gk.Group + "/" + gk.Kind, gateway: name, why: whyRefused, policy: c.Policy.ID(),
							note: "the cluster Gateway " + name + " builds for it takes " + c.Policy.ID() + " as an invalid policy: " + msg})
					}
				}
				continue
			}
			why := "its controller does not read " + gk.Kind
			if s, ok := r.Registry.StrangerOn(r.Graph, gw, pt.Kind); ok {
				why = s.Why(gk.Kind, "Gateway "+name)
			}
			out = append(out, notOnGateway{kind: gk.Group + "/" + gk.Kind, gateway: name, why: whyStranger,
				note: "the cluster Gateway " + name + " builds for it takes none of the " + gk.Kind + " fields listed: " + why})
		}
	}
	return out
}

// backendClusterName is render's name of the cluster.
func backendClusterName(k model.Key, port string) string {
	if port != "" {
		n, _ := strconv.Atoi(port)
		return policy.ServiceCluster(k.Namespace, k.Name, int32(n))
	}
	return strings.ToLower(k.Kind) + "_" + k.Namespace + "_" + k.Name + "_0"
}

// clusterRows lays the fields in effect over every cluster setting the
// backend kinds can configure, in registry and field order: a field a
// later kind sets replaces an earlier kind's on the same setting, a
// policy replaces the object's own spec, and what nothing sets is the
// cluster's default.
func clusterRows(r *merge.Result, k model.Key, port int32, inEffect []Field, opt Options) []Field {
	spec := backendSettings(r, k)
	byKey := map[string]*Field{}
	for i := range inEffect {
		byKey[inEffect[i].PolicyKind+"#"+inEffect[i].Field] = &inEffect[i]
	}
	owner := map[string]*Field{} // cluster setting → the last field setting it
	var out []Field
	for _, kind := range r.Registry.Kinds() {
		if !slices.Contains(kind.Spec().TargetKinds, policy.TargetService) {
			continue
		}
		gk := kind.GroupKind()
		for _, fs := range kind.Spec().Fields {
			if !MatchField(fs.Key, opt.Field) {
				continue
			}
			f, set := byKey[gk.Group+"/"+gk.Kind+"#"+fs.Key]
			if !set {
				out = append(out, unsetRow(gk, fs, spec, k))
				continue
			}
			f.ClusterSetting = fs.Cluster
			if note := otherProtocol(r, kind, fs, k, port); note != "" {
				// left out of the cluster: it replaces nothing there
				f.Notes = append(f.Notes, note)
				f.NotOnCluster = true
				out = append(out, *f)
				continue
			}
			if prev := owner[fs.Cluster]; fs.Cluster != "" && prev != nil {
				prev.ReplacedBy = append(prev.ReplacedBy, f.Owner)
				f.Notes = append(f.Notes, fmt.Sprintf("replaces %s's %s on the cluster's %s", prev.PolicyKind, prev.Field, fs.Cluster))
			} else if from, ok := spec[fs.Cluster]; ok && fs.Cluster != "" {
				f.Notes = append(f.Notes, fmt.Sprintf("replaces the %s's own %s (%s)", k.Kind, fs.Cluster, from))
			} else if alt := policy.ClusterSettingAlternative(fs.Cluster); alt != "" && spec[alt] != "" {
				f.Notes = append(f.Notes, fmt.Sprintf("replaces the %s's own %s (%s): a cluster has one explicit HTTP protocol configuration", k.Kind, alt, spec[alt]))
			}
			if fs.Cluster != "" {
				owner[fs.Cluster] = f
			}
			out = append(out, *f)
		}
	}
	// ReplacedBy was recorded on the map's fields after they were copied.
	for i := range out {
		if f := byKey[out[i].PolicyKind+"#"+out[i].Field]; f != nil {
			out[i].ReplacedBy = f.ReplacedBy
		}
	}
	return out
}

// otherProtocol says, for a field limited to one upstream protocol
// (policy.FieldSpec.Protocol), that merge's verdict leaves it out of this
// cluster (merge.Result.FieldProtocolOn, the one render and lint read);
// "" otherwise.
func otherProtocol(r *merge.Result, kind policy.Kind, fs policy.FieldSpec, k model.Key, port int32) string {
	v := r.FieldProtocolOn(kind, fs.Key, k, port)
	if !v.LeftOut() {
		return ""
	}
	return fmt.Sprintf("not applied to this cluster: the backend is an %s one and the field applies to %s backends only (the policy stays Accepted)", protocolTitle(v.Speaks), protocolTitle(v.Only))
}

func protocolTitle(p string) string {
	if p == policy.ClusterHTTP2 {
		return "HTTP/2"
	}
	return "HTTP/1.1"
}

// unsetRow is a cluster setting no policy sets: the object's spec owns
// it when it sets it, else the default does.
func unsetRow(gk model.GroupKind, fs policy.FieldSpec, spec map[string]string, k model.Key) Field {
	f := Field{PolicyKind: gk.Group + "/" + gk.Kind, Field: fs.Key, Owner: ownerDefault, Level: levelDefault,
		Contributors: []string{}, Overridden: []string{}, DefaultStrategy: true, ClusterSetting: fs.Cluster}
	if from, ok := spec[fs.Cluster]; ok && fs.Cluster != "" {
		f.Owner, f.Level = k.Kind+" "+k.Namespace+"/"+k.Name, levelSpec
		f.Notes = append(f.Notes, fmt.Sprintf("%s sets the cluster's %s", from, fs.Cluster))
	}
	return f
}

// backendSettings are the cluster settings the object's own spec sets.
func backendSettings(r *merge.Result, k model.Key) map[string]string {
	for _, kind := range r.Registry.Kinds() {
		bp, ok := kind.(policy.BackendProvider)
		d, ok2 := kind.(policy.BackendDescriber)
		if !ok || !ok2 || !slices.Contains(bp.BackendKinds(), k.GK()) {
			continue
		}
		if o, ok := r.Graph.Model.Object(k); ok {
			return d.BackendSettings(o)
		}
	}
	return nil
}

// grpcWholeServiceOnly names the controllers (as "TITLE (--target
// NAME)") whose Gateways a GRPCRoute sends to port of Service k through,
// and whose render target builds a GRPCRoute's backend without the port's
// name (policy.Target.GRPCBackendsWholeService); "" when none does. only:
// some do, and no other route sends to that port (render's cluster of a
// port only GRPCRoutes send to: policy.Target.BackendPortName).
func grpcWholeServiceOnly(r *merge.Result, k model.Key, port string) (who string, only bool) {
	num, err := strconv.Atoi(port)
	if err != nil || r.Registry == nil || k.Kind != string(policy.TargetService) {
		return "", false
	}
	var names []string
	only = true
	for _, rt := range r.Graph.Routes {
		sends := false
		for _, rule := range rt.Rules {
			sends = sends || slices.ContainsFunc(rule.Backends, func(b *topology.Backend) bool {
				return b.Group == "" && b.Kind == k.Kind && b.Namespace == k.Namespace && b.Name == k.Name && int(b.Port) == num
			})
		}
		if !sends {
			continue
		}
		if rt.Kind != "GRPCRoute" {
			only = false
			continue
		}
		for _, p := range rt.Parents {
			if p.Gateway == nil || len(p.Listeners) == 0 {
				continue
			}
			c, ok := r.Registry.Controller(r.Graph.ControllerOf(p.Gateway))
			t, known := r.Registry.Target(c.RenderTarget)
			if !ok || c.RenderTarget == "" || !known || !t.GRPCBackendsWholeService {
				only = false
				continue
			}
			if w := c.Title + " (--target " + t.Name + ")"; !slices.Contains(names, w) {
				names = append(names, w)
			}
		}
	}
	return strings.Join(names, " and "), only && len(names) > 0
}

func compareGK(a, b model.GroupKind) int {
	return strings.Compare(a.Group+"/"+a.Kind, b.Group+"/"+b.Kind)
}

// blackholedBy names, for the note on an invalid backend policy, the
// controllers whose render target replaces such a backend's cluster
// (policy.Target.BlackholesInvalidBackendPolicy): ": TITLE (--target
// NAME) replaces the cluster with one without endpoints (Envoy answers
// 503)"; "" when none does.
func blackholedBy(reg *policy.Registry) string {
	var who []string
	for _, c := range reg.Controllers() {
		if t, ok := reg.Target(c.RenderTarget); ok && c.RenderTarget != "" && t.BlackholesInvalidBackendPolicy {
			who = append(who, c.Title+" (--target "+t.Name+")")
		}
	}
	if len(who) == 0 {
		return ""
	}
	verb := " replaces"
	if len(who) > 1 {
		verb = " replace"
	}
	return ": " + strings.Join(who, " and ") + verb + " the cluster with one without endpoints (Envoy answers 503)"
}

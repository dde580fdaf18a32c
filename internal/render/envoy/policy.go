package envoy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"sync"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tcpproxyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/tcp_proxy/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// scoped is the rendered merge of one Envoy resource (a Route, a
// VirtualHost or a RouteConfiguration): its metadata, each field's
// configuration, and whether the resource must be replaced.
type scoped struct {
	metadata *corev3.Metadata
	fields   []*rendered
	// invalid: an invalid policy merges here (replaced: 500, the target's
	// XDSNames.InvalidBody).
	invalid bool
	// failBody: a field could not be expressed (replaced: 503, this body).
	failBody string

	tpfc map[string]*anypb.Any // see perFilter
}

func (s *scoped) replaced() bool { return s != nil && (s.invalid || s.failBody != "") }

func (s *scoped) replaceStatus() uint32 {
	if s.invalid {
		return 500
	}
	return 503
}

// replaceBody is the body of the direct response replacing the resource,
// invalidBody the target's for an invalid policy.
func (s *scoped) replaceBody(invalidBody string) string {
	if s.invalid {
		return invalidBody
	}
	return s.failBody
}

// filterDef is an HTTP filter of the HCM chain.
type filterDef struct {
	name       string
	order      int
	precedence int32
	upstream   bool
	config     *anypb.Any
	enabled    bool     // on for every route (a backend's own filter), not per resource
	merge      bool     // the chain's config merges every resource's (policy.HTTPFilter.Merge)
	removes    []string // request headers every route of the chain removes (policy.HTTPFilter.RemoveRequestHeaders)
}

// rendered is one merged field turned into typed Envoy configuration.
type rendered struct {
	kindKey     string // group/kind#field, for most-specific-wins
	kindID      int32  // kindKey as a small number (builder.kindIDs), compared per route
	metaKey     string // the kind's merge metadata key
	field       string // the field's key
	filters     []filterDef
	perFilter   map[string]*anypb.Any
	routeAction *routev3.RouteAction
	route       *routev3.Route
	mirror      *routev3.RouteAction_RequestMirrorPolicy
	vhost       *routev3.VirtualHost
	clusters    []*clusterv3.Cluster
	cluster     *clusterv3.Cluster           // settings of the targeted backend's cluster (ScopeCluster)
	ofType      *clusterv3.Cluster           // settings for a cluster of its custom type only (policy.Fragment.ClusterOfType)
	ownCluster  *clusterv3.Cluster           // settings of a backendRef's own cluster (policy.Fragment.BackendCluster)
	finish      []func(proto.Message)        // adjustments of the whole cluster (policy.Fragment.ClusterFinish)
	hcm         *hcmv3.HttpConnectionManager // settings of the listeners' connection managers
	listener    *listenerv3.Listener         // settings of the listeners
	chain       *listenerv3.FilterChain      // settings of the listeners' filter chains
	tls         *tlsv3.DownstreamTlsContext  // settings of the TLS-terminating filter chains
	unset       []string                     // settings turned off first (policy.Fragment.Unset)
	network     []*listenerv3.Filter         // network filters before the connection manager
	http3       bool                         // HTTP/3 served beside (policy.Fragment.HTTP3)
	http10Host  bool                         // HTTP/1.0 default host the listener's (policy.Fragment.HTTP10DefaultHost)
	noUpgrade   bool                         // the target's default upgrade kept off (policy.Fragment.NoUpgrade)
	tcpProxy    *tcpproxyv3.TcpProxy         // settings of the TCP and TLS listeners' TCP proxies
	// port: the field's settings apply on this listener port only,
	// replacing there the kind's fields for every port (port 0).
	port     int32
	failBody string
	// fills: at a less specific level, the field still sets the route
	// action fields a more specific level left unset (FieldSpec.FillsUnset).
	fills bool
	// notGRPC: at a less specific level, the field does not reach a
	// GRPCRoute's routes (FieldSpec.NotOnGRPCRoutes).
	notGRPC bool
	// forwardOnly: the field's route settings reach only a route that
	// forwards (merge.ForwardingOnly, the verdict explain reads too).
	forwardOnly bool
	// perRoute build what the field configures per route (perroute.go).
	perRoute []perRouteFn
	// contributors are the policies whose values the field is, for
	// findings render makes where it places the field.
	contributors []*policy.Policy
}

// scope renders the merge points of one resource. Kinds that override
// whole are left out: their configuration is placed on each route
// (routeScope), combined per route by merge.Result.Routed.
func (b *builder) scope(pts merge.Points, sc policy.Scope) *scoped {
	return b.scopeOf(pts, sc, false, nil, false)
}

// gatewayScope renders the merge points of the Gateway or of one of its
// listeners: fields there may depend on which Gateway they configure
// (policy.FieldInput.Gateway).
func (gb *gatewayBuild) gatewayScope(pts merge.Points, sc policy.Scope) *scoped {
	return gb.scopeOf(pts, sc, false, gb.gw, false)
}

// listenerScope renders the merge points of one HTTP listener (its
// virtual host); shared: other HTTP listeners share its port (see
// policy.FieldInput.SharedPort).
func (gb *gatewayBuild) listenerScope(pts merge.Points, shared bool) *scoped {
	return gb.scopeOf(pts, policy.ScopeVirtualHost, false, gb.gw, shared)
}

// overridesWhole reports whether a kind's policies replace less specific
// ones whole (policy.WholeOverrider).
func overridesWhole(k policy.Kind) bool {
	wo, ok := k.(policy.WholeOverrider)
	return ok && wo.OverridesWhole()
}

// scopeOf renders the points of the kinds that override whole (routed)
// or of the others; gw is the Gateway they configure, nil on routes;
// shared as in listenerScope.
func (b *builder) scopeOf(pts merge.Points, sc policy.Scope, routed bool, gw *topology.Gateway, shared bool) *scoped {
	s := &scoped{}
	var md map[string]*structpb.Struct
	for _, p := range pts {
		if overridesWhole(p.Kind) != routed {
			continue
		}
		if len(p.Invalid) > 0 {
			s.invalid = true
		}
		md = b.addOrigins(md, p)
		r, ok := p.Kind.(policy.Renderer)
		if !ok {
			continue // kinds without a renderer contribute metadata only
		}
		whole := ""
		if routed {
			whole = p.Whole // a merge of whole policies (policy.FieldInput.Whole)
		}
		for _, f := range p.Fields {
			rf := b.renderField(p.Kind, r, f, sc, gw, shared, whole, len(p.Invalid) > 0)
			if rf.failBody != "" && s.failBody == "" {
				s.failBody = rf.failBody
			}
			s.fields = append(s.fields, rf)
		}
	}
	if md != nil {
		s.metadata = &corev3.Metadata{FilterMetadata: md}
	}
	s.tpfc = s.buildPerFilter()
	return s
}

func (b *builder) metadataKey(k policy.Kind) string {
	spec := k.Spec()
	if b.opt.MergeKeyCompat && spec.MetadataKeyCompat != "" {
		return spec.MetadataKeyCompat
	}
	if spec.MetadataKey != "" {
		return spec.MetadataKey
	}
	gk := k.GroupKind()
	return "merge." + gk.Group + "/" + gk.Kind
}

// addOrigins adds a point's merge metadata. A kind's compatible key
// (Options.MergeKeyCompat, policy.KindSpec.MetadataKeyCompat) carries what
// the controller reports (its MergeOrigins name a policy even where the
// route rule's own field wins); gwpol's own keys say what is in effect:
// the policies under the kind's key, and the route rules' own fields under
// merge.<group>/<kind> of the route (merge.gateway.networking.k8s.io/HTTPRoute).
func (b *builder) addOrigins(md map[string]*structpb.Struct, p *merge.Point) map[string]*structpb.Struct {
	return b.addOriginsExcept(md, p, nil)
}

// addOriginsExcept is addOrigins without the fields in except: fields
// the point has that are not applied where the metadata goes (a backend
// cluster's, merge.ProtocolVerdict).
func (b *builder) addOriginsExcept(md map[string]*structpb.Struct, p *merge.Point, except map[string]bool) map[string]*structpb.Struct {
	add := func(key string, origins map[string][]string) {
		for f := range except {
			delete(origins, f)
		}
		if len(origins) == 0 {
			return
		}
		if md == nil {
			md = map[string]*structpb.Struct{}
		}
		st := originsStruct(origins)
		if prev, ok := md[key]; ok {
			maps.Copy(prev.Fields, st.Fields) // several kinds' rule fields share the route's key
			return
		}
		md[key] = st
	}
	if b.opt.MergeKeyCompat {
		if !p.Kind.Spec().NoCompatMetadata {
			add(b.metadataKey(p.Kind), p.Origins())
		}
		return md
	}
	add(b.metadataKey(p.Kind), p.InEffect())
	if len(p.Rule) > 0 { // a rule point: one route kind
		gk := p.Rule[0].Owner.Policy.BuiltIn.Route
		add("merge."+gk.Group+"/"+gk.Kind, p.RuleOrigins())
	}
	return md
}

// originsStruct is MergeOrigins as a Struct: field → sorted policy IDs.
func originsStruct(origins map[string][]string) *structpb.Struct {
	fields := make(map[string]*structpb.Value, len(origins))
	for k, ids := range origins {
		vals := make([]*structpb.Value, len(ids))
		for i, id := range ids {
			vals[i] = structpb.NewStringValue(id)
		}
		fields[k] = structpb.NewListValue(&structpb.ListValue{Values: vals})
	}
	return &structpb.Struct{Fields: fields}
}

// renderField renders one merged field through its kind, once per
// distinct (field, contributors, scope, Gateway): the same policies
// reaching many routes render once.
func (b *builder) renderField(k policy.Kind, r policy.Renderer, f *merge.Field, sc policy.Scope, gw *topology.Gateway, shared bool, whole string, failed bool) *rendered {
	gk := k.GroupKind()
	var gwName policy.GatewayName
	if gw != nil {
		gwName = policy.GatewayName{Namespace: gw.Namespace, Name: gw.Name}
	}
	// The key is built in a stack buffer and looked up without making a
	// string of it: most calls hit, and building it from strings cost
	// half a dozen allocations each.
	var arr [256]byte
	key := appendRenderKey(arr[:0], gk, f, sc, gwName, shared, whole, failed)
	b.mu.Lock()
	rf, ok := b.rendered[string(key)]
	b.mu.Unlock()
	if ok {
		return rf
	}
	cacheKey := string(key)
	ids := make([]string, len(f.Contributors))
	nss := make([]string, len(f.Contributors))
	for i, c := range f.Contributors {
		ids[i] = c.Policy.ID()
		nss[i] = c.Policy.Obj.Namespace
	}
	rf = b.renderNew(k, r, f, sc, ids, nss, gwName, shared, whole, failed, sc != policy.ScopeRoute && servesStreams(gw))
	rf.metaKey, rf.field = b.metadataKey(k), f.Key
	for _, c := range f.Contributors {
		rf.contributors = append(rf.contributors, c.Policy)
	}
	// merge's verdict: the field configures forwarding routes only
	rf.forwardOnly = merge.ForwardingOnly(k, f.Key)
	for _, fs := range k.Spec().Fields {
		rf.fills = rf.fills || (fs.Key == f.Key && fs.FillsUnset)
		rf.notGRPC = rf.notGRPC || (fs.Key == f.Key && fs.NotOnGRPCRoutes)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if prev, ok := b.rendered[cacheKey]; ok {
		return prev // rendered concurrently; keep one
	}
	id, ok := b.kindIDs[rf.kindKey]
	if !ok {
		id = int32(len(b.kindIDs))
		b.kindIDs[rf.kindKey] = id
	}
	rf.kindID = id
	b.rendered[cacheKey] = rf
	return rf
}

// appendRenderKey appends what renders a field alike: the kind and field,
// scope, strategy, contributors (a route's rules set their own values:
// a built-in contributor is told apart by its rule), Gateway, and whether
// the policy fails there —
// "group/kind#field|scope|strategy|id[#rule],…|namespace/name|shared|whole|failed".
func appendRenderKey(key []byte, gk model.GroupKind, f *merge.Field, sc policy.Scope, gw policy.GatewayName, shared bool, whole string, failed bool) []byte {
	if gk.Group != "" {
		key = append(append(key, gk.Group...), '/')
	}
	key = append(append(append(key, gk.Kind...), '#'), f.Key...)
	key = append(append(append(key, '|'), sc...), '|')
	key = append(append(key, f.Strategy...), '|')
	for i, c := range f.Contributors {
		if i > 0 {
			key = append(key, ',')
		}
		key = c.Policy.AppendID(key)
		if bi := c.Policy.BuiltIn; bi != nil {
			key = append(append(key, '#'), bi.Rule...)
		}
	}
	key = append(append(key, '|'), gw.Namespace...)
	key = append(append(key, '/'), gw.Name...)
	key = strconv.AppendBool(append(key, '|'), shared)
	key = append(append(key, '|'), whole...)
	return strconv.AppendBool(append(key, '|'), failed)
}

// servesStreams: gw has a TCP or TLS listener with a route it programs a
// tcp_proxy chain for (tcp.go), which the Gateway's fields reach too.
func servesStreams(gw *topology.Gateway) bool {
	if gw == nil {
		return false
	}
	return slices.ContainsFunc(gw.Listeners, func(l *topology.Listener) bool { return len(l.StreamRoutes()) > 0 })
}

// renderNew renders a field through its kind and types the fragments.
// streams: the field also reaches TCP and TLS chains, which never answer
// with a direct response: a field they cannot take is left out of them.
func (b *builder) renderNew(k policy.Kind, r policy.Renderer, f *merge.Field, sc policy.Scope, ids, nss []string, gw policy.GatewayName, shared bool, whole string, failing, streams bool) *rendered {
	gk := k.GroupKind()
	rf := &rendered{kindKey: gk.String() + "#" + f.Key}
	owner := f.Owner.Policy
	in := policy.FieldInput{Key: f.Key, Strategy: f.Strategy, Values: f.Values, Contributors: ids, Scope: sc, Namespaces: nss, Gateway: gw, SharedPort: shared, Whole: whole, Failed: failing}
	frags, err := r.RenderField(in, b.env)
	// A setting gwpol does not render yet (listener, connection manager
	// and cluster settings) is an error finding (GWP404) naming what is
	// left out; the resource is emitted without it rather than replaced.
	if err != nil && diag.KindOf(err) == diag.Unsupported {
		for _, c := range f.Contributors {
			b.report(c.Policy, f.Key, policy.LintUnsupportedCapability.Code, fmt.Sprintf("unsupported: %s field %s: %v; render target %s leaves it out of the resources it applies to", gk.Kind, f.Key, err, b.target.Name))
		}
		return rf // reported, and left out: nothing of it is emitted
	}
	if err != nil && k.Spec().InvalidKeepsValidFields {
		// The kind reports such a setting on the policy when it decodes it
		// and the controller leaves it out, keeping the rest: so does render.
		b.reportAt(owner, f.Key, diag.FieldOf(err), policy.LintPolicyInvalid.Code, fmt.Sprintf("%s field %s cannot be rendered to Envoy: %v; render target %s leaves it out of the resources it applies to", gk.Kind, f.Key, err, b.target.Name))
		return rf
	}
	// What becomes of the resources a field that cannot be rendered
	// applies to: a route answers 503 (failBody); a backend's cluster is
	// left out (shapeBackendCluster, leftOut).
	failed := "the resources it applies to answer 503"
	if sc == policy.ScopeCluster {
		failed = "the clusters it applies to are left out of the config, so the routes sending to them answer their cluster-not-found status"
	}
	if err != nil {
		b.reportAt(owner, f.Key, diag.FieldOf(err), policy.LintPolicyInvalid.Code, fmt.Sprintf("%s field %s cannot be rendered to Envoy: %v; %s", gk.Kind, f.Key, err, failed))
		rf.failBody = fmt.Sprintf("gwpol: %s %s/%s field %s cannot be rendered: %v", gk.Kind, owner.Obj.Namespace, owner.Obj.Name, f.Key, err)
		return rf
	}
	for _, fr := range frags {
		if fr.Capability != "" && !b.target.Has(fr.Capability) {
			why := ""
			if fr.Reason != "" {
				why = ": " + fr.Reason
			}
			effect := "the routes it applies to fail closed (503)"
			switch {
			case sc == policy.ScopeCluster:
				effect = failed
			case streams:
				effect = "the HTTP routes it applies to fail closed (503), while the TCP and TLS routes it applies to keep forwarding without it"
			}
			for _, c := range f.Contributors {
				b.report(c.Policy, f.Key, policy.LintUnsupportedCapability.Code, fmt.Sprintf("unsupported(required_capability: %s): render target %s cannot express %s field %s%s; %s",
					fr.Capability, b.target.Name, gk.Kind, f.Key, why, effect))
			}
			*rf = rendered{kindKey: rf.kindKey, failBody: fmt.Sprintf("gwpol: %s %s/%s field %s is unsupported(required_capability: %s) by render target %s%s",
				gk.Kind, owner.Obj.Namespace, owner.Obj.Name, f.Key, fr.Capability, b.target.Name, why)}
			return rf
		}
	}
	for i, fr := range frags {
		if len(fr.TypedClusterParts) == 0 {
			continue
		}
		shaped, err := b.shapeTypedClusters(fr)
		if err != nil {
			b.report(owner, f.Key, policy.LintPolicyInvalid.Code, fmt.Sprintf("%s field %s renders to invalid Envoy config: %v; %s", gk.Kind, f.Key, err, failed))
			*rf = rendered{kindKey: rf.kindKey, failBody: fmt.Sprintf("gwpol: %s %s/%s field %s renders to invalid Envoy config: %v",
				gk.Kind, owner.Obj.Namespace, owner.Obj.Name, f.Key, err)}
			return rf
		}
		frags[i] = shaped
	}
	for _, fr := range frags {
		if fr.PerRoute != nil {
			rf.perRoute = append(rf.perRoute, perRouteFn{build: fr.PerRoute, what: fmt.Sprintf("%s %s/%s field %s", gk.Kind, owner.Obj.Namespace, owner.Obj.Name, f.Key)})
		}
		if err := rf.add(fr, &b.anys); err != nil {
			b.report(owner, f.Key, policy.LintPolicyInvalid.Code, fmt.Sprintf("%s field %s renders to invalid Envoy config: %v; %s", gk.Kind, f.Key, err, failed))
			*rf = rendered{kindKey: rf.kindKey, failBody: fmt.Sprintf("gwpol: %s %s/%s field %s renders to invalid Envoy config: %v",
				gk.Kind, owner.Obj.Namespace, owner.Obj.Name, f.Key, err)}
			return rf
		}
	}
	return rf
}

// shapeTypedClusters merges a fragment's cluster parts
// (policy.Fragment.TypedClusterParts) into copies of each of its
// clusters, as backendPolicies merges a backend's fields into its
// cluster.
func (b *builder) shapeTypedClusters(fr policy.Fragment) (policy.Fragment, error) {
	out := make([]proto.Message, 0, len(fr.TypedClusters))
	for _, m := range fr.TypedClusters {
		c, ok := m.(*clusterv3.Cluster)
		if !ok || c == nil {
			return fr, fmt.Errorf("a cluster is a %T", m)
		}
		c = proto.Clone(c).(*clusterv3.Cluster)
		for _, part := range fr.TypedClusterParts {
			if err := checkFragment(policy.Fragment{Cluster: part.Cluster, ClusterOfType: part.ClusterOfType}); err != nil {
				return fr, fmt.Errorf("cluster %s: %w", c.Name, err)
			}
			if part.Cluster != nil {
				pc, ok := part.Cluster.(*clusterv3.Cluster)
				if !ok {
					return fr, fmt.Errorf("cluster settings are a %T, not a Cluster", part.Cluster)
				}
				b.mergeCluster(c, pc)
			}
			if part.ClusterOfType != nil {
				pc, ok := part.ClusterOfType.(*clusterv3.Cluster)
				if !ok || pc.GetClusterType() == nil {
					return fr, fmt.Errorf("cluster settings of a type are a %T without a cluster type", part.ClusterOfType)
				}
				b.mergeClusterOfType(c, pc)
			}
		}
		for _, part := range fr.TypedClusterParts {
			if part.ClusterFinish != nil {
				part.ClusterFinish(c)
			}
		}
		finishHTTPOptions(c)
		out = append(out, c)
	}
	fr.TypedClusters, fr.TypedClusterParts = out, nil
	return fr, nil
}

// report adds a diagnostic once per policy, field and code.
func (b *builder) report(p *policy.Policy, key, code, msg string) {
	b.reportAt(p, key, "", code, msg)
}

// reportAt is report positioned at path, a field below the key's (the
// value a renderer's error names, diag.FieldOf); "" is the key's own.
func (b *builder) reportAt(p *policy.Policy, key, path, code, msg string) {
	b.mu.Lock()
	defer b.mu.Unlock()
	id := code + "|" + p.ID() + "|" + key
	if b.reported[id] {
		return
	}
	b.reported[id] = true
	if path == "" {
		path = p.FieldPath(key)
	}
	b.diags = append(b.diags, p.Diag(code, diag.Error, path, "%s", msg))
}

// add types one fragment.
func (rf *rendered) add(fr policy.Fragment, anys *anyCache) error {
	if err := checkFragment(fr); err != nil {
		return err
	}
	if f := fr.Filter; f != nil {
		if f.Typed == nil {
			return fmt.Errorf("filter %s: missing config", f.Name)
		}
		a, err := anys.typedAny(f.Typed)
		if err != nil {
			return fmt.Errorf("filter %s: %w", f.Name, err)
		}
		rf.filters = append(rf.filters, filterDef{name: f.Name, order: f.Order, precedence: f.Precedence, enabled: f.Enabled, upstream: f.Upstream, merge: f.Merge,
			removes: slices.Clone(f.RemoveRequestHeaders), config: a})
	}
	for name, m := range fr.TypedPerFilterConfig {
		a, err := anys.typedAny(m)
		if err != nil {
			return fmt.Errorf("typed_per_filter_config %s: %w", name, err)
		}
		rf.setPerFilter(name, a)
	}
	if err := rf.addTyped(fr); err != nil {
		return err
	}
	if fr.HCM != nil {
		h, ok := fr.HCM.(*hcmv3.HttpConnectionManager)
		if !ok {
			return fmt.Errorf("connection manager settings are a %T", fr.HCM)
		}
		rf.hcm = mergeInto(rf.hcm, h)
	}
	if fr.Listener != nil {
		l, ok := fr.Listener.(*listenerv3.Listener)
		if !ok {
			return fmt.Errorf("listener settings are a %T", fr.Listener)
		}
		rf.listener = mergeInto(rf.listener, l)
	}
	if fr.FilterChain != nil {
		c, ok := fr.FilterChain.(*listenerv3.FilterChain)
		if !ok {
			return fmt.Errorf("filter chain settings are a %T", fr.FilterChain)
		}
		rf.chain = mergeInto(rf.chain, c)
	}
	if fr.DownstreamTLS != nil {
		t, ok := fr.DownstreamTLS.(*tlsv3.DownstreamTlsContext)
		if !ok {
			return fmt.Errorf("TLS settings are a %T", fr.DownstreamTLS)
		}
		rf.tls = mergeInto(rf.tls, t)
	}
	rf.unset = append(rf.unset, fr.Unset...)
	rf.http3 = rf.http3 || fr.HTTP3
	rf.http10Host = rf.http10Host || fr.HTTP10DefaultHost
	rf.noUpgrade = rf.noUpgrade || fr.NoUpgrade
	if fr.TCPProxy != nil {
		tp, ok := fr.TCPProxy.(*tcpproxyv3.TcpProxy)
		if !ok {
			return fmt.Errorf("TCP proxy settings are a %T", fr.TCPProxy)
		}
		rf.tcpProxy = mergeInto(rf.tcpProxy, tp)
	}
	for _, m := range fr.NetworkFilters {
		nf, ok := m.(*listenerv3.Filter)
		if !ok {
			return fmt.Errorf("network filter is a %T", m)
		}
		rf.network = append(rf.network, nf)
	}
	if fr.Port != 0 {
		rf.port = fr.Port
	}
	if fr.Cluster != nil {
		c, ok := fr.Cluster.(*clusterv3.Cluster)
		if !ok {
			return fmt.Errorf("cluster settings are a %T, not a Cluster", fr.Cluster)
		}
		rf.cluster = mergeInto(rf.cluster, c)
	}
	if fr.ClusterOfType != nil {
		c, ok := fr.ClusterOfType.(*clusterv3.Cluster)
		if !ok || c.GetClusterType() == nil {
			return fmt.Errorf("cluster settings of a type are a %T without a cluster type", fr.ClusterOfType)
		}
		rf.ofType = proto.Clone(c).(*clusterv3.Cluster)
	}
	if fr.BackendCluster != nil {
		c, ok := fr.BackendCluster.(*clusterv3.Cluster)
		if !ok {
			return fmt.Errorf("backendRef cluster settings are a %T, not a Cluster", fr.BackendCluster)
		}
		rf.ownCluster = mergeInto(rf.ownCluster, c)
	}
	if fr.ClusterFinish != nil {
		rf.finish = append(rf.finish, fr.ClusterFinish)
	}
	for _, m := range fr.TypedClusters {
		c, ok := m.(*clusterv3.Cluster)
		if !ok || c == nil {
			return fmt.Errorf("a cluster is a %T", m)
		}
		if c.Name == "" {
			return fmt.Errorf("cluster without a name")
		}
		// A cluster a field adds is whole (a JWKS server's, an external
		// authorization service's) and built from the policy's values
		// (a URL's host and port): held to Envoy's rules here, it is the
		// field's finding instead of an internal error about the Gateway.
		if err := validateDeep(c); err != nil {
			return fmt.Errorf("cluster %s: %w", c.Name, err)
		}
		rf.clusters = append(rf.clusters, proto.Clone(c).(*clusterv3.Cluster))
	}
	return nil
}

// addTyped merges the route, route action, mirror policy and virtual
// host settings a kind built as go-control-plane messages.
func (rf *rendered) addTyped(fr policy.Fragment) error {
	if fr.TypedRouteAction != nil {
		m, ok := fr.TypedRouteAction.(*routev3.RouteAction)
		if !ok {
			return fmt.Errorf("route action settings are a %T", fr.TypedRouteAction)
		}
		rf.routeAction = mergeInto(rf.routeAction, proto.Clone(m).(*routev3.RouteAction))
	}
	if fr.TypedRoute != nil {
		m, ok := fr.TypedRoute.(*routev3.Route)
		if !ok {
			return fmt.Errorf("route settings are a %T", fr.TypedRoute)
		}
		rf.route = mergeInto(rf.route, proto.Clone(m).(*routev3.Route))
	}
	if fr.TypedMirrorPolicy != nil {
		m, ok := fr.TypedMirrorPolicy.(*routev3.RouteAction_RequestMirrorPolicy)
		if !ok {
			return fmt.Errorf("request mirror policy settings are a %T", fr.TypedMirrorPolicy)
		}
		rf.mirror = mergeInto(rf.mirror, proto.Clone(m).(*routev3.RouteAction_RequestMirrorPolicy))
	}
	if fr.TypedVirtualHost != nil {
		m, ok := fr.TypedVirtualHost.(*routev3.VirtualHost)
		if !ok {
			return fmt.Errorf("virtual host settings are a %T", fr.TypedVirtualHost)
		}
		rf.vhost = mergeInto(rf.vhost, proto.Clone(m).(*routev3.VirtualHost))
	}
	return nil
}

func (rf *rendered) setPerFilter(name string, a *anypb.Any) {
	if rf.perFilter == nil {
		rf.perFilter = map[string]*anypb.Any{}
	}
	rf.perFilter[name] = a
}

func mergeInto[M proto.Message](dst, src M) M {
	if any(dst) == nil || proto.Equal(dst, zeroOf(dst)) {
		return src
	}
	proto.Merge(dst, src)
	return dst
}

func zeroOf[M proto.Message](m M) proto.Message {
	if any(m) == nil {
		return nil
	}
	return m.ProtoReflect().Type().Zero().Interface()
}

// anyCache types each distinct filter config once: policies written
// alike (the same rate limit, the same retry) render to the same
// configuration, and decoding and validating it again for each would be
// most of the build. Cached Anys are shared and never modified; the
// cache is the Gateway's being built when Gateways are handed on as
// built (builder.forgetGateway).
type anyCache struct {
	mu sync.Mutex
	m  map[string]*anypb.Any // by the message's type and encoding
}

// forget drops the cached configs (builder.forgetGateway).
func (c *anyCache) forget() {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.m = nil
}

// typedAny packs a message a kind built, checking it against Envoy's
// validation rules, once per distinct message (keyed by its type and
// deterministic encoding).
func (c *anyCache) typedAny(m proto.Message) (*anypb.Any, error) {
	raw, err := proto.MarshalOptions{Deterministic: true}.Marshal(m)
	if err != nil {
		return nil, err
	}
	key := "typed:" + string(m.ProtoReflect().Descriptor().FullName()) + ":" + string(raw)
	c.mu.Lock()
	a, ok := c.m[key]
	c.mu.Unlock()
	if ok {
		return a, nil
	}
	a = &anypb.Any{TypeUrl: "type.googleapis.com/" + string(m.ProtoReflect().Descriptor().FullName()), Value: raw}
	if err := validateAny(a); err != nil {
		return nil, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil {
		c.m = map[string]*anypb.Any{}
	}
	c.m[key] = a
	return a, nil
}

package envoy

import (
	"cmp"
	"fmt"
	"maps"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	tlsinspectorv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/listener/tls_inspector/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// Options for Render.
type Options struct {
	// Target is the name of the render target (policy.Target, as the
	// registry holds them); "" is upstream Envoy.
	Target string
	// MergeKeyCompat writes merge metadata as the kinds' controller writes
	// it: under each kind's compatible key (policy.KindSpec.MetadataKeyCompat,
	// merge.<Kind>.<group>) with the origins the
	// controller reports, instead of merge.<group>/<kind> with those in
	// effect.
	MergeKeyCompat bool
	// Gateways restricts output to these Gateways (namespace/name); empty
	// means every Gateway.
	Gateways []string
	// Config is handed to policy renderers (through policy.Env).
	Config policy.Config
	// EachGateway, when set, is handed each Gateway's resources in output
	// order instead of Output.Gateways collecting them (which stays
	// empty): as soon as each is built when the Gateways are built in
	// that order, as they are when the graph lists them sorted; else once
	// all are. A caller writing them out (Stream), or only reporting what
	// rendering found (lint), then never holds the whole platform's xDS
	// (nor what was cached to build one Gateway's). Its error ends the
	// render. The output's route index (RouteNames, Answers) is then
	// empty.
	EachGateway func(*Gateway) error
}

// Output is the rendered configuration.
type Output struct {
	Target   string
	Gateways []*Gateway // sorted by namespace/name
	// Diagnostics found while rendering (GWP404 unsupported capabilities,
	// fields that could not be rendered), sorted.
	Diagnostics []diag.Diagnostic
	// Unmanaged are the Gateways (namespace/name) left out because no
	// controller in the input manages them: the input has GatewayClasses,
	// none of them the Gateway's (status reports none of their routes'
	// parents either). Sorted.
	Unmanaged []string

	routeNames map[routeKey][]string
	// routes indexes the Envoy routes by Gateway and name (Answers),
	// built on first use.
	routes map[string]map[string]*routev3.Route
	// clusters: the names of each Gateway's clusters, by NAMESPACE/NAME
	clusters map[string]map[string]bool
}

type routeKey struct {
	rule     *topology.Rule
	listener *topology.Listener
	// path is the parent path a delegated rule is served through
	// (merge.RulePath); nil for a rule's routes through every path.
	path *merge.RulePath
}

// ruleKey is a rule as merged along one parent path (nil: not delegated).
type ruleKey struct {
	rule *topology.Rule
	path *merge.RulePath
	// gw is the Gateway when the rule's merge there leaves out the kinds
	// its controller does not take (merge.Result.OnGateway); nil when
	// the rule's merge is the same on every Gateway.
	gw *topology.Gateway
}

// Resources is the output without its index into the compiled input
// (RouteNames): holding only xDS and diagnostics, it lets a caller about
// to marshal a large render have the manifests, model and topology
// collected first.
func (o *Output) Resources() *Output {
	return &Output{Target: o.Target, Gateways: o.Gateways, Diagnostics: o.Diagnostics, Unmanaged: o.Unmanaged}
}

// Combine joins the outputs of renders of disjoint Gateway sets (one per
// render target) into one, as if one render had made them all.
func Combine(outs ...*Output) *Output {
	if len(outs) == 1 {
		return outs[0]
	}
	c := &Output{routeNames: map[routeKey][]string{}}
	var targets []string
	for _, o := range outs {
		targets = append(targets, o.Target)
		c.Gateways = append(c.Gateways, o.Gateways...)
		c.Diagnostics = append(c.Diagnostics, o.Diagnostics...)
		c.Unmanaged = append(c.Unmanaged, o.Unmanaged...)
		maps.Copy(c.routeNames, o.routeNames)
	}
	slices.Sort(c.Unmanaged)
	slices.SortFunc(c.Gateways, func(a, b *Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	})
	c.Target = strings.Join(targets, "+")
	c.Diagnostics = diag.Sort(c.Diagnostics)
	return c
}

// RouteNames are the Envoy routes a rule produced through a listener (the
// listener owning the virtual host), in output order.
func (o *Output) RouteNames(rule *topology.Rule, l *topology.Listener) []string {
	return o.routeNames[routeKey{rule, l, nil}]
}

// RouteNamesOn are the Envoy routes a delegated rule produced through a
// listener along one parent path (path nil: RouteNames).
func (o *Output) RouteNamesOn(rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []string {
	return o.routeNames[routeKey{rule, l, path}]
}

// Answer is what one Envoy route of a rule does with every request it
// matches, for views that must say what the config does: Status 0 when it
// forwards or redirects, else the status and body of its direct response
// (a route to BlackholeCluster alone answers 500 without a body).
type Answer struct {
	Route  string
	Status int
	Body   string
}

// Answers are the Answers of the Envoy routes a rule produced through a
// listener (RouteNames), in output order. It is not safe for concurrent
// use (it indexes the output on first use).
func (o *Output) Answers(rule *topology.Rule, l *topology.Listener) []Answer {
	return o.AnswersOn(rule, nil, l)
}

// AnswersOn is Answers for a delegated rule's routes along one parent path
// (path nil: Answers).
func (o *Output) AnswersOn(rule *topology.Rule, path *merge.RulePath, l *topology.Listener) []Answer {
	names := o.RouteNamesOn(rule, path, l)
	if len(names) == 0 {
		return nil
	}
	if o.routes == nil {
		o.indexRoutes()
	}
	byName := o.routes[l.Gateway.Namespace+"/"+l.Gateway.Name]
	clusters := o.clusters[l.Gateway.Namespace+"/"+l.Gateway.Name]
	out := make([]Answer, 0, len(names))
	has := func(name string) bool { return clusters[name] }
	for _, n := range names {
		a := Answer{Route: n}
		a.Status, a.Body = RouteAnswerIn(byName[n], has)
		out = append(out, a)
	}
	return out
}

// RouteAnswerIn is RouteAnswer for a route of a Gateway whose config holds
// the clusters has reports: a route whose one cluster the config lacks (a
// backend object its controller refuses, a backend cluster a policy's
// field cannot be rendered into) answers its cluster-not-found code too.
func RouteAnswerIn(r *routev3.Route, has func(cluster string) bool) (status int, body string) {
	status, body = RouteAnswer(r)
	if ra := r.GetRoute(); status == 0 && ra.GetCluster() != "" && !has(ra.GetCluster()) {
		status = int(clusterNotFoundStatus(ra))
	}
	return status, body
}

// InvalidBody is the body of the direct responses with which the render
// of Gateway gw replaces a resource an invalid policy merges into (its
// target's policy.XDSNames.InvalidBody); "" when the output holds no such
// Gateway.
func (o *Output) InvalidBody(gw *topology.Gateway) string {
	for _, g := range o.Gateways {
		if g.Namespace == gw.Namespace && g.Name == gw.Name {
			return g.invalidBody
		}
	}
	return ""
}

// RouteAnswer is the status (0: none) and body an Envoy route answers every
// request with: its direct response, or 500 when its one cluster, or
// every one of its weighted clusters, is BlackholeCluster
// (cluster_not_found_response_code). RouteAnswerIn also knows the
// Gateway's clusters.
func RouteAnswer(r *routev3.Route) (status int, body string) {
	if dr := r.GetDirectResponse(); dr != nil {
		return int(dr.GetStatus()), dr.GetBody().GetInlineString()
	}
	ra := r.GetRoute()
	if ra.GetCluster() == BlackholeCluster {
		return int(clusterNotFoundStatus(ra)), ""
	}
	if wcs := ra.GetWeightedClusters().GetClusters(); len(wcs) > 0 &&
		!slices.ContainsFunc(wcs, func(c *routev3.WeightedCluster_ClusterWeight) bool { return c.GetName() != BlackholeCluster }) {
		return int(clusterNotFoundStatus(ra)), ""
	}
	return 0, ""
}

// clusterNotFoundStatus is the HTTP status Envoy answers when a route's
// cluster does not exist.
func clusterNotFoundStatus(ra *routev3.RouteAction) uint32 {
	switch ra.GetClusterNotFoundResponseCode() {
	case routev3.RouteAction_INTERNAL_SERVER_ERROR:
		return 500
	case routev3.RouteAction_NOT_FOUND:
		return 404
	}
	return 503
}

func (o *Output) indexRoutes() {
	o.routes = map[string]map[string]*routev3.Route{}
	o.clusters = map[string]map[string]bool{}
	for _, g := range o.Gateways {
		names := make(map[string]bool, len(g.Clusters))
		for _, c := range g.Clusters {
			names[c.GetName()] = true
		}
		o.clusters[g.Namespace+"/"+g.Name] = names
		byName := map[string]*routev3.Route{}
		for _, rc := range g.RouteConfigurations {
			for _, vh := range rc.VirtualHosts {
				for _, r := range vh.Routes {
					byName[r.Name] = r
				}
			}
		}
		o.routes[g.Namespace+"/"+g.Name] = byName
	}
}

// Gateway is the xDS configuration of one Gateway. Every list is sorted by
// resource name.
type Gateway struct {
	Namespace, Name     string
	Listeners           []*listenerv3.Listener
	RouteConfigurations []*routev3.RouteConfiguration
	Clusters            []*clusterv3.Cluster

	// policyShaped names the clusters policies' settings shaped (see
	// gatewayBuild.policyShaped): validate walks their packed configs.
	policyShaped map[string]bool
	// fragmentClusters names the clusters policy fragments refer to (see
	// gatewayBuild.fragmentClusters): a scoped render keeps them.
	fragmentClusters map[string]bool
	// leftOut: the backend clusters left out of the config, by name, with
	// why (gatewayBuild.leftOut; ClusterLeftOut).
	leftOut map[string]string
	// invalidShare is the target's Target.InvalidShare cluster (see
	// Bootstrap).
	invalidShare string
	// invalidBody is the target's XDSNames.InvalidBody (InvalidBody).
	invalidBody string
	// index is the Gateway's place in the order Gateways were built;
	// sharedBy gives, for each cluster Gateways of the run share, the
	// index of the one that built and validated it (unroutedClusters.by).
	// Writers reuse their bytes.
	index    int
	sharedBy map[*clusterv3.Cluster]int
}

// Render builds the xDS resources of the selected Gateways. It fails only
// on a bad option (unknown target or Gateway) or an internal error (a
// resource that does not pass ValidateAll).
func Render(res *merge.Result, opt Options) (*Output, error) {
	t, ok := LookupTarget(res.Registry, opt.Target)
	if !ok {
		return nil, diag.Errorf(diag.Usage, "unknown render target %q (want one of %s)", opt.Target, strings.Join(res.Registry.TargetNames(), ", "))
	}
	if !t.Names.Complete() || t.SessionPersistence == nil {
		return nil, diag.Errorf(diag.Internal, "render target %q lacks xDS names (policy.XDSNames) or a session persistence translation that no registered family declares", t.Name)
	}
	want := map[string]bool{}
	for _, g := range opt.Gateways {
		if res.Graph.Gateway(splitNN(g)) == nil {
			return nil, diag.Errorf(diag.NotFound, "Gateway %s not found in the input", g)
		}
		want[g] = true
	}
	b := &builder{
		res: res, opt: opt, target: t, naming: t.Names,
		env:       &policy.Env{Model: res.Graph.Model, Config: opt.Config, Target: t.Name, Traits: &t},
		rendered:  map[string]*rendered{},
		kindIDs:   map[string]int32{},
		rules:     map[ruleKey]*scoped{},
		routed:    map[routeKey]*scoped{},
		routedBy:  map[string]*scoped{},
		lclusters: map[*topology.Listener]*scoped{},
		reported:  map[string]bool{},
		names:     map[routeKey][]string{},
		backends:  backendIndex(res),

		clusterers:   backendClusterers(res.Registry),
		backendBuilt: map[string]*backendBuilt{},
	}
	b.objectClusters = objectClusterIndex(res.Graph.Model, b.clusterers)
	if res.Registry != nil {
		// the policies governing backend ports (policy.Env.BackendPolicies),
		// which a field calling a backend reads as decoding did
		res.Registry.PrepareBackendPolicies(b.env)
	}
	if res.Policies != nil {
		for _, p := range res.Policies.Policies {
			if overridesWhole(p.Kind) {
				b.anyWhole = true
				break
			}
		}
	}
	out := &Output{Target: t.Name, routeNames: b.names}
	var build []*merge.GatewayPoints
	for _, gp := range res.Gateways {
		gw := gp.Gateway
		if len(want) > 0 && !want[gw.Namespace+"/"+gw.Name] {
			continue
		}
		if _, managed := res.Graph.Controller(gw, ""); !managed {
			out.Unmanaged = append(out.Unmanaged, gw.Namespace+"/"+gw.Name)
			continue
		}
		build = append(build, gp)
	}
	byName := func(a, b *Gateway) int {
		return cmp.Or(cmp.Compare(a.Namespace, b.Namespace), cmp.Compare(a.Name, b.Name))
	}
	// Gateways are built in graph order (the shared caches fill in that
	// order); handed on as built only when that is output order.
	streamed := opt.EachGateway != nil && slices.IsSortedFunc(build, func(a, b *merge.GatewayPoints) int {
		return byName(&Gateway{Namespace: a.Gateway.Namespace, Name: a.Gateway.Name}, &Gateway{Namespace: b.Gateway.Namespace, Name: b.Gateway.Name})
	})
	if streamed {
		if err := b.buildAhead(build, opt.EachGateway); err != nil {
			return nil, err
		}
		build = nil
	}
	for _, gp := range build {
		g, err := b.gateway(gp)
		if err != nil {
			return nil, err
		}
		out.Gateways = append(out.Gateways, g)
	}
	slices.SortFunc(out.Gateways, byName)
	if opt.EachGateway != nil && !streamed {
		for _, g := range out.Gateways {
			if err := opt.EachGateway(g); err != nil {
				return nil, err
			}
		}
		out.Gateways = nil
	}
	out.Diagnostics = diag.Sort(b.diags)
	slices.Sort(out.Unmanaged)
	return out, nil
}

// buildAhead builds the Gateways in order on a goroutine of its own and
// hands each to each as soon as it is built, so that the next Gateways
// are built while each writes the last one out: at most gatewaysAhead+2
// Gateways' resources are held (one written, gatewaysAhead waiting, one
// being built). A built Gateway is never changed again, and what
// Gateways share is only read once built (unroutedClusters.by is
// replaced, not changed). A panic while building is raised again here,
// where the caller's recover sees it.
func (b *builder) buildAhead(build []*merge.GatewayPoints, each func(*Gateway) error) error {
	ch := make(chan builtGateway, gatewaysAhead)
	stop := make(chan struct{})
	go func() {
		defer close(ch)
		for _, gp := range build {
			r := b.buildOne(gp)
			select {
			case ch <- r:
			case <-stop:
				return
			}
			if r.err != nil || r.panic != nil {
				return
			}
		}
	}()
	defer func() {
		close(stop)
		for range ch { // the builder is done with b before Render returns
		}
	}()
	for r := range ch {
		if r.panic != nil {
			panic(r.panic)
		}
		if r.err != nil {
			return r.err
		}
		if err := each(r.g); err != nil {
			return err
		}
	}
	return nil
}

// gatewaysAhead is how many built Gateways buildAhead's builder may hand
// on before they are taken. Gateways differ in size and so in how long
// building and writing each takes: handed over one by one, the builder
// (the longer side on a large render) waits whenever the writer is
// behind on a large Gateway, and a core idles in the writer's serial
// stretches. A few Gateways of slack let it go on building; the
// resources held grow by that many Gateways, not with the platform.
const gatewaysAhead = 2

// builtGateway is what buildAhead's builder hands on: a Gateway, or why
// there is none.
type builtGateway struct {
	g     *Gateway
	err   error
	panic any // with the builder's stack, which re-raising loses
}

// buildOne builds one Gateway for buildAhead and forgets what was cached
// for it.
func (b *builder) buildOne(gp *merge.GatewayPoints) (r builtGateway) {
	defer func() {
		if p := recover(); p != nil {
			r.panic = fmt.Sprintf("%v\n%s", p, debug.Stack())
		}
	}()
	r.g, r.err = b.gateway(gp)
	b.forgetGateway()
	return r
}

// forgetGateway drops, once a Gateway is built and handed on, what was
// cached to build it: its rules' and routes' scopes, its route names, the
// policy fields it rendered and the configs it typed. Another Gateway
// that needs one of them renders it again, alike: a Gateway renders no
// more than its own resources need, so the work stays that of the
// output, while the caches, kept for the run, held every route's
// rendered fields to the end (a third of what rendering added to the
// heap of a 30k-route platform). Findings already reported stay, so a
// field rendered again is not reported twice; the clusters Gateways
// share (unroutedClusters) are finished and kept.
func (b *builder) forgetGateway() {
	b.mu.Lock()
	defer b.mu.Unlock()
	clear(b.rules)
	clear(b.routed)
	clear(b.names)
	clear(b.rendered)
	clear(b.routedBy)
	clear(b.lclusters)
	b.anys.forget()
}

func splitNN(s string) (string, string) {
	ns, name, ok := strings.Cut(s, "/")
	if !ok {
		return "default", s
	}
	return ns, name
}

// builder holds what is shared while rendering: caches of rendered policy
// fields (one policy set renders once however many routes of a Gateway it
// reaches; see forgetGateway) and the diagnostics.
type builder struct {
	res    *merge.Result
	opt    Options
	target Target
	naming policy.XDSNames // target.Names, read once
	env    *policy.Env

	mu       sync.Mutex // guards rendered, kindIDs, rules, routed, routedBy, lclusters, reported and diags
	rendered map[string]*rendered
	kindIDs  map[string]int32 // rendered.kindID by kindKey
	rules    map[ruleKey]*scoped
	routed   map[routeKey]*scoped // routeScope's, where kinds override whole
	routedBy map[string]*scoped   // routedScope's, by the policies in effect
	// lclusters are listenerClusters', by listener (nil: none there)
	lclusters map[*topology.Listener]*scoped
	anyWhole  bool // some policy's kind overrides whole (routeScope has work)
	reported  map[string]bool
	diags     []diag.Diagnostic
	names     map[routeKey][]string // written by the (sequential) route assembly
	anys      anyCache
	backends  map[model.Key]*merge.BackendPoints // merges on backend objects, by object
	// clusters of backend objects other than Services: who builds them,
	// and what was built (guarded by mu)
	clusterers   map[model.GroupKind]policy.BackendClusterer
	backendBuilt map[string]*backendBuilt
	// objectClusters: the backend objects those kinds define, by the
	// name of their clusters without the port (see objectClusterIndex)
	objectClusters map[string]model.Key
	// unrouted: the Service clusters Gateways share (see unroutedClusters)
	unrouted unroutedClusters
	built    int // Gateways built so far
}

// ClusterLeftOut says why the Gateway's config leaves out the backend
// cluster named name — a field of a policy on that backend cannot be
// rendered into it, so the routes sending there answer their
// cluster-not-found status — and false when it does not.
func (g *Gateway) ClusterLeftOut(name string) (string, bool) {
	why, ok := g.leftOut[name]
	return why, ok
}

// gatewayBuild collects one Gateway's resources.
type gatewayBuild struct {
	*builder
	gw       *topology.Gateway
	clusters map[string]*clusterv3.Cluster
	// policyShaped are the clusters policies' settings went into: a
	// fragment's cluster (addClusters), a rule cluster with its rule's
	// settings (ruleCluster), a backend's cluster its policies shaped
	// (backendPolicies). A value in them came from a manifest, so
	// Gateway.validate walks their packed configs; the others are built
	// here and hold no Any (baseCluster).
	policyShaped map[string]bool
	// fragmentClusters are the clusters policy fragments refer to (an
	// authorization service's, a collector's): the filters that call
	// them name them, not routes, so a scoped render keeps them all
	// (Gateway.scope).
	fragmentClusters map[string]bool
	// leftOut are the backend clusters a field of their policies cannot
	// be rendered into (backendPolicies, clusterFate leftOut), by name,
	// with the failure: explain's backend view reads it
	// (Gateway.ClusterLeftOut).
	leftOut map[string]string
	// merged are the fragment clusters merged so far, by name.
	merged map[string][]*clusterv3.Cluster
	// clusterBackend: the backend object a cluster is built for.
	clusterBackend map[string]model.Key
	// clusterOrigin: the backend cluster a rule's copy was made from (a
	// copy of a copy names the first), whose port the copy's backend
	// policies and protocol are judged on (originCluster).
	clusterOrigin map[string]string
	// routeKinds: which kinds of route send to a backend cluster
	// (clusterPortName reads it under Target.GRPCBackendsWholeService).
	routeKinds map[string]routeKindBits
	whole      *scoped
	// templates are the backend clusters some route replaced with rule
	// clusters, referenced the clusters something names (applyCluster);
	// see dropTemplates.
	templates, referenced map[string]bool
	// unrouted are the Service clusters unroutedBackendClusters added:
	// false for those this Gateway builds, true for those an earlier
	// Gateway finished that this one holds with its own (nothing here
	// shapes those). taken are the others an earlier Gateway finished,
	// by name: they join the Gateway's clusters as they are.
	unrouted map[string]bool
	taken    []*clusterv3.Cluster
	index    int
}

func (b *builder) gateway(gp *merge.GatewayPoints) (*Gateway, error) {
	gb := &gatewayBuild{builder: b, gw: gp.Gateway, clusters: map[string]*clusterv3.Cluster{},
		policyShaped: map[string]bool{}, fragmentClusters: map[string]bool{}, leftOut: map[string]string{}, merged: map[string][]*clusterv3.Cluster{},
		clusterBackend: map[string]model.Key{}, clusterOrigin: map[string]string{}, routeKinds: map[string]routeKindBits{}, templates: map[string]bool{}, referenced: map[string]bool{},
		unrouted: map[string]bool{}, index: b.built}
	b.built++
	gb.whole = gb.gatewayScope(gp.Whole, policy.ScopeRouteConfig)
	gb.precomputeRules()
	out := &Gateway{Namespace: gp.Gateway.Namespace, Name: gp.Gateway.Name,
		policyShaped: gb.policyShaped, fragmentClusters: gb.fragmentClusters, leftOut: gb.leftOut, invalidShare: gb.target.InvalidShare, invalidBody: gb.naming.InvalidBody,
		index: gb.index, sharedBy: b.unrouted.by}

	byPort := map[int32][]*topology.Listener{}
	for _, l := range gp.Gateway.Listeners {
		if !l.Programmed() {
			continue // conflicted listeners, those the controller does not serve (its family's verdict) and protocols without chains are not programmed
		}
		byPort[int32(l.Port)] = append(byPort[int32(l.Port)], l)
	}
	for _, port := range slices.Sorted(mapKeys(byPort)) {
		ls := byPort[port]
		name := gb.naming.Listener(port)
		portWhole := gb.wholeOn(ls)
		addr, compat := gb.target.ListenerAddress(gb.opt.Config)
		el := &listenerv3.Listener{
			Name: name,
			Address: &corev3.Address{Address: &corev3.Address_SocketAddress{SocketAddress: &corev3.SocketAddress{
				Address: addr, Ipv4Compat: compat, PortSpecifier: &corev3.SocketAddress_PortValue{PortValue: uint32(port)},
			}}},
			Metadata: portWhole.metadata,
		}
		if bl := gb.target.Baseline; bl != nil && bl.Listener != nil {
			overlay(el, bl.Listener)
		}
		if own := gb.target.GatewayListener; own != nil {
			if m := own(gb.gw); m != nil {
				overlay(el, m)
			}
		}
		whole := onPort(portWhole.fields, port)
		connectionSettings(el, whole)
		var http []*topology.Listener
		var quic []*listenerv3.FilterChain
		sni := false
		for _, l := range ls {
			if l.Protocol == gwv1.HTTPProtocolType {
				http = append(http, l)
			}
		}
		if len(http) > 0 {
			rc := gb.routeConfig(name, http, portWhole, false)
			fields := whole
			if rc.listener != nil && len(ls) == 1 {
				// the port's one listener: its own connection settings
				// over the Gateway's
				own := onPort(rc.listener.fields, port)
				connectionSettings(el, own)
				fields = append(slices.Clip(whole), own...)
			}
			chain, err := gb.filterChain(name, rc, nil, fields)
			if err != nil {
				return nil, err
			}
			el.FilterChains = append(el.FilterChains, chain)
			out.RouteConfigurations = append(out.RouteConfigurations, rc.rc)
		}
		for _, l := range ls {
			if l.Protocol != gwv1.HTTPSProtocolType {
				continue
			}
			cname := gb.naming.HTTPSChain(l)
			own := gb.onListeners(gb.gatewayScope(b.res.Listener(l).Own, policy.ScopeRouteConfig), l)
			rc := gb.routeConfig(cname, []*topology.Listener{l}, own, true)
			if len(ls) == 1 {
				connectionSettings(el, onPort(own.fields, port))
			} else {
				gb.reportSharedListener(l, onPort(own.fields, port), whole)
			}
			chain, err := gb.filterChain(cname, rc, l, onPort(own.fields, port))
			if err != nil {
				return nil, err
			}
			if servesHTTP3(onPort(own.fields, port)) && quicCapable(chain) {
				quic = append(quic, quicChain(chain))
				advertiseHTTP3(rc.rc, l.Port)
			}
			if chain.FilterChainMatch != nil {
				sni = true
			}
			el.FilterChains = append(el.FilterChains, chain)
			out.RouteConfigurations = append(out.RouteConfigurations, rc.rc)
		}
		streamOwn := gb.streamListenerScopes(ls, port)
		for _, l := range ls {
			if own := streamOwn[l]; own != nil {
				if len(ls) == 1 {
					connectionSettings(el, onPort(own.fields, port))
				} else {
					gb.reportSharedListener(l, onPort(own.fields, port), whole)
				}
			}
		}
		streams, streamSNI := gb.streamChains(name, ls, whole, streamOwn)
		el.FilterChains = append(el.FilterChains, streams...)
		// by name, whatever the order of the listeners
		slices.SortFunc(el.FilterChains, func(a, b *listenerv3.FilterChain) int { return cmp.Compare(a.Name, b.Name) })
		if len(el.FilterChains) == 0 {
			continue // a TCP or TLS port without a route and no empty chain (Target.EmptyStreamCluster): Envoy takes no listener without filter chains
		}
		if sni || streamSNI {
			el.ListenerFilters = append(el.ListenerFilters, &listenerv3.ListenerFilter{
				Name:       "envoy.filters.listener.tls_inspector",
				ConfigType: &listenerv3.ListenerFilter_TypedConfig{TypedConfig: mustAny(&tlsinspectorv3.TlsInspector{})},
			})
		}
		out.Listeners = append(out.Listeners, el)
		if len(quic) > 0 {
			out.Listeners = append(out.Listeners, quicListener(name, addr, compat, port, quic))
		}
	}
	out.Listeners = append(out.Listeners, gb.udpListeners(gp.Gateway.Listeners)...)
	if len(out.RouteConfigurations) > 0 {
		// the connection managers' own services (access log, tracing
		// collectors), referenced whether or not a route is served
		for _, f := range gb.whole.fields {
			gb.addClusters(f.clusters)
		}
	}
	if gb.target.UnroutedBackendClusters {
		gb.unroutedBackendClusters()
	}
	if len(gb.target.HTTP2AppProtocols) > 0 {
		gb.protocolsFromServices()
	}
	if gb.target.DropReplacedClusters {
		gb.dropTemplates()
	}
	if gb.target.BackendTransportMatches != nil {
		gb.backendTransportMatches()
	}
	gb.backendPolicies()
	gb.shareUnrouted()
	gb.gatewayClientCertificate(out.RouteConfigurations)
	out.Clusters = withTaken(slices.Sorted(mapKeys(gb.clusters)), gb.clusters, gb.taken)
	slices.SortFunc(out.Listeners, func(a, b *listenerv3.Listener) int { return cmp.Compare(a.Name, b.Name) })
	slices.SortFunc(out.RouteConfigurations, func(a, b *routev3.RouteConfiguration) int { return cmp.Compare(a.Name, b.Name) })
	return out, out.validate()
}

// wholeOn is the whole Gateway's scope on the listeners of one port:
// without the fields of policies their controller applies on none of them
// (appliedOn), and without those policies in its merge metadata or their
// failure (a dropped field's failBody replaces nothing); without
// the fields another family's kind overrides on them (onListeners).
func (gb *gatewayBuild) wholeOn(ls []*topology.Listener) *scoped {
	fields, dropped := gb.appliedOn(gb.whole.fields, ls)
	if dropped == nil {
		return gb.onListeners(gb.whole, ls...)
	}
	s := &scoped{metadata: withoutPolicies(gb.whole.metadata, dropped), fields: fields, invalid: gb.whole.invalid}
	// a field that could not be expressed replaces the port's resources
	// only while it is kept: the first kept one's body, as scopeOf picks it
	for _, f := range fields {
		if f.failBody != "" {
			s.failBody = f.failBody
			break
		}
	}
	s.tpfc = s.buildPerFilter()
	return gb.onListeners(s, ls...)
}

// appliedOn leaves out of a Gateway's fields on one port those whose
// owner's controller applies it on none of the port's listeners (a
// listener's policy replaces the Gateway's whole there: the verdict
// attach keeps, merge.Result.RejectedOn), and names those owners.
func (gb *gatewayBuild) appliedOn(fields []*rendered, ls []*topology.Listener) ([]*rendered, map[string]bool) {
	var out []*rendered
	var dropped map[string]bool
	for _, f := range fields {
		if len(f.contributors) > 0 && !slices.ContainsFunc(ls, func(l *topology.Listener) bool { return gb.res.RejectedOn(f.contributors[0], l) == nil }) {
			if dropped == nil {
				dropped = map[string]bool{}
			}
			for _, c := range f.contributors {
				dropped[c.ID()] = true
			}
			continue
		}
		out = append(out, f)
	}
	if dropped == nil {
		return fields, nil
	}
	return out, dropped
}

// withoutPolicies is merge metadata without the policies ids names (a
// copy; fields left with none are dropped, and a metadata left empty is
// nil).
func withoutPolicies(md *corev3.Metadata, ids map[string]bool) *corev3.Metadata {
	if md == nil {
		return nil
	}
	out := &corev3.Metadata{FilterMetadata: map[string]*structpb.Struct{}}
	for key, st := range md.FilterMetadata {
		origins := map[string][]string{}
		for field, v := range st.GetFields() {
			for _, x := range v.GetListValue().GetValues() {
				if id := x.GetStringValue(); !ids[id] {
					origins[field] = append(origins[field], id)
				}
			}
		}
		if len(origins) > 0 {
			out.FilterMetadata[key] = originsStruct(origins)
		}
	}
	if len(out.FilterMetadata) == 0 {
		return nil
	}
	return out
}

// precomputeRules renders the merges of every rule served by the
// Gateway in parallel (policy rendering is most of the build); routes are
// then assembled in order from the results. A rule the controller's
// validation leaves out or answers itself has no policy rendered (nor a
// finding about one).
func (gb *gatewayBuild) precomputeRules() {
	var rules []*topology.Rule
	seen := map[*topology.Rule]bool{}
	for _, l := range gb.gw.Listeners {
		for _, a := range l.Routes {
			v := gb.res.Verdict(a.Route, gb.gw)
			for _, rule := range a.Route.Rules {
				if _, fated := v.Fate(rule.Index); fated {
					continue // left out or answered: none of its policies is rendered
				}
				if !seen[rule] {
					seen[rule] = true
					rules = append(rules, rule)
				}
			}
		}
	}
	parallel.Each(len(rules), func(i int) { gb.ruleScope(rules[i], nil) })
}

// filterChain builds a filter chain with its HTTP connection manager; l is
// the HTTPS listener (nil for the shared HTTP chain), and fields the
// rendered policy fields of its RouteConfiguration on its port, which
// configure the chain and its TLS.
func (gb *gatewayBuild) filterChain(name string, rc *rcBuild, l *topology.Listener, fields []*rendered) (*listenerv3.FilterChain, error) {
	m := &hcmv3.HttpConnectionManager{
		StatPrefix:       "http",
		UseRemoteAddress: wrapperspb.Bool(true),
		NormalizePath:    wrapperspb.Bool(true),
		MergeSlashes:     true,
		RouteSpecifier: &hcmv3.HttpConnectionManager_Rds{Rds: &hcmv3.Rds{
			ConfigSource:    adsSource(),
			RouteConfigName: rc.rc.Name,
		}},
		HttpFilters: rc.httpFilters(),
	}
	if bl := gb.target.Baseline; bl != nil && bl.HCM != nil {
		overlay(m, bl.HCM)
	}
	hcmFields := fields
	if rc.scope != nil && rc.scope != gb.whole {
		// an HTTPS listener's own connection manager: its policies'
		// settings over the Gateway's
		hcmFields = append(slices.Clip(fields), rc.scope.fields...)
	}
	var written map[string]string // secondWriter's
	for _, f := range hcmFields {
		if f.hcm != nil || len(f.unset) > 0 {
			applySettings(m, "hcm", f, f.hcm)
		}
		if secondWriter != nil {
			written = checkOneWriterIn(written, f, "hcm.", f.hcm)
		}
	}
	gb.http10DefaultHost(m, rc, l, hcmFields)
	var network []*listenerv3.Filter
	for _, f := range fields {
		network = append(network, f.network...)
	}
	if gb.target.RequestIdleTimeout && m.StreamIdleTimeout == nil {
		requestIdleTimeouts(rc.rc)
	}
	chain := &listenerv3.FilterChain{
		Name: name,
		Filters: append(network, &listenerv3.Filter{
			Name:       "envoy.filters.network.http_connection_manager",
			ConfigType: &listenerv3.Filter_TypedConfig{TypedConfig: mustAny(m)},
		}),
	}
	for _, f := range fields {
		if f.chain != nil || len(f.unset) > 0 {
			applySettings(chain, "chain", f, f.chain)
		}
		if secondWriter != nil {
			written = checkOneWriterIn(written, f, "chain.", f.chain)
		}
	}
	if l == nil {
		return chain, nil
	}
	if l.Hostname != nil && *l.Hostname != "" {
		chain.FilterChainMatch = &listenerv3.FilterChainMatch{ServerNames: []string{string(*l.Hostname)}}
	}
	if !terminatesTLS(l) {
		return chain, nil // served without certificates (terminatesTLS): a plain chain
	}
	tls := gb.downstreamTLS(l, fields)
	chain.TransportSocket = &corev3.TransportSocket{
		Name:       "envoy.transport_sockets.tls",
		ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(tls)},
	}
	return chain, nil
}

// http10DefaultHost gives the connection manager m the HTTP/1.0 default
// host a field asks for (policy.Fragment.HTTP10DefaultHost): that of
// the HTTPS listener l, or for the shared HTTP chain (l nil) of the
// first HTTP listener of its port, whose settings the controller's
// connection manager there is built from. Where the target finds none
// for that listener, its controller refuses the field there and accepts
// no HTTP/1.0 at all.
func (gb *gatewayBuild) http10DefaultHost(m *hcmv3.HttpConnectionManager, rc *rcBuild, l *topology.Listener, fields []*rendered) {
	if !slices.ContainsFunc(fields, func(f *rendered) bool { return f.http10Host }) || m.HttpProtocolOptions == nil {
		return
	}
	if l == nil && len(rc.listeners) > 0 {
		l = rc.listeners[0]
	}
	host, ok := "", false
	if gb.target.HTTP10DefaultHost != nil && l != nil {
		host, ok = gb.target.HTTP10DefaultHost(l)
	}
	m.HttpProtocolOptions.DefaultHostForHttp_10 = host
	if !ok {
		m.HttpProtocolOptions.AcceptHttp_10 = false
	}
}

// requestIdleTimeouts gives the routes of rc that have a request timeout
// and no idle timeout the idle timeout Target.RequestIdleTimeout says.
func requestIdleTimeouts(rc *routev3.RouteConfiguration) {
	for _, vh := range rc.GetVirtualHosts() {
		for _, r := range vh.GetRoutes() {
			ra := r.GetRoute()
			if ra == nil || ra.Timeout == nil || ra.IdleTimeout != nil {
				continue
			}
			d := ra.Timeout.AsDuration()
			if d != 0 {
				d = max(time.Hour, d)
			}
			ra.IdleTimeout = durationpb.New(d)
		}
	}
}

// terminatesTLS: an HTTPS listener terminates TLS only with certificates;
// one without any that its controller still serves (its family's listener
// verdict leaves it served) is served in plain text: no TLS context, no
// require_tls.
func terminatesTLS(l *topology.Listener) bool {
	return l != nil && l.TLS != nil && len(l.TLS.CertificateRefs) > 0
}

func adsSource() *corev3.ConfigSource {
	return &corev3.ConfigSource{
		ResourceApiVersion:    corev3.ApiVersion_V3,
		ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
	}
}

// mustAny packs a message built here; packing a known message type cannot
// fail.
func mustAny(m proto.Message) *anypb.Any {
	a, err := anypb.New(m)
	if err != nil {
		panic(fmt.Sprintf("envoy: packing %T: %v", m, err))
	}
	return a
}

func mapKeys[K cmp.Ordered, V any](m map[K]V) func(func(K) bool) {
	return func(yield func(K) bool) {
		for k := range m {
			if !yield(k) {
				return
			}
		}
	}
}

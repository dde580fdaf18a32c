package envoy

import (
	"fmt"
	"maps"
	"slices"
	"strconv"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	endpointv3 "github.com/envoyproxy/go-control-plane/envoy/config/endpoint/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	proxyprotocolv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/proxy_protocol/v3"
	rawbufferv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/raw_buffer/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/reflect/protoreflect"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/merge"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/parallel"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// This file applies the policies on backend objects (Services, Backends)
// to the clusters built for them: each field a kind renders at
// ScopeCluster is a partial Cluster merged into the backend's cluster, in
// registry order, and the cluster carries the merge metadata of the kinds
// that shaped it (gwpol's own keys only, even under MergeKeyCompat: the
// kinds' compatible keys are their controller's route metadata).

const proxyProtocolSocket = "envoy.transport_sockets.upstream_proxy_protocol"

// backendIndex indexes the backend merge points by object.
func backendIndex(res *merge.Result) map[model.Key]*merge.BackendPoints {
	out := make(map[model.Key]*merge.BackendPoints, len(res.Backends))
	for _, bp := range res.Backends {
		out[bp.Key] = bp
	}
	return out
}

// backendTransportMatches adds to the cluster of every backend what the
// target's controller writes there before any policy
// (policy.Target.BackendTransportMatches), from the backend's own
// annotations: a Service's (for its port's cluster, and the rule
// clusters derived from it, which keep its port), a backend object's.
// Another Gateway's finished cluster is left as it is.
func (gb *gatewayBuild) backendTransportMatches() {
	m := gb.res.Graph.Model
	for name, k := range gb.clusterBackend { // each cluster on its own: any order
		c := gb.clusters[name]
		if c == nil || gb.unrouted[name] {
			continue
		}
		var annotations map[string]string
		if k.Group == "" && k.Kind == "Service" {
			if s := m.Service(k.Namespace, k.Name); s != nil {
				annotations = s.Annotations
			}
		} else if o, ok := m.Object(k); ok {
			annotations = o.Annotations
		}
		for _, tm := range gb.target.BackendTransportMatches(k, clusterPort(name), annotations, gb.opt.Config) {
			if match, ok := tm.(*clusterv3.Cluster_TransportSocketMatch); ok {
				c.TransportSocketMatches = append(c.TransportSocketMatches, match)
			}
		}
	}
}

// clusterPort is the port a backend's cluster name ends with
// (<prefix>_<namespace>_<name>_<port>, a rule cluster's with
// "/<variant>" after it); 0 when it names none.
func clusterPort(name string) int32 {
	name, _, _ = strings.Cut(name, "/")
	i := strings.LastIndexByte(name, '_')
	if i < 0 {
		return 0
	}
	p, err := strconv.ParseInt(name[i+1:], 10, 32)
	if err != nil {
		return 0
	}
	return int32(p)
}

// backendPolicies shapes every cluster of a backend that policies target.
// The policies' fields are rendered first, in parallel (as the rules' are,
// see precomputeRules); they are merged into the clusters in name order.
func (gb *gatewayBuild) backendPolicies() {
	type clusterPoints struct {
		name string
		c    *clusterv3.Cluster
		own  merge.Points
	}
	var todo []clusterPoints
	// shaped: the clusters of todo some policy's fields go into
	shaped := map[string]bool{}
	type fieldOf struct {
		p *merge.Point
		f *merge.Field
	}
	var fields []fieldOf
	for _, name := range slices.Sorted(mapKeys(gb.clusterBackend)) {
		bp := gb.backends[gb.clusterBackend[name]]
		c := gb.clusters[name]
		if bp == nil || c == nil || gb.unrouted[name] {
			continue
		}
		// the kinds this Gateway's controller reads (merge.Result.BackendOn)
		own := gb.res.BackendOn(bp.ForPort(gb.clusterPortName(name)), gb.gw)
		todo = append(todo, clusterPoints{name, c, own})
		if gb.target.BlackholesInvalidBackendPolicy && slices.ContainsFunc(own, func(p *merge.Point) bool { return len(p.Invalid) > 0 }) {
			continue // blackholed below: nothing of it renders
		}
		for _, p := range own {
			if _, ok := p.Kind.(policy.Renderer); ok && len(p.Invalid) == 0 {
				for _, f := range p.Fields {
					fields = append(fields, fieldOf{p, f})
					shaped[name] = true
				}
			}
		}
	}
	parallel.Each(len(fields), func(i int) {
		p := fields[i].p
		gb.renderField(p.Kind, p.Kind.(policy.Renderer), fields[i].f, policy.ScopeCluster, nil, false, "", false)
	})
	// Each cluster is shaped alone, from fields rendered above: in
	// parallel, on a Gateway with thousands of clusters the longest
	// stretch its builder would otherwise spend on one core.
	fates := make([]clusterFate, len(todo))
	whys := make([]string, len(todo))
	parallel.Each(len(todo), func(i int) {
		fates[i], whys[i] = gb.shapeBackendCluster(todo[i].name, todo[i].c, todo[i].own)
	})
	for i, t := range todo {
		switch {
		case fates[i] == blackholed:
			gb.clusters[t.name] = blackholeBackend(t.name)
		case fates[i] == leftOut:
			delete(gb.clusters, t.name)
			gb.leftOut[t.name] = whys[i]
		case shaped[t.name]:
			gb.policyShaped[t.name] = true
		}
	}
}

// clusterFate is what shapeBackendCluster makes of a backend's cluster.
type clusterFate int

const (
	// shapedAsWritten: the policies' fields that apply are merged in.
	shapedAsWritten clusterFate = iota
	// blackholed: an invalid policy targets the backend, and the target
	// puts a blackhole in its place (Target.BlackholesInvalidBackendPolicy).
	blackholed
	// leftOut: a field that applies to it cannot be rendered (a value
	// Envoy refuses, GWP401): the controller would send the cluster and
	// Envoy refuse it, so it is not in the config, as a refused backend
	// object's is not, and the routes that send to it answer their
	// cluster-not-found status — never the cluster without the field (a
	// TLS origination that is not there, say).
	leftOut
)

// shapeBackendCluster merges the rendered fields of a backend's policies
// (own) into its cluster c, and adds their merge metadata; it reports
// instead, changing nothing, when the cluster is to be blackholed for an
// invalid policy (Target.BlackholesInvalidBackendPolicy) or left out for
// a field that cannot be rendered (clusterFate; why: the field's
// failure). It reads the builder's caches and changes c alone: clusters
// are shaped in parallel.
func (gb *gatewayBuild) shapeBackendCluster(name string, c *clusterv3.Cluster, own merge.Points) (fate clusterFate, why string) {
	if gb.target.BlackholesInvalidBackendPolicy && slices.ContainsFunc(own, func(p *merge.Point) bool { return len(p.Invalid) > 0 }) {
		return blackholed, ""
	}
	var md map[string]*structpb.Struct
	var finish []func(proto.Message)
	// Before any field is merged in: the fields a backend of the other
	// protocol leaves out (merge.ProtocolVerdict), out of the cluster and
	// of its metadata alike.
	leftOutOf := gb.protocolLeftOut(name, own)
	for i, p := range own {
		if !gb.opt.MergeKeyCompat {
			md = gb.addOriginsExcept(md, p, leftOutOf.of(i))
		}
		r, ok := p.Kind.(policy.Renderer)
		if !ok || len(p.Invalid) > 0 {
			continue
		}
		for _, f := range p.Fields {
			rf := gb.renderField(p.Kind, r, f, policy.ScopeCluster, nil, false, "", false)
			applies := !leftOutOf.of(i)[f.Key]
			if rf.failBody != "" && applies {
				return leftOut, rf.failBody
			}
			if rf.cluster != nil && applies {
				gb.mergeCluster(c, rf.cluster)
			}
			gb.mergeClusterOfType(c, rf.ofType)
			finish = append(finish, rf.finish...)
		}
	}
	for _, f := range finish {
		f(c)
	}
	finishHTTPOptions(c)
	if md != nil {
		if c.Metadata == nil {
			c.Metadata = &corev3.Metadata{FilterMetadata: md}
		} else {
			if c.Metadata.FilterMetadata == nil {
				c.Metadata.FilterMetadata = map[string]*structpb.Struct{}
			}
			for k, v := range md {
				c.Metadata.FilterMetadata[k] = v
			}
		}
	}
	return shapedAsWritten, ""
}

// unroutedBackendClusters adds, where no route of the Gateway uses them,
// the cluster of every port of each Service a backend policy targets and
// the cluster of every portless backend object a kind builds clusters for
// (port 0, policy.BackendClusterer) — Target.UnroutedBackendClusters;
// backendPolicies then shapes them. A Service's cluster an earlier
// Gateway finished is taken as it is (see builder.unrouted), but by a
// Gateway whose controller does not read some backend policy's kind
// (merge.Result.BackendStranger, only when the input mixes controllers):
// its clusters are not the others', so it builds its own and shares none.
func (gb *gatewayBuild) unroutedBackendClusters() {
	ports := gb.targetedServicePorts()
	// A Gateway presenting a client certificate derives a variant from
	// each of its clusters (gatewayClientCertificate): it holds the
	// clusters it takes with its own.
	inMap := gb.presentsClientCertificate()
	alone := gb.res.BackendStranger(gb.gw)
	for i := range ports {
		sp := &ports[i]
		if sp.cluster != nil && !inMap && !alone {
			continue // taken below, unless the Gateway has its own
		}
		if _, ok := gb.clusters[sp.name]; ok {
			continue
		}
		if sp.cluster != nil && !alone {
			// recorded as applyCluster records a Service's cluster,
			// and shaped no further here
			gb.referenced[sp.name] = true
			gb.clusterBackend[sp.name] = sp.key
			gb.clusters[sp.name] = sp.cluster
			gb.unrouted[sp.name] = true
			continue
		}
		key := sp.key
		gb.applyCluster(clusterOp{name: sp.name, http2: sp.http2, backend: &key})
		if shareUnrouted && !alone {
			gb.unrouted[sp.name] = false
		}
	}
	if !inMap && !alone {
		// Every finished cluster is taken but those the Gateway has of
		// its own, found from its own (a few hundred) rather than by
		// looking each of the S ports up in its map: that was two string
		// lookups per Gateway and port, G×S a run.
		u := &gb.builder.unrouted
		own := make([]bool, len(ports))
		for name := range gb.clusters {
			if i, ok := u.at[name]; ok {
				own[i] = true
			}
		}
		gb.taken = make([]*clusterv3.Cluster, 0, len(u.byName))
		for _, i := range u.byName {
			if sp := &ports[i]; sp.cluster != nil && !own[i] {
				gb.taken = append(gb.taken, sp.cluster)
			}
		}
	}
	for _, prefix := range slices.Sorted(maps.Keys(gb.objectClusters)) {
		k := gb.objectClusters[prefix]
		pl, ok := gb.clusterers[k.GK()].(policy.PortlessBackends)
		if !ok || !slices.Contains(pl.PortlessBackendKinds(), k.GK()) {
			continue
		}
		if _, ok := gb.clusters[prefix+"0"]; !ok {
			gb.applyCluster(clusterOp{name: prefix + "0", backend: &k})
		}
	}
}

// unroutedClusters are the clusters of the Service ports backend
// policies target (Target.UnroutedBackendClusters). Such a cluster, where
// no route of a Gateway uses it, depends on the Service, its policies and
// the target alone, so every Gateway has the same one: the first Gateway
// that needs it builds it, the later ones take it as it is instead of
// building, validating and writing it again (with G Gateways and S such
// ports that would be G×S clusters). Gateways are built one at a time.
type unroutedClusters struct {
	ports  []servicePort
	byName []int          // ports, by cluster name
	at     map[string]int // the index in ports of a cluster name
	// by is the Gateway (Gateway.index) that built each finished cluster.
	// A built Gateway keeps the map as it was (Gateway.sharedBy) and is
	// written while the next one is built (Render), so the map is never
	// changed once handed on: a Gateway that finishes clusters replaces
	// it with a copy (rarely more than the first few do).
	by map[*clusterv3.Cluster]int
}

// servicePort is the cluster of one port of a Service, once finished.
type servicePort struct {
	name    string
	http2   bool
	key     model.Key
	cluster *clusterv3.Cluster
}

// targetedServicePorts lists the ports of every Service a backend policy
// targets, by namespace/name, once per run.
func (b *builder) targetedServicePorts() []servicePort {
	u := &b.unrouted
	if u.at != nil {
		return u.ports
	}
	var keys []model.Key
	for k := range b.backends {
		if k.Group == "" && k.Kind == "Service" {
			keys = append(keys, k)
		}
	}
	slices.SortFunc(keys, func(a, b model.Key) int {
		return strings.Compare(a.Namespace+"/"+a.Name, b.Namespace+"/"+b.Name)
	})
	u.at, u.by = map[string]int{}, map[*clusterv3.Cluster]int{}
	for _, k := range keys {
		s := b.res.Graph.Model.Service(k.Namespace, k.Name)
		if s == nil {
			continue
		}
		for _, p := range s.Spec.Ports {
			name := policy.ServiceCluster(k.Namespace, k.Name, p.Port)
			u.at[name] = len(u.ports)
			u.byName = append(u.byName, len(u.ports))
			u.ports = append(u.ports, servicePort{name: name, http2: servicePortHTTP2(s, p.Port), key: model.Key{Kind: "Service", Namespace: k.Namespace, Name: k.Name}})
		}
	}
	slices.SortFunc(u.byName, func(i, j int) int { return strings.Compare(u.ports[i].name, u.ports[j].name) })
	return u.ports
}

// shareUnrouted records the Service clusters this Gateway built
// (unroutedBackendClusters), now finished, for the later Gateways.
func (gb *gatewayBuild) shareUnrouted() {
	u := &gb.builder.unrouted
	copied := false
	for name, taken := range gb.unrouted {
		if c := gb.clusters[name]; !taken && c != nil {
			if !copied {
				u.by, copied = maps.Clone(u.by), true
			}
			u.ports[u.at[name]].cluster = c
			u.by[c] = gb.index
		}
	}
}

// withTaken is the Gateway's clusters in name order: its own (names,
// sorted, and clusters) with those it took from other Gateways
// (gatewayBuild.taken, by name).
func withTaken(names []string, own map[string]*clusterv3.Cluster, taken []*clusterv3.Cluster) []*clusterv3.Cluster {
	out := make([]*clusterv3.Cluster, 0, len(names)+len(taken))
	for len(names) > 0 || len(taken) > 0 {
		if len(taken) == 0 || len(names) > 0 && names[0] < taken[0].Name {
			out, names = append(out, own[names[0]]), names[1:]
		} else {
			out, taken = append(out, taken[0]), taken[1:]
		}
	}
	return out
}

// shareUnrouted is off only in the test that compares a render sharing
// unrouted clusters with one building them for every Gateway.
var shareUnrouted = true

// routeKindBits are the kinds of route that send to a backend cluster.
type routeKindBits uint8

const (
	fromGRPCRoute routeKindBits = 1 << iota
	fromOtherRoute
)

// routeKindOf is the bit of a route that is a GRPCRoute or not.
func routeKindOf(grpc bool) routeKindBits {
	if grpc {
		return fromGRPCRoute
	}
	return fromOtherRoute
}

// clusterPortName is the name of the Service port a Service cluster is
// built for ("" for other clusters and unnamed ports): policies naming
// the port (sectionName) configure that cluster only — unless only
// GRPCRoutes send to it and the target's controller builds their
// backends without the port's name (Target.BackendPortName).
func (gb *gatewayBuild) clusterPortName(cluster string) string {
	ns, svc, port, ok := serviceOfCluster(gb.originCluster(cluster))
	if !ok {
		return ""
	}
	s := gb.res.Graph.Model.Service(ns, svc)
	if s == nil {
		return ""
	}
	for _, p := range s.Spec.Ports {
		if p.Port == port {
			return gb.target.BackendPortName(p.Name, gb.routeKinds[cluster] == fromGRPCRoute)
		}
	}
	return ""
}

// blackholeBackend is the cluster a target with
// Target.BlackholesInvalidBackendPolicy puts in place of a backend's
// when a policy on the backend cannot be applied: static, with no
// endpoints, so every connection fails rather than reaching the backend
// without the policy (a TLS origination that is not there, say).
func blackholeBackend(name string) *clusterv3.Cluster {
	return &clusterv3.Cluster{
		Name:                 name,
		Metadata:             &corev3.Metadata{},
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_STATIC},
		LoadAssignment:       &endpointv3.ClusterLoadAssignment{ClusterName: name},
	}
}

// mergeClusterOfType merges settings for a cluster of one custom cluster
// type (policy.Fragment.ClusterOfType) into c when c is of that type. The
// type's configuration and the lookup family are the settings' whole, so
// they replace c's even where they hold a zero value (lookup family AUTO),
// which a merge would skip.
func (b *builder) mergeClusterOfType(c, src *clusterv3.Cluster) {
	if src == nil || c.GetClusterType().GetName() != src.GetClusterType().GetName() {
		return
	}
	b.mergeCluster(c, src)
	c.DnsLookupFamily = src.DnsLookupFamily
	c.GetClusterType().TypedConfig = proto.Clone(src.GetClusterType().GetTypedConfig()).(*anypb.Any)
}

// mergeCluster merges a field's settings into a cluster. Where
// proto.Merge's rules are not what the settings mean, they combine by
// meaning: a later load-balancing policy, health check or circuit
// breaker replaces the earlier one, upstream HTTP protocol options of
// several fields merge into one extension, and transport sockets compose
// (a PROXY protocol socket wraps the TLS or raw socket; a TLS socket
// replaces the one inside it). A health check naming its host clears the
// static endpoints' own where the target says so
// (policy.Target.CheckHostClearsEndpointHosts).
func (b *builder) mergeCluster(dst, src *clusterv3.Cluster) {
	src = proto.Clone(src).(*clusterv3.Cluster)
	opts, ts := src.TypedExtensionProtocolOptions, src.TransportSocket
	src.TypedExtensionProtocolOptions, src.TransportSocket = nil, nil
	if ct, ok := src.ClusterDiscoveryType.(*clusterv3.Cluster_ClusterType); ok {
		// settings of a cluster type (DNS resolution) tune a cluster of
		// that type and mean nothing to another (a Service's EDS cluster)
		src.ClusterDiscoveryType = nil
		if have, ok := dst.ClusterDiscoveryType.(*clusterv3.Cluster_ClusterType); ok && have.ClusterType.GetName() == ct.ClusterType.GetName() {
			have.ClusterType.TypedConfig = mergeAny(have.ClusterType.TypedConfig, ct.ClusterType.TypedConfig)
		}
	}
	if src.LoadBalancingPolicy != nil {
		dst.LoadBalancingPolicy = nil
	}
	if src.HealthChecks != nil {
		dst.HealthChecks = nil
		if b.target.CheckHostClearsEndpointHosts && healthCheckHost(src.HealthChecks) {
			clearEndpointCheckHosts(dst.LoadAssignment)
		}
	}
	if src.CircuitBreakers != nil {
		dst.CircuitBreakers = nil
	}
	proto.Merge(dst, src)
	for _, k := range slices.Sorted(mapKeys(opts)) {
		if dst.TypedExtensionProtocolOptions == nil {
			dst.TypedExtensionProtocolOptions = map[string]*anypb.Any{}
		}
		dst.TypedExtensionProtocolOptions[k] = mergeAny(dst.TypedExtensionProtocolOptions[k], opts[k])
	}
	if ts != nil {
		dst.TransportSocket = composeSockets(dst.TransportSocket, ts)
	}
}

// healthCheckHost reports whether a health check names the host it
// sends (HTTP host, gRPC authority).
func healthCheckHost(hcs []*corev3.HealthCheck) bool {
	for _, hc := range hcs {
		if hc.GetHttpHealthCheck().GetHost() != "" || hc.GetGrpcHealthCheck().GetAuthority() != "" {
			return true
		}
	}
	return false
}

// clearEndpointCheckHosts drops the health-check hostname of a static
// backend's endpoints, so that a health check naming its host sends that
// one (policy.Target.CheckHostClearsEndpointHosts).
func clearEndpointCheckHosts(la *endpointv3.ClusterLoadAssignment) {
	for _, l := range la.GetEndpoints() {
		for _, e := range l.GetLbEndpoints() {
			if hc := e.GetEndpoint().GetHealthCheckConfig(); hc != nil {
				hc.Hostname = ""
			}
		}
	}
}

// mergeAny merges two Anys of one type by their messages (mergeMessage);
// otherwise the later replaces.
func mergeAny(dst, src *anypb.Any) *anypb.Any {
	if dst == nil || dst.TypeUrl != src.TypeUrl {
		return src
	}
	d, err1 := dst.UnmarshalNew()
	s, err2 := src.UnmarshalNew()
	if err1 != nil || err2 != nil {
		return src
	}
	mergeMessage(d, s)
	return mustAny(d)
}

// mergeMessage is proto.Merge, except that where both messages hold an
// Any of one type the messages packed in it merge too, rather than the
// later replacing the earlier: a filter whose chain configuration is the
// union of its routes' may keep part of it in a typed extension (the
// geolocation filter's provider names the fields every route looks up).
func mergeMessage(dst, src proto.Message) {
	d, s := dst.ProtoReflect(), src.ProtoReflect()
	var nested []protoreflect.FieldDescriptor
	s.Range(func(fd protoreflect.FieldDescriptor, _ protoreflect.Value) bool {
		if fd.Message() != nil && !fd.IsList() && !fd.IsMap() && d.Has(fd) {
			nested = append(nested, fd)
		}
		return true
	})
	if len(nested) == 0 {
		proto.Merge(dst, src)
		return
	}
	rest := proto.Clone(src)
	for _, fd := range nested {
		rest.ProtoReflect().Clear(fd)
	}
	proto.Merge(dst, rest)
	for _, fd := range nested {
		dm, sm := d.Mutable(fd).Message().Interface(), s.Get(fd).Message().Interface()
		da, dok := dm.(*anypb.Any)
		sa, sok := sm.(*anypb.Any)
		if dok && sok {
			merged := mergeAny(da, sa)
			da.TypeUrl, da.Value = merged.TypeUrl, merged.Value
			continue
		}
		mergeMessage(dm, sm)
	}
}

func composeSockets(dst, src *corev3.TransportSocket) *corev3.TransportSocket {
	switch {
	case src.GetName() == proxyProtocolSocket:
		pp := &proxyprotocolv3.ProxyProtocolUpstreamTransport{}
		if err := src.GetTypedConfig().UnmarshalTo(pp); err != nil {
			return src
		}
		pp.TransportSocket = dst
		if dst == nil || dst.GetName() == proxyProtocolSocket {
			pp.TransportSocket = rawBuffer()
		}
		return &corev3.TransportSocket{Name: src.Name, ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(pp)}}
	case dst.GetName() == proxyProtocolSocket:
		pp := &proxyprotocolv3.ProxyProtocolUpstreamTransport{}
		if err := dst.GetTypedConfig().UnmarshalTo(pp); err != nil {
			return src
		}
		pp.TransportSocket = src
		return &corev3.TransportSocket{Name: dst.Name, ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(pp)}}
	}
	return src
}

func rawBuffer() *corev3.TransportSocket {
	return &corev3.TransportSocket{Name: "envoy.transport_sockets.raw_buffer",
		ConfigType: &corev3.TransportSocket_TypedConfig{TypedConfig: mustAny(&rawbufferv3.RawBuffer{})}}
}

// protocolLeftOut is, per point of own, the fields merge's verdict
// leaves out of cluster name (merge.Result.FieldProtocolOn: the protocol
// its controller decides for the backend and port; a rule's copy of a
// backend's cluster is judged on the port of the cluster it copies,
// originCluster). nil where no field is left out, the common case.
func (gb *gatewayBuild) protocolLeftOut(name string, own merge.Points) protocolLeftOuts {
	var out protocolLeftOuts
	k := gb.clusterBackend[name]
	_, _, port, _ := serviceOfCluster(gb.originCluster(name))
	for i, p := range own {
		for _, f := range p.Fields {
			if !gb.res.FieldProtocolOn(p.Kind, f.Key, k, port).LeftOut() {
				continue
			}
			if out == nil {
				out = make(protocolLeftOuts, len(own))
			}
			if out[i] == nil {
				out[i] = map[string]bool{}
			}
			out[i][f.Key] = true
		}
	}
	return out
}

// protocolLeftOuts is, per point, the keys of the fields left out of a
// cluster for its backend's protocol; nil when none is.
type protocolLeftOuts []map[string]bool

// of is point i's left-out fields (nil: none).
func (l protocolLeftOuts) of(i int) map[string]bool {
	if l == nil {
		return nil
	}
	return l[i]
}

// finishHTTPOptions: upstream HTTP protocol options must name the
// protocol; a cluster nothing made HTTP/2 speaks HTTP/1.1.
func finishHTTPOptions(c *clusterv3.Cluster) {
	a := c.TypedExtensionProtocolOptions[httpProtocolOptionsKey]
	if a == nil {
		return
	}
	o := &upstreamhttpv3.HttpProtocolOptions{}
	if err := a.UnmarshalTo(o); err != nil || o.UpstreamProtocolOptions != nil {
		return
	}
	o.UpstreamProtocolOptions = &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
		ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_HttpProtocolOptions{HttpProtocolOptions: &corev3.Http1ProtocolOptions{}},
	}}
	c.TypedExtensionProtocolOptions[httpProtocolOptionsKey] = mustAny(o)
}

// backendClusterers maps each backendRef kind to the registered kind
// that builds its clusters.
func backendClusterers(reg *policy.Registry) map[model.GroupKind]policy.BackendClusterer {
	out := map[model.GroupKind]policy.BackendClusterer{}
	if reg == nil {
		return out
	}
	for _, k := range reg.Kinds() {
		bp, ok := k.(policy.BackendProvider)
		bc, ok2 := k.(policy.BackendClusterer)
		if !ok || !ok2 {
			continue
		}
		for _, gk := range bp.BackendKinds() {
			out[gk] = bc
		}
	}
	return out
}

// backendObjectCluster builds the cluster of a non-Service backend object
// through the kind that defines it, once per render; nil when no kind
// builds it (the caller keeps a plain EDS cluster). A backend type the
// kind cannot render is reported (GWP404) on the object.
func (b *builder) backendObjectCluster(name string, k model.Key) *backendBuilt {
	b.mu.Lock()
	defer b.mu.Unlock()
	if bb, ok := b.backendBuilt[name]; ok {
		return bb
	}
	var bb *backendBuilt
	defer func() { b.backendBuilt[name] = bb }()
	bc := b.clusterers[k.GK()]
	o, ok := b.res.Graph.Model.Object(k)
	if bc == nil || !ok || b.refusedObject(k) {
		return nil // a refused object's findings are its verdict's
	}
	build, err := bc.BackendCluster(o, name, b.env)
	if err == nil && build == nil {
		return nil // the plain EDS cluster
	}
	var c *clusterv3.Cluster
	var filter *anypb.Any
	if err == nil {
		c, filter, err = checkBackendBuild(build, &b.anys)
	}
	if err != nil {
		code := policy.LintPolicyInvalid.Code
		if diag.KindOf(err) == diag.Unsupported {
			code = policy.LintUnsupportedCapability.Code
		}
		msg := fmt.Sprintf("%s %s/%s cannot be rendered: %v; its cluster %s is a plain EDS cluster", k.Kind, k.Namespace, k.Name, err, name)
		field := diag.FieldOf(err)
		if field == "" {
			field = "spec"
		}
		b.diags = append(b.diags, diag.Diagnostic{Code: code, Severity: diag.Error, Message: msg, Object: o.Ref(), Field: field, Pos: o.FieldPos(field)})
		return nil
	}
	bb = &backendBuilt{cluster: c}
	if f := build.Filter; f != nil {
		bb.filter = &filterDef{name: f.Name, order: f.Order, precedence: f.Precedence, config: filter, enabled: true}
	}
	for _, m := range build.Clusters {
		bb.clusters = append(bb.clusters, m.(*clusterv3.Cluster))
	}
	bb.route, _ = build.Route.(*routev3.RouteAction)
	bb.perRoute = build.PerRoute
	return bb
}

// refusedObject is whether the controller does not accept backend object
// k (attach.Result.RefusedObject): it gets no cluster.
func (b *builder) refusedObject(k model.Key) bool {
	_, refused := b.res.Attach.RefusedObject(k)
	return refused
}

// refusedObjectOn is refusedObject on the Gateway's own controller
// (attach.Result.RefusedObjectOn): a Service one controller drops keeps
// its clusters on another's Gateways.
func (gb *gatewayBuild) refusedObjectOn(k model.Key) bool {
	if !gb.refusedObject(k) {
		return false // no verdict: no controller to look up
	}
	_, refused := gb.res.Attach.RefusedObjectOn(k, gb.res.Graph.ControllerOf(gb.gw))
	return refused
}

// checkBackendBuild types what a kind built for a backend object and
// holds it to Envoy's validation rules before any of it is used: its
// cluster, the clusters its filter calls and the filter's config. The
// values come from the object's spec, so an invalid one is the object's
// finding, not an internal error when the Gateway's config is checked.
func checkBackendBuild(build *policy.BackendBuild, anys *anyCache) (*clusterv3.Cluster, *anypb.Any, error) {
	c, _ := build.Cluster.(*clusterv3.Cluster)
	if c == nil {
		return nil, nil, fmt.Errorf("its cluster is a %T", build.Cluster)
	}
	if err := validateDeep(c); err != nil {
		return nil, nil, fmt.Errorf("its cluster would not be valid Envoy config: %w", err)
	}
	for _, m := range build.Clusters {
		ec, _ := m.(*clusterv3.Cluster)
		if ec == nil {
			return nil, nil, fmt.Errorf("a cluster its filter calls is a %T", m)
		}
		if err := validateDeep(ec); err != nil {
			return nil, nil, fmt.Errorf("cluster %s would not be valid Envoy config: %w", ec.Name, err)
		}
	}
	var filter *anypb.Any
	if f := build.Filter; f != nil {
		var err error
		if filter, err = anys.typedAny(f.Typed); err != nil {
			return nil, nil, fmt.Errorf("filter %s would not be valid Envoy config: %w", f.Name, err)
		}
	}
	return c, filter, nil
}

// backendBuilt is a backend object's cluster, the HTTP filter a chain
// routing to it needs, the other clusters that filter calls, and the
// route action settings of a route sending to it alone.
type backendBuilt struct {
	cluster  *clusterv3.Cluster
	filter   *filterDef
	clusters []*clusterv3.Cluster
	route    *routev3.RouteAction
	perRoute func(action proto.Message) map[string]proto.Message // policy.BackendBuild.PerRoute
}

// backendPerRoute adds to a forwarding route the per-filter configs its
// backend objects ask for (policy.BackendBuild.PerRoute), given its final
// route action.
func (vb *vhostBuild) backendPerRoute(r *routev3.Route, backends []*topology.Backend) {
	act := r.GetRoute()
	if act == nil {
		return
	}
	for _, be := range backends {
		if !be.Resolved || be.Extension || (be.Group == "" && be.Kind == "Service") {
			continue
		}
		op := backendClusterOp(be)
		bb := vb.backendObjectCluster(op.name, *op.backend)
		if bb == nil || bb.perRoute == nil {
			continue
		}
		cfgs := bb.perRoute(act)
		for _, name := range slices.Sorted(maps.Keys(cfgs)) {
			a, err := vb.anys.typedAny(cfgs[name])
			if err != nil || cfgs[name] == nil {
				continue
			}
			if r.TypedPerFilterConfig == nil {
				r.TypedPerFilterConfig = map[string]*anypb.Any{}
			}
			r.TypedPerFilterConfig[name] = a
		}
	}
}

// backendRoute applies the route action settings of the one backend
// object a route sends to: they replace the action's defaults (its
// cluster-not-found code) and leave its cluster as it is.
func (b *builder) backendRoute(act *routev3.RouteAction, backends []*topology.Backend) {
	if act.GetCluster() == "" {
		return
	}
	for _, be := range backends {
		if !be.Resolved || be.Extension || (be.Group == "" && be.Kind == "Service") {
			continue
		}
		bb := b.backendObjectCluster(act.GetCluster(), model.Key{Group: be.Group, Kind: be.Kind, Namespace: be.Namespace, Name: be.Name})
		if bb == nil || bb.route == nil {
			return
		}
		act.ClusterNotFoundResponseCode = bb.route.ClusterNotFoundResponseCode
		r := proto.Clone(bb.route).(*routev3.RouteAction)
		r.ClusterSpecifier = nil
		proto.Merge(act, r)
		return
	}
}

// overlay sets every field src populates on dst, as written: unlike
// proto.Merge it keeps a wrapper's false or zero (useRemoteAddress: false
// must turn the default off), while plain sub-messages still merge field
// by field (several fields share commonHttpProtocolOptions). Lists and
// maps are replaced. src is not aliased.
func overlay(dst, src proto.Message) {
	overlayMsg(dst.ProtoReflect(), proto.Clone(src).ProtoReflect())
}

func overlayMsg(dst, src protoreflect.Message) {
	src.Range(func(fd protoreflect.FieldDescriptor, v protoreflect.Value) bool {
		if md := fd.Message(); md != nil && !fd.IsList() && !fd.IsMap() && md.FullName().Parent() != "google.protobuf" && dst.Has(fd) {
			overlayMsg(dst.Mutable(fd).Message(), v.Message())
			return true
		}
		dst.Set(fd, v)
		return true
	})
}

package envoy

import (
	"slices"
	"strconv"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

const httpProtocolOptionsKey = "envoy.extensions.upstreams.http.v3.HttpProtocolOptions"

// backendCluster returns the cluster name of a resolved backend and
// records the cluster.
func (vb *vhostBuild) backendCluster(b *topology.Backend, grpc bool) string {
	op := backendClusterOp(b)
	op.grpc = grpc
	vb.serviceProtocol(&op, b, grpc)
	vb.clusters = append(vb.clusters, op)
	return op.name
}

// serviceProtocol decides whether the cluster op of a Service port b
// speaks HTTP/2 for a route of kind grpc or not: as the target's
// controller decides it (Target.ServiceHTTP2), else by the port's
// appProtocol (backendClusterOp) and for every GRPCRoute.
func (vb *vhostBuild) serviceProtocol(op *clusterOp, b *topology.Backend, grpc bool) {
	if b.Group != "" || b.Kind != "Service" {
		return
	}
	if f := vb.target.ServiceHTTP2; f != nil {
		op.http2 = f(serviceAppProtocol(b.Service, b.Port), grpc)
		return
	}
	op.http2 = op.http2 || grpc
}

// serviceAppProtocol is the appProtocol of a Service port, "" for none.
func serviceAppProtocol(s *model.Service, port int32) string {
	if s == nil {
		return ""
	}
	for _, p := range s.Spec.Ports {
		if p.Port == port && p.AppProtocol != nil {
			return *p.AppProtocol
		}
	}
	return ""
}

// backendClusterOp is the cluster of a resolved backend: a Service port's
// (HTTP/2 when its appProtocol says so) or another backend kind's.
func backendClusterOp(b *topology.Backend) clusterOp {
	if b.Group == "" && b.Kind == "Service" {
		return clusterOp{name: policy.ServiceCluster(b.Namespace, b.Name, b.Port), http2: servicePortHTTP2(b.Service, b.Port),
			backend: &model.Key{Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}}
	}
	name := objectClusterPrefix(b.Kind, b.Namespace, b.Name) + strconv.Itoa(int(b.Port))
	if b.Extension {
		return clusterOp{name: name, extension: true}
	}
	return clusterOp{name: name, backend: &model.Key{Group: b.Group, Kind: b.Kind, Namespace: b.Namespace, Name: b.Name}}
}

// clusterOp is a cluster a virtual host needs: a backend's (name, and
// whether it speaks HTTP/2) or the clusters a policy fragment brings.
type clusterOp struct {
	name      string
	http2     bool
	fragments []*clusterv3.Cluster
	backend   *model.Key // the backend object the cluster is built for
	// of names the backend cluster a rule's own cluster copies, with the
	// rule's settings and their metadata (ruleCluster).
	of       string
	settings []clusterSetting
	metadata *corev3.Metadata
	retarget func(name string) // points the route at another name for it
	// template: the route that recorded this backend cluster sends to a
	// cluster of its rule's own copied from it instead (ruleClusters).
	template bool
	// extension: the cluster of a backend an extension plugin registers
	// (topology.Backend.Extension).
	extension bool
	// grpc: a GRPCRoute's backendRef recorded the backend cluster
	// (gatewayBuild.routeKinds).
	grpc bool
}

// applyCluster records a cluster a virtual host needs; it returns the
// HTTP filter a chain routing to it needs (nil for most).
func (gb *gatewayBuild) applyCluster(op clusterOp) *filterDef {
	switch {
	case op.template:
		gb.templates[op.name] = true
	case op.of == "" && op.name != "":
		gb.referenced[op.name] = true
	}
	if op.fragments != nil {
		gb.addClusters(op.fragments)
		return nil
	}
	if op.of != "" {
		gb.ruleCluster(op)
		return nil
	}
	if _, ok := gb.clusters[op.name]; op.extension && !ok {
		gb.clusters[op.name] = gb.extensionCluster(op.name)
	}
	if op.backend != nil && gb.refusedObjectOn(*op.backend) {
		// A backend object its controller refuses (or drops silently) has
		// no cluster: its translation fails, and the failed cluster is
		// left out of the configuration; the route still names it and
		// Envoy answers its share with the route's cluster-not-found code.
		return nil
	}
	var filter *filterDef
	if op.backend != nil && op.backend.Kind != "Service" {
		if bb := gb.backendObjectCluster(op.name, *op.backend); bb != nil {
			if _, ok := gb.clusters[op.name]; !ok {
				gb.clusters[op.name] = proto.Clone(bb.cluster).(*clusterv3.Cluster)
			}
			gb.addClusters(bb.clusters)
			filter = bb.filter
		}
	}
	c := gb.cluster(op.name)
	if op.backend != nil {
		gb.clusterBackend[op.name] = *op.backend
		gb.routeKinds[op.name] |= routeKindOf(op.grpc)
	}
	if op.http2 {
		setHTTP2(c, gb.target.UpstreamHTTP2)
	}
	return filter
}

// addClusters records the clusters of policy fragments.
func (vb *vhostBuild) addClusters(cs []*clusterv3.Cluster) {
	if len(cs) > 0 {
		vb.clusters = append(vb.clusters, clusterOp{fragments: cs})
	}
}

// mirrorCluster is the cluster a RequestMirror copies requests to, as
// topology resolved its backendRef (topology.Rule.Mirrors); "" when it
// did not resolve, which mirrors nothing. A Service port is every
// target's; a backend object of another kind only the target's whose
// controller mirrors to the cluster it builds for it
// (Target.MirrorBackendObjects).
func (vb *vhostBuild) mirrorCluster(b *topology.Backend, grpc bool) string {
	if b == nil || !b.Resolved || b.Extension {
		return ""
	}
	op := clusterOp{name: policy.ServiceCluster(b.Namespace, b.Name, b.Port)}
	if vb.target.ServiceHTTP2 != nil {
		// the mirror's destination is built with the route's protocol
		vb.serviceProtocol(&op, b, grpc)
	}
	if !(b.Group == "" && b.Kind == "Service") {
		if !vb.target.MirrorBackendObjects {
			return ""
		}
		op = backendClusterOp(b)
	}
	vb.clusters = append(vb.clusters, op)
	return op.name
}

func servicePortHTTP2(s *model.Service, port int32) bool {
	if s == nil {
		return false
	}
	for _, p := range s.Spec.Ports {
		if p.Port == port && p.AppProtocol != nil {
			switch *p.AppProtocol {
			case "kubernetes.io/h2c", "grpc", "http2", "h2c":
				return true
			}
		}
	}
	return false
}

// protocolsFromServices gives each Service cluster the upstream protocol
// its port's appProtocol names, and only that (Target.HTTP2AppProtocols):
// HTTP/2 for the target's HTTP/2 appProtocols, HTTP/1.1 otherwise — also
// for a GRPCRoute backend or a gRPC extension service whose Service does
// not say so (--target envoy speaks HTTP/2 to those).
func (gb *gatewayBuild) protocolsFromServices() {
	for name, c := range gb.clusters {
		ns, svc, port, ok := serviceOfCluster(name)
		if !ok || gb.unrouted[name] {
			continue // not a Service's, or another Gateway's finished one (shareUnrouted)
		}
		if speaksHTTP2(gb.res.Graph.Model.Service(ns, svc), port, &gb.target) {
			setHTTP2(c, gb.target.UpstreamHTTP2)
			continue
		}
		delete(c.TypedExtensionProtocolOptions, httpProtocolOptionsKey)
		if len(c.TypedExtensionProtocolOptions) == 0 {
			c.TypedExtensionProtocolOptions = nil
		}
	}
}

// serviceOfCluster reads a Service cluster name, kube_<ns>_<name>_<port>
// (Kubernetes names hold no underscore).
func serviceOfCluster(cluster string) (ns, name string, port int32, ok bool) {
	parts := strings.Split(cluster, "_")
	if len(parts) != 4 || parts[0] != "kube" {
		return "", "", 0, false
	}
	p, err := strconv.ParseInt(parts[3], 10, 32)
	if err != nil {
		return "", "", 0, false
	}
	return parts[1], parts[2], int32(p), true
}

// speaksHTTP2 reports whether a Service port's protocol is one of the
// target's HTTP/2 ones (policy.Target.UpstreamProtocol).
func speaksHTTP2(s *model.Service, port int32, t *policy.Target) bool {
	return t.UpstreamProtocol(t.ServicePortProtocol(s, port)) == policy.ClusterHTTP2
}

// cluster returns the gateway's cluster of that name, creating it.
func (gb *gatewayBuild) cluster(name string) *clusterv3.Cluster {
	if c, ok := gb.clusters[name]; ok {
		return c
	}
	c := gb.baseCluster(name)
	gb.clusters[name] = c
	return c
}

// baseCluster is an EDS cluster fed over ADS, with the connect timeout
// the target's controller writes (policy.Target.ConnectTimeout).
func (b *builder) baseCluster(name string) *clusterv3.Cluster {
	return &clusterv3.Cluster{
		Name:                 name,
		ConnectTimeout:       durationpb.New(b.target.ClusterConnectTimeout()),
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig:     &clusterv3.Cluster_EdsClusterConfig{EdsConfig: adsSource()},
	}
}

// extensionCluster is the cluster the controller starts every backend's
// from — its name and connect timeout — as it stands for a backend an
// extension plugin registers: the plugin fills in the rest (discovery
// type, endpoints) in code gwpol cannot see, and the controller's
// translator test plugin fills in nothing.
func (b *builder) extensionCluster(name string) *clusterv3.Cluster {
	return &clusterv3.Cluster{Name: name, ConnectTimeout: durationpb.New(b.target.ClusterConnectTimeout())}
}

// setHTTP2 makes a cluster speak HTTP/2 upstream, with the target's
// HTTP/2 options (Target.UpstreamHTTP2; nil: none).
func setHTTP2(c *clusterv3.Cluster, opts proto.Message) {
	if c.TypedExtensionProtocolOptions == nil {
		c.TypedExtensionProtocolOptions = map[string]*anypb.Any{}
	}
	h2, ok := opts.(*corev3.Http2ProtocolOptions)
	if !ok || h2 == nil {
		c.TypedExtensionProtocolOptions[httpProtocolOptionsKey] = http2Options
		return
	}
	c.TypedExtensionProtocolOptions[httpProtocolOptionsKey] = mustAny(&upstreamhttpv3.HttpProtocolOptions{
		UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: h2},
		}},
	})
}

var http2Options = mustAny(&upstreamhttpv3.HttpProtocolOptions{
	UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
		ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: &corev3.Http2ProtocolOptions{}},
	}},
})

// addClusters records clusters policy fragments refer to: the fragment's
// settings are merged into the cluster of that name (created with the
// default discovery settings when it is new).
func (gb *gatewayBuild) addClusters(cs []*clusterv3.Cluster) {
	for _, c := range cs {
		// Every route a policy applies to brings its cluster again: merging
		// an equal fragment twice would repeat its endpoints (proto.Merge
		// appends lists).
		if slices.ContainsFunc(gb.merged[c.Name], func(m *clusterv3.Cluster) bool { return proto.Equal(m, c) }) {
			continue
		}
		gb.merged[c.Name] = append(gb.merged[c.Name], c)
		gb.referenced[c.Name] = true
		if k, ok := gb.fragmentObject(c.Name); ok && gb.refusedObjectOn(k) {
			// A fragment naming the cluster of a backend its controller
			// refuses gets none, as a route's backendRef to it does
			// (applyCluster): the setting still names it.
			continue
		}
		if k, ok := gb.fragmentBackend(c.Name); ok {
			gb.applyCluster(clusterOp{name: c.Name, backend: &k})
		}
		existing, ok := gb.clusters[c.Name]
		if !ok {
			existing = gb.baseCluster(c.Name)
			if c.ClusterDiscoveryType != nil {
				existing = &clusterv3.Cluster{Name: c.Name, ConnectTimeout: durationpb.New(gb.target.ClusterConnectTimeout())}
			}
			gb.clusters[c.Name] = existing
		}
		proto.Merge(existing, c)
		gb.policyShaped[c.Name] = true
		gb.fragmentClusters[c.Name] = true
	}
}

// websocketBackend: a Service port, or a backend object, whose
// appProtocol is one the target upgrades for
// (policy.Target.WebSocketAppProtocols) speaks WebSocket, so the route
// upgrades.
func (b *builder) websocketBackend(bs []*topology.Backend) bool {
	if len(b.target.WebSocketAppProtocols) == 0 {
		return false
	}
	for _, be := range bs {
		if be.Resolved && b.target.AppProtocolIn(b.target.WebSocketAppProtocols, b.appProtocol(be)) {
			return true
		}
	}
	return false
}

// objectClusterPrefix is the name of a non-Service backend object's
// cluster without its port: <kind lower-cased>_<namespace>_<name>_.
func objectClusterPrefix(kind, ns, name string) string {
	return strings.ToLower(kind) + "_" + ns + "_" + name + "_"
}

// objectClusterIndex indexes the backend objects a registered kind builds
// clusters for (policy.BackendClusterer) by objectClusterPrefix, so that a
// policy fragment naming such a cluster — an OAuth2 provider, an auth
// service given as a Backend — gets the cluster the kind builds for the
// object, as a route's backendRef does, not a plain EDS cluster.
func objectClusterIndex(m *model.Model, clusterers map[model.GroupKind]policy.BackendClusterer) map[string]model.Key {
	out := map[string]model.Key{}
	for gk := range clusterers {
		for _, o := range m.OfKind(gk) {
			k := model.KeyOf(o)
			out[objectClusterPrefix(k.Kind, k.Namespace, k.Name)] = k
		}
	}
	return out
}

// fragmentObject finds the Service or backend object a fragment's
// cluster is named after, built or not.
func (gb *gatewayBuild) fragmentObject(cluster string) (model.Key, bool) {
	if ns, name, _, ok := serviceOfCluster(cluster); ok {
		return model.Key{Kind: "Service", Namespace: ns, Name: name}, true
	}
	i := strings.LastIndexByte(cluster, '_')
	if i < 0 {
		return model.Key{}, false
	}
	k, ok := gb.objectClusters[cluster[:i+1]]
	return k, ok
}

// fragmentBackend finds the backend object a fragment's cluster is
// named after, when the cluster is not built yet.
func (gb *gatewayBuild) fragmentBackend(cluster string) (model.Key, bool) {
	if _, built := gb.clusters[cluster]; built || strings.HasPrefix(cluster, "kube_") {
		return model.Key{}, false
	}
	return gb.fragmentObject(cluster)
}

// appProtocol is the application protocol a resolved backend names
// (policy.Registry.BackendAppProtocol); "" when none.
func (b *builder) appProtocol(be *topology.Backend) string {
	if be.Service != nil {
		return b.target.ServicePortProtocol(be.Service, be.Port)
	}
	k := model.Key{Group: be.Group, Kind: be.Kind, Namespace: be.Namespace, Name: be.Name}
	return b.res.Registry.BackendAppProtocol(&b.target, b.res.Graph.Model, k, be.Port)
}

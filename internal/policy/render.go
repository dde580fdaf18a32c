package policy

import (
	"strconv"

	"google.golang.org/protobuf/proto"
)

// Scope is the Envoy resource a merged field configures.
type Scope string

// Scopes, from the most specific.
const (
	ScopeRoute       Scope = "route"       // an Envoy Route (route and rule policies)
	ScopeVirtualHost Scope = "virtualhost" // HTTP listener policies
	ScopeRouteConfig Scope = "routeconfig" // whole-Gateway policies, HTTPS listener policies
	ScopeListener    Scope = "listener"    // listener-level settings (ListenerPolicy)
	ScopeCluster     Scope = "cluster"     // a backend's cluster (policies on Services and Backends)
)

// Cluster settings several kinds (or a backend object's own spec) set,
// named as in FieldSpec.Cluster and BackendDescriber.
const (
	ClusterTransportSocket   = "transport_socket"
	ClusterLoadBalancing     = "load_balancing_policy"
	ClusterCommonHTTPOptions = "common_http_protocol_options"
	ClusterHTTP2Options      = "http2_protocol_options"
	ClusterHTTP1Options      = "http_protocol_options"
	// ClusterHTTP2 and ClusterHTTP1 are the upstream protocols of a
	// backend (Registry.BackendProtocol, FieldSpec.Protocol).
	ClusterHTTP2 = "http2"
	ClusterHTTP1 = "http1"
)

// ClusterSettingAlternative is the cluster setting that one replaces
// when set: the HTTP/1 and HTTP/2 protocol options are the two forms of
// a cluster's one explicit HTTP protocol configuration (Envoy's
// HttpProtocolOptions.explicit_http_config), so a policy's HTTP/1
// options replace the HTTP/2 options a backend's own spec gave its
// cluster, and the other way round. "" for a setting without one.
func ClusterSettingAlternative(setting string) string {
	switch setting {
	case ClusterHTTP1Options:
		return ClusterHTTP2Options
	case ClusterHTTP2Options:
		return ClusterHTTP1Options
	}
	return ""
}

// FieldInput is one merged field handed to a kind's renderer: the values
// of its contributors in merge order (one value for shallow strategies).
type FieldInput struct {
	Key          string
	Strategy     Strategy
	Values       []any
	Contributors []string // policy IDs, same order as Values
	Scope        Scope
	// Namespace of the owning policy (references in values are relative to it).
	Namespaces []string
	// Gateway is the Gateway whose listeners the field configures, when it
	// is merged at a Gateway or one of its listeners (zero on routes, which
	// several Gateways may share): kgateway names a listener's tracer and
	// OpenTelemetry access logs after their Gateway.
	Gateway GatewayName
	// SharedPort: the field is merged at one HTTP listener (ScopeVirtualHost)
	// that shares its port, and so its connection manager, with other HTTP
	// listeners; false where the listener is alone on its port and its
	// connection settings are its own.
	SharedPort bool
	// Whole is, where a more specific policy of a kind that overrides
	// whole merged with a less specific one (policy.WholeOverrider, Envoy
	// Gateway's mergeType), the ID of the more specific one, whether or
	// not it sets this field: Envoy Gateway names what it builds from the
	// merged result after it. Empty otherwise.
	Whole string
	// Failed: the policy is invalid where the field is rendered (its
	// point holds it as Invalid, merge.Point.Invalid) and the field is
	// kept beside the controller's failure answer (InvalidKeeper); a
	// policy refused on some listeners only is rendered both ways.
	Failed bool
}

// GatewayName is a Gateway's namespace and name.
type GatewayName struct{ Namespace, Name string }

// IsZero reports whether no Gateway is named.
func (g GatewayName) IsZero() bool { return g.Name == "" }

// Fragment is the Envoy configuration one merged field makes: the
// go-control-plane messages a kind's render files build (as proto.Message,
// so that nothing else in the kind imports go-control-plane), where they
// go and what they need. internal/render/envoy places and merges them
// into the resources and validates them.
type Fragment struct {
	// Capability the target must have (e.g. local_ratelimit, waf).
	Capability string
	// Reason says, where a kind knows it, why no target has Capability
	// and what the user can do; render adds it to the unsupported
	// finding and to the body of the 503 the affected routes answer.
	Reason string
	// Filter is an HTTP filter for the HCM chain. It is added once per
	// chain (by Name), disabled by default, and enabled where a
	// TypedPerFilterConfig names it.
	Filter *HTTPFilter
	// TypedPerFilterConfig entries go into typed_per_filter_config of the
	// scoped resource, keyed by filter name.
	TypedPerFilterConfig map[string]proto.Message
	// TypedRouteAction, TypedRoute and TypedVirtualHost (a RouteAction, a
	// Route, a VirtualHost) are merged into the scoped resource's fields.
	// TypedMirrorPolicy (a RouteAction_RequestMirrorPolicy) is merged into
	// each of the route's request mirror policies — those the route's own
	// RequestMirror filters make — for a field that tunes mirroring rather
	// than adding a mirror.
	TypedRouteAction, TypedRoute, TypedVirtualHost, TypedMirrorPolicy proto.Message
	// TypedClusters are the clusters the configuration refers to (e.g. an
	// auth service), go-control-plane Clusters.
	TypedClusters []proto.Message
	// TypedClusterParts shape each of TypedClusters as the fields of a
	// backend's policies shape its cluster: each part's Cluster and
	// ClusterOfType merged in, in order, by the settings' meaning (see
	// Cluster), then each part's ClusterFinish run (their other settings
	// are not read) — an extension
	// service's cluster tuned by the policy's own settings for it (Envoy
	// Gateway's backendSettings), rendered by the renderers of the fields
	// that tune a backend's cluster.
	TypedClusterParts []Fragment
	// Cluster is merged into the cluster of the backend the field's
	// policies target (ScopeCluster): a go-control-plane Cluster the
	// kind's render files build, holding only the settings the field
	// makes. Settings kept in maps and oneofs combine by their meaning
	// rather than proto.Merge's rules (see internal/render/envoy): HTTP
	// protocol options of several fields merge, and an upstream PROXY
	// protocol transport socket wraps whatever socket the cluster has.
	Cluster proto.Message
	// ClusterOfType is cluster settings for a backend's cluster of one
	// custom cluster type only, the one its ClusterType names: merged as
	// Cluster is into a cluster of that type, top-level settings included,
	// while a cluster of any other type takes none of them (Envoy Gateway's
	// dns tunes a dynamic forward proxy's DNS cache, and leaves an EDS
	// cluster as it is).
	ClusterOfType proto.Message
	// BackendCluster is cluster settings (a go-control-plane Cluster) the
	// field makes where it applies to one backendRef's share of a rule
	// (FieldSpec.PerBackend, the policy named from a backendRef): that
	// backendRef forwards to a cluster of its own, a copy of its
	// backend's with these merged in (Envoy Gateway's upstream credential
	// injector). For such a backendRef the field's filters and per-filter
	// configuration are not used; where the field applies to a whole
	// rule, BackendCluster is not.
	BackendCluster proto.Message
	// ClusterFinish adjusts the backend's whole cluster (a go-control-plane
	// Cluster) once every field's Cluster is merged into it, for a setting
	// whose meaning depends on what the cluster is (kgateway drops
	// useHostnameForHashing from a cluster not resolved by DNS).
	ClusterFinish func(cluster proto.Message)
	// HCM and Listener are merged (proto.Merge) into the HTTP connection
	// manager and the Listener of the scoped Gateway's listeners: a
	// go-control-plane HttpConnectionManager and Listener the kind's render
	// files build, holding only the settings the field makes.
	HCM, Listener proto.Message
	// FilterChain is merged into the filter chains of the listeners the
	// field applies to (a FilterChain holding only the settings the field
	// makes, e.g. transport_socket_connect_timeout), and DownstreamTLS
	// into the TLS context of those that terminate TLS (a
	// DownstreamTlsContext, e.g. client certificate validation).
	FilterChain, DownstreamTLS proto.Message
	// Unset are settings of HCM, Listener, FilterChain or DownstreamTLS
	// the field turns off where the target's baseline has them on, and
	// whose "off" is the proto zero value a merge cannot carry (merge
	// slashes, session resumption disabled, an empty ALPN list): proto
	// field paths rooted at "hcm", "listener", "chain" or "tls", e.g.
	// "hcm.merge_slashes", cleared before the field's messages merge.
	Unset []string
	// NetworkFilters go into the filter chains of the listeners the field
	// applies to, before the HTTP connection manager (a connection
	// limit), in the order given.
	NetworkFilters []proto.Message
	// HTTP10DefaultHost: the connection managers the field configures
	// (accepting HTTP/1.0 in HCM) give an HTTP/1.0 request without a Host
	// header the default host of the listener each serves, as the target
	// picks it (Target.HTTP10DefaultHost): a value that depends on the
	// listener and its routes, not on the field alone.
	HTTP10DefaultHost bool
	// HTTP3: the TLS-terminating HTTP listeners the field applies to also
	// serve HTTP/3 — a QUIC (UDP) listener on the same port with their
	// filter chains, and their routes advertising it (alt-svc).
	HTTP3 bool
	// NoUpgrade: the routes the field applies to do not take the
	// target's default upgrade (Target.HTTPRoutesUpgrade) — a request
	// the field buffers whole cannot be upgraded.
	NoUpgrade bool
	// TCPProxy is merged into the TCP proxies of the TCP and TLS listeners
	// the field applies to (a TcpProxy holding only the settings the field
	// makes, e.g. idle_timeout).
	TCPProxy proto.Message
	// Port, when not 0, limits the fragment to the listeners on that port
	// (kgateway's ListenerPolicy perPort); there it replaces the kind's
	// fragments without a port.
	Port int32
	// PerRoute builds, for each forwarding Envoy route the fragment's
	// field configures, the configuration that names that route or the
	// listener serving it (Envoy Gateway's global rate-limit descriptors
	// and domains, a stat prefix made of the route's name). A field
	// renders once for all the routes it reaches; this is called once per
	// route. Of the fragments it returns, render uses Filter,
	// TypedPerFilterConfig, TypedRoute and Cluster (merged into the
	// clusters of the route's rule's own, after the field's shared
	// Cluster: an HTTP health check's Host defaulting to the route's
	// hostname); an error makes the route answer 503, as any field that
	// cannot be rendered.
	PerRoute func(RouteSite) ([]Fragment, error)
}

// RouteSite is one Envoy route as a data plane serves it: the route
// object, rule and match it comes from, the virtual host's hostname and
// the Gateway listener serving it.
type RouteSite struct {
	// Kind (HTTPRoute, GRPCRoute), Namespace and Name of the route object.
	Kind, Namespace, Name string
	// Rule is the rule's index, RuleName its name ("" when unnamed).
	Rule     int
	RuleName string
	// Match is the match's index in the rule, -1 for a rule without
	// matches.
	Match int
	// Hostname is the virtual host's domain ("*" for any host).
	Hostname string
	// Gateway is the Gateway serving the route through its listener
	// Listener, or through the listener of ListenerSet (zero for the
	// Gateway's own listeners).
	Gateway, ListenerSet GatewayName
	Listener             string
}

// OrderGRPC is the place in an HTTP filter chain (HTTPFilter.Order) of
// the gRPC filters a data plane gives a connection manager serving a
// GRPCRoute, gRPC-Web translation at OrderGRPC and gRPC statistics at
// OrderGRPC+1: after every policy filter, before the router. Render adds
// them from here; a family's filter that takes its place among them
// (a policy turning gRPC-Web on, a filter that must run after them)
// reads its order from here too, so the families' filter-order tables
// and render's agree by construction.
const OrderGRPC = 1 << 20

// HTTPFilter is one entry of the HCM http_filters chain.
type HTTPFilter struct {
	Name string
	// Typed is typed_config built as a go-control-plane message by the
	// kind's render files (a misspelt field or enum cannot compile).
	Typed proto.Message
	// Order sorts filters in the chain (lower first); ties by Precedence
	// (higher first) between filters of one Typed type, then by name.
	Order int
	// Precedence orders filters of one Order, e.g. kgateway's
	// kgateway.dev/policy-weight on the extension a filter calls.
	Precedence int32
	// Upstream runs the filter after routing, among the router's upstream
	// HTTP filters (before the upstream codec), rather than in the HCM
	// chain.
	Upstream bool
	// Enabled leaves the filter on in the chain: its own configuration
	// does nothing (an RBAC filter without rules), and the resources'
	// per-filter configs decide.
	Enabled bool
	// RemoveRequestHeaders are request headers every route served through
	// a chain holding the filter removes, whatever its own policies (the
	// geolocation filter's internal headers, which no client may set);
	// the routes of a merging filter remove those of every resource's.
	RemoveRequestHeaders []string
	// Merge: the chain's configuration is the merge (proto.Merge, maps
	// by key) of every resource's rather than the first one's — for a
	// filter whose chain configuration holds what each resource's
	// per-filter config names (JWT providers and requirements).
	Merge bool
}

// ServiceCluster is the name of the Envoy cluster for a Service port,
// kube_<namespace>_<name>_<port> (kgateway's naming). A fragment that needs
// a Service may list {"name": ServiceCluster(…)} in Clusters, with any
// extra cluster options; the renderer completes its discovery settings.
func ServiceCluster(ns, name string, port int32) string {
	return "kube_" + ns + "_" + name + "_" + strconv.Itoa(int(port))
}

// SecretSDSName is the SDS name under which the renderer references a
// Secret (gwpol never reads Secret data, so nothing secret is inlined).
func SecretSDSName(ns, name string) string { return "secret/" + ns + "/" + name }

// SecretFile is where a key of a Secret is expected to be mounted when an
// Envoy field can only read a file.
func SecretFile(ns, name, key string) string {
	return "/etc/envoy/secrets/" + ns + "/" + name + "/" + key
}

// SecretPlaceholder stands for a Secret value in fields Envoy can only take
// inline (header values, API keys): the value is never read offline, so
// the rendered config names where it comes from instead.
func SecretPlaceholder(ns, name, key string) string {
	return "${secret:" + ns + "/" + name + "#" + key + "}"
}

// ConfigMapPlaceholder stands, like SecretPlaceholder, for ConfigMap data
// a policy points at (a JWKS): kgateway inlines it, gwpol names it.
func ConfigMapPlaceholder(ns, name, key string) string {
	return "${configmap:" + ns + "/" + name + "#" + key + "}"
}

// ClusterTrustBundlePlaceholder stands, like ConfigMapPlaceholder, for the
// certificates of a (cluster-scoped) ClusterTrustBundle.
func ClusterTrustBundlePlaceholder(name string) string {
	return "${clustertrustbundle:" + name + "}"
}

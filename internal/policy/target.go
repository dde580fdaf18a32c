package policy

import (
	"maps"
	"slices"
	"strings"
	"time"

	"google.golang.org/protobuf/proto"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/topology"
)

// Target is a render target: an Envoy build and the closed set of
// capabilities (HTTP filters and route features) it provides, with the
// traits of the xDS structure its controller writes. Capabilities do not
// imply each other. A controller family declares its target in its
// package and internal/families registers it (Registry.AddTargets);
// render reads the traits and never asks which controller it renders for.
// UpstreamTarget (upstream Envoy) is always registered.
type Target struct {
	Name         string
	Capabilities map[string]bool
	// Blackhole: a backendRef that does not resolve keeps its place (and
	// weight) in the route as the cluster render/envoy's BlackholeCluster,
	// which no resource defines, so Envoy answers the requests it would
	// get with 500 (cluster_not_found_response_code): kgateway's
	// translation, and the Gateway API's "500 for the share of an invalid
	// backend". Without it such backendRefs are left out (see
	// InvalidShare) and a rule none of whose backends resolves answers a
	// 500 direct response, as Envoy Gateway writes it.
	// With it, a rule with no backendRefs at all answers the 500 of a
	// replaced resource (XDSNames.InvalidBody), as its controller replaces
	// such a rule (Controller.NoActionReason, merge.NoAction).
	Blackhole bool
	// InvalidShare names the one cluster (which no resource defines) a
	// route sends the summed weight of its backendRefs that take no
	// traffic to, first among its weighted clusters, so that Envoy answers
	// that share of the requests 500 (cluster_not_found_response_code):
	// Envoy Gateway's translation. A rule none of whose backends takes
	// traffic answers a 500 direct response instead.
	InvalidShare string
	// PoliciesOnUnrouted: a route answering 500 because none of its
	// backends resolves, or because a policy on it is invalid, keeps its
	// policies' configuration (of an invalid policy, what its kind keeps:
	// InvalidKeeper) — per-filter configuration, route-level settings,
	// the filters in the chain and the clusters they call — as Envoy
	// Gateway's translator keeps the route's security and traffic
	// features beside its direct response.
	PoliciesOnUnrouted bool
	// HTTPSRedirect writes a RequestRedirect to the https scheme as
	// https_redirect (kgateway's form) rather than scheme_redirect.
	HTTPSRedirect bool
	// RedirectPortsByNumber: a RequestRedirect's port is the filter's,
	// else the well-known one of the scheme the filter names (http 80,
	// https 443), else the listener's; a port of 80 or 443 is then left
	// out of the Location whatever the scheme, and any other kept, as a
	// controller that drops those two port numbers when it writes the
	// redirect does. Unset: the Gateway API's rule — only the well-known
	// port of the scheme the Location uses (the filter's, else the
	// listener's) is left out.
	RedirectPortsByNumber bool
	// PathModifiersAsWritten: the path modifiers of URLRewrite and
	// RequestRedirect are written as the controller's built-in filter
	// writes them: a full path replaced through the pattern .*; a prefix
	// replaced by "/" through ^<the route's written path match>\/*, the
	// root prefix's too; any other replacement as given. Unset: a full
	// path through ^/.*$, only a prefix other than the root replaced by "/"
	// through a regular expression (built from the match as written in
	// the route), and the root prefix's replacement keeping a trailing
	// "/".
	PathModifiersAsWritten bool
	// RedirectFound: a RequestRedirect the model holds without a
	// statusCode answers 302 Found, the controller's own default; unset,
	// the code is left to Envoy's (301). The model holds none but where
	// the route's HTTPRoute CRD gives no default (one given by --crds or
	// the input): the shipped CRD defaults statusCode to 302, which the
	// API server writes and the model decodes (docs/crds.md).
	RedirectFound bool
	// PrefixModifiersEscaped: a ReplacePrefixMatch of "" or "/" on a rule
	// matching a path prefix, the root's too, is written — by URLRewrite
	// and RequestRedirect alike — as the regular expression
	// ^<the prefix as written, its metacharacters escaped>\/* replaced by
	// "/"; any other replacement as given, a URLRewrite's without a
	// trailing "/". Unset (and without PathModifiersAsWritten): the
	// default rule above.
	PrefixModifiersEscaped bool
	// Baseline is what the controller writes on every listener, connection
	// manager and TLS context before policies tune them; nil: Envoy's
	// defaults (and gwpol's few settings every target shares).
	Baseline *ListenerBaseline
	// HTTP10DefaultHost is the host a connection manager serving
	// listener l (for several HTTP listeners sharing a port, the first)
	// gives an HTTP/1.0 request without a Host header, where a field asks
	// for it (Fragment.HTTP10DefaultHost); false when the controller
	// finds none for l, and then it does not accept HTTP/1.0 there at all
	// (its verdict refuses the field on l). Nil: no field asks for it.
	HTTP10DefaultHost func(l *topology.Listener) (string, bool)
	// RequestIdleTimeout gives every route with a request timeout a
	// stream idle timeout, so that the stream does not time out first:
	// an hour, or the request timeout when longer, 0 (none) when the
	// request timeout is 0 — unless the route sets its own or its
	// connection manager sets a stream idle timeout (Envoy Gateway's xDS
	// translation, whatever set the request timeout: the route rule's
	// timeouts.request or a policy).
	RequestIdleTimeout bool
	// DropReplacedClusters leaves out a backend's cluster when every route
	// to it sends to clusters of its rule's own instead (a route-level
	// policy shapes them) and nothing else names it: Envoy Gateway emits
	// only the clusters something refers to. Without it the backend's
	// cluster stays beside the rule clusters.
	DropReplacedClusters bool
	// HostRewriteAppendsXFH: a route whose URLRewrite filter rewrites the
	// hostname also appends the original host to x-forwarded-host
	// (append_x_forwarded_host), as Envoy Gateway's translator sets it for
	// every host rewrite.
	HostRewriteAppendsXFH bool
	// HTTP2AppProtocols, when set, make each Service cluster speak the
	// upstream protocol its port's appProtocol names, and only that:
	// HTTP/2 for these appProtocols, HTTP/1.1 otherwise — also for a
	// GRPCRoute backend or a gRPC extension service whose Service does not
	// say so (kgateway's data plane). Unset: the protocol follows what
	// uses the cluster (upstream Envoy speaks HTTP/2 to those).
	HTTP2AppProtocols []string
	// PortNameIsAppProtocol: a Service port without an appProtocol is
	// taken to speak the protocol its name says (a port named grpc speaks
	// gRPC), as a controller that reads Istio's port-naming convention
	// does. Unset: only appProtocol names a port's protocol.
	PortNameIsAppProtocol bool
	// AppProtocolsFoldCase: an appProtocol (or a port name read as one)
	// names HTTP2AppProtocols and WebSocketAppProtocols whatever its
	// letters' case, so a Service port's `GRPC` or `kubernetes.io/H2C`
	// speaks HTTP/2 (the Service API lets an appProtocol hold upper case;
	// RFC 6335 compares service names case-insensitively). Unset: an
	// appProtocol names one of them only as written.
	AppProtocolsFoldCase bool
	// HeaderAddsFirst: a Gateway API header modifier's add entries are
	// written before its set entries, as the controller converts them, so
	// a header both added and set ends with the set value alone (Envoy
	// applies the options in order). Unset: sets first.
	HeaderAddsFirst bool
	// LiteralHeaderValues: the controller writes a Gateway API header
	// modifier's values as literals, never as Envoy substitution formats,
	// so render doubles each % (Envoy's literal %). Unset: the value is
	// written as given, and Envoy reads a %COMMAND% in it.
	LiteralHeaderValues bool
	// HeaderNamesOnce: within one list of filters (a rule's, or one
	// backendRef's), a header name, compared case-insensitively, is
	// written once per direction: the first add or set of it in the order
	// the entries are written, a later add or set of the same name
	// dropped, and a header removed once. Unset: every entry is written.
	HeaderNamesOnce bool
	// BlackholesInvalidBackendPolicy: a backend's cluster an invalid
	// policy on the backend object merges into is replaced by a blackhole
	// (kgateway), rather than rendered without that policy.
	BlackholesInvalidBackendPolicy bool
	// GRPCFilters: the data plane adds its gRPC filters (gRPC-Web, stats)
	// to a virtual host that serves a GRPCRoute (Envoy Gateway's).
	GRPCFilters bool
	// UnroutedBackendClusters: a Service a backend policy targets has a
	// cluster for each of its ports, and a backend object of a kind that
	// builds its own cluster (kgateway's Backend) has its cluster, whether
	// or not a route of the Gateway uses them. kgateway writes a cluster
	// for every Service port and Backend it watches, routed or not; gwpol
	// writes the routed ones and these, so that a policy's or a Backend's
	// settings show even where no route sends traffic yet (every cluster
	// it writes is one kgateway writes alike).
	UnroutedBackendClusters bool
	// BackendRefDestinations: a backendRef's filters make it a
	// destination of its own, as Envoy Gateway's destination filters do:
	// a rule any of whose backendRefs carries a filter forwards through
	// weighted clusters even to one backend, each keeping its own header
	// modifiers, and a backendRef's URLRewrite hostname rewrites the Host
	// of its share (the weighted cluster's host_rewrite_literal). Without
	// it one backend's header filters go on the route, and a URLRewrite
	// on a backendRef is not applied (kgateway ignores it).
	BackendRefDestinations bool
	// MirrorBackendObjects: a RequestMirror filter's backendRef may be a
	// backend object of a kind the families provide (kgateway's Backend),
	// resolved as a backendRef is, and the mirror copies requests to the
	// cluster built for it. Without it only a Service port is mirrored to.
	MirrorBackendObjects bool
	// MirrorsKeepHost: a mirrored request keeps the Host of the request
	// it copies (the request mirror policy's
	// disable_shadow_host_suffix_append); without it Envoy appends
	// "-shadow" to it.
	MirrorsKeepHost bool
	// ConnectTimeout is the connect timeout the controller writes on
	// every cluster it builds for a backend (and on the cluster a
	// backend an extension plugin registers starts from). 0: Envoy's
	// own default, 5s, written out.
	ConnectTimeout time.Duration
	// WebSocketAppProtocols are the backend appProtocols (a Service
	// port's, a backend object's) that make a route to such a backend
	// upgrade to WebSocket (its upgrade_configs). None: no route upgrades
	// for what its backends speak.
	WebSocketAppProtocols []string
	// HTTPRoutesUpgrade is the upgrade every forwarding route of an
	// HTTPRoute allows, whatever its backends speak (Envoy Gateway lets
	// every HTTP/1.1 route upgrade to WebSocket; a GRPCRoute's route is
	// HTTP/2 and upgrades nothing): written when no policy field sets the
	// route's upgrade configs (those replace it) or keeps upgrades off
	// (Fragment.NoUpgrade). It makes WebSocketAppProtocols moot. "": only
	// WebSocketAppProtocols upgrade.
	HTTPRoutesUpgrade string
	// RegexPathsByLength: among a virtual host's routes, those matching
	// the path by a regular expression come longer expression first, as
	// exact paths and prefixes do. Unset: they keep the order of their
	// routes (age, then namespace and name), since the Gateway API leaves
	// their precedence to the implementation.
	RegexPathsByLength bool
	// GRPCServiceSegments: a GRPCRoute match naming a service alone
	// (type Exact) matches the path prefix /<service> by whole path
	// segments (path_separated_prefix) and ranks as that prefix, as the
	// controller translates a GRPCRoute match into the HTTPRoute match of
	// its path. Unset: the prefix /<service>/.
	GRPCServiceSegments bool
	// PrefixesRankTrimmed: a PathPrefix match ranks among prefixes by the
	// length of its value without trailing slashes, as the Gateway API
	// ignores a trailing slash there (/foo/ ranks as /foo). Unset: by
	// the length of the value as written.
	PrefixesRankTrimmed bool
	// CheckHostClearsEndpointHosts: a backend policy's health check that
	// names the host to send clears the hostname the backend's static
	// endpoints carry in their health_check_config, so that the check's
	// own host is sent. Unset: the endpoints keep theirs, which Envoy
	// sends in place of the check's.
	CheckHostClearsEndpointHosts bool
	// AllCACertificateRefs: the controller reads every CA certificate
	// reference of an upstream TLS validation (a BackendTLSPolicy's
	// caCertificateRefs), their certificates joined into one bundle in
	// their order, as it judges them (Envoy Gateway). Unset: the first
	// reference alone, the others neither judged nor rendered, as the
	// policy kind's own verdict reads them (kgateway's, and that of a
	// Gateway no known controller owns).
	AllCACertificateRefs bool
	// UsableCACertificate, when set, is how the controller reads a CA
	// certificate reference of an upstream TLS validation: the entry it
	// takes the certificate from, and whether it finds one there. The
	// certificates of the usable references are joined into one bundle
	// in their order and the others skipped, and the validation fails
	// only when none is usable (the controller's verdict on the policy,
	// Family.ForeignJudges, says so). Nil: AllCACertificateRefs decides.
	UsableCACertificate func(m *model.Model, ns string, ref model.Key) (entry string, usable bool)
	// GRPCBackendsWholeService: the controller builds a GRPCRoute's
	// backend without reading the Service port's name, so a backend
	// policy naming the port (sectionName) never reaches it, only the
	// whole Service's do (BackendPortName).
	GRPCBackendsWholeService bool
	// StatPrefixSegments: a route's stat prefix, once its route variables
	// are filled (a {{ rule_name }} of an unnamed rule is empty), keeps
	// only its non-empty "."-separated segments, so no stat name gets a
	// leading, doubled or trailing dot. Unset: written as filled.
	StatPrefixSegments bool
	// AnswersKeepPolicies: a rule a policy answers itself (policy.Answerer,
	// a direct response in place of forwarding) keeps the other policies'
	// configuration beside the answer — their per-filter configuration
	// and the filters in the chain (an external authorization still
	// checks the request before it is answered), the route-level settings
	// a route without a route action takes (a stat prefix) — as a
	// controller that applies every policy of the rule in one pass, the
	// answer only setting the route's action, does. Unset: the answer
	// alone, with the rule's merge metadata.
	AnswersKeepPolicies bool
	// EmptyStreamCluster, when set, is the cluster a served TCP, TLS or
	// UDP listener with no route to serve still proxies to: a static
	// cluster without endpoints, so every connection or datagram is
	// dropped. Each port with such a TCP or TLS listener gets one TCP
	// proxy filter chain named after the cluster (no server-name match, no
	// TLS termination, the listener's own connection and TCP proxy
	// settings), and each such UDP listener a UDP proxy to it, as a
	// controller that must give Envoy a filter chain for every listener it
	// writes does. Unset: such a listener is left out (Envoy takes no
	// listener without filter chains).
	EmptyStreamCluster string
	// InvalidDropsStreamRoutes: a TCP or TLS listener that an invalid
	// policy of a kind configuring such listeners reaches
	// (StreamListenerConfigurer; the Gateway's, unless the listener's own
	// policy of the kind replaces it there, or the listener's) serves none
	// of its routes: the controller still writes the listener, with the
	// empty chain where it has one (EmptyStreamCluster). Unset: the routes
	// are served without the invalid policy.
	InvalidDropsStreamRoutes bool
	// Names are how the controller names the xDS resources it writes
	// (XDSNames); Registry.Targets completes the parts its family leaves
	// unset.
	Names XDSNames
	// SessionPersistence is the controller's translation of a route
	// rule's sessionPersistence for one Envoy route of the rule (at): the
	// per-route configuration of Envoy's stateful session filter (a
	// StatefulSessionPerRoute), which render places on the route,
	// turning the filter on there; a nil message where the controller
	// does not translate it (Envoy Gateway reads an HTTPRoute's only).
	// Nil: the first registered target's that has one
	// (Registry.Targets).
	SessionPersistence func(sp *gwv1.SessionPersistence, at SessionSite) proto.Message
	// SessionFilterOrder is the place (HTTPFilter.Order) of the stateful
	// session filter render adds for a rule's sessionPersistence in the
	// controller's chain. 0: after every policy filter, before the gRPC
	// filters and the router.
	SessionFilterOrder int
	// BindIPv6 is the deployment setting (a bool) that chooses the
	// address the Gateway's listeners bind: true, every address, IPv6 and
	// IPv4 (::, ipv4_compat); false, IPv4 only (0.0.0.0). nil: always ::.
	BindIPv6 *Setting
	// GatewayListener is what the controller writes on every Envoy
	// listener of Gateway gw from the Gateway object itself (an
	// annotation it reads), over Baseline and before the policies that
	// tune the listener (which override it). Nil, or a nil message:
	// nothing.
	GatewayListener func(gw *topology.Gateway) proto.Message
	// ExperimentalRuleFields is the deployment setting (a bool) under
	// which the controller reads a route rule's experimental fields
	// render translates itself (an HTTPRoute's or a GRPCRoute's
	// sessionPersistence; a rule's retry is its kinds' RuleFields): false,
	// it ignores them. Nil: always read.
	ExperimentalRuleFields *Setting
	// MirrorFraction is the share of requests the controller mirrors for
	// a RequestMirror f — its percent, its fraction (the Gateway API's
	// default denominator is 100), or neither. Nil: a percent is a share
	// of a hundred, a fraction num*10^6/den millionths in integers
	// (rounded down), neither every request (no runtime fraction).
	MirrorFraction func(f *gwv1.HTTPRequestMirrorFilter) MirrorShare
	// RuleTimeout is the route timeout the controller applies for an
	// HTTPRoute rule's own timeouts ts, as a Go duration string; nil when
	// it applies none. The kinds that translate a rule's timeouts
	// (TargetRuleFielder) take it over their shared Gateway API reading
	// on the routes the target alone serves. Nil: that shared reading.
	RuleTimeout func(ts *gwv1.HTTPRouteTimeouts) *string
	// ServiceHTTP2 decides whether the cluster of a Service port whose
	// appProtocol is appProtocol ("" for none) speaks HTTP/2 upstream,
	// for a GRPCRoute's backendRef or mirror (grpc) or another route's.
	// Nil: HTTP/2 for the appProtocols kubernetes.io/h2c, grpc, http2
	// and h2c, and for a GRPCRoute's backend whatever its appProtocol.
	ServiceHTTP2 func(appProtocol string, grpc bool) bool
	// UpstreamHTTP2 are the HTTP/2 protocol options (a go-control-plane
	// Http2ProtocolOptions) the controller writes on the cluster of a
	// backend that speaks HTTP/2 (a GRPCRoute's, an HTTP/2
	// appProtocol's), which a policy's own HTTP/2 settings may then
	// replace. Nil: none, Envoy's defaults.
	UpstreamHTTP2 proto.Message
	// BackendTransportMatches are the transport socket matches the
	// controller adds, under the deployment cfg, to the cluster of every
	// backend it translates — backend k (a Service, whose port is port,
	// or a backend object) with the annotations it carries — before any
	// policy shapes it (*Cluster_TransportSocketMatch messages). Nil, or
	// none returned: nothing.
	BackendTransportMatches func(k model.Key, port int32, annotations map[string]string, cfg Config) []proto.Message
}

// ListenerAddress is the address the target's listeners bind in the
// deployment cfg (BindIPv6), and whether IPv4 connections reach it as
// IPv4-mapped addresses (Envoy accepts ipv4_compat only on an IPv6
// address).
func (t *Target) ListenerAddress(cfg Config) (address string, ipv4Compat bool) {
	if t.BindIPv6 != nil && !t.BindIPv6.Bool(cfg) {
		return "0.0.0.0", false
	}
	return "::", true
}

// ListenerBaseline is what a controller writes on every listener, HTTP
// connection manager and TLS context of a Gateway before any policy tunes
// them; policy fields' settings go over it (and may turn its settings off,
// Fragment.Unset). Each part is the Envoy message of its resource (a
// Listener, an HttpConnectionManager, a DownstreamTlsContext), built in
// the family's render files; nil parts are Envoy's defaults.
type ListenerBaseline struct {
	Listener proto.Message
	HCM      proto.Message
	TLS      proto.Message
}

// ClusterConnectTimeout is ConnectTimeout, Envoy's default where unset.
func (t Target) ClusterConnectTimeout() time.Duration {
	if t.ConnectTimeout == 0 {
		return 5 * time.Second
	}
	return t.ConnectTimeout
}

// Has reports whether the target provides a capability.
func (t Target) Has(c string) bool { return t.Capabilities[c] }

// List returns the capabilities, sorted.
func (t Target) List() []string { return slices.Sorted(maps.Keys(t.Capabilities)) }

// upstreamCapabilities are the capabilities of upstream Envoy that policy
// fragments may require.
var upstreamCapabilities = []string{
	"route",               // RouteAction / Route / VirtualHost fields (timeouts, retries, rewrites…)
	"tracing",             // per-route tracing overrides
	"local_ratelimit",     // envoy.filters.http.local_ratelimit
	"ratelimit",           // envoy.filters.http.ratelimit (global, rate limit service)
	"cors",                // envoy.filters.http.cors
	"csrf",                // envoy.filters.http.csrf
	"credential_injector", // envoy.filters.http.credential_injector
	"geoip",               // envoy.filters.http.geoip
	"header_mutation",     // envoy.filters.http.header_mutation
	"buffer",              // envoy.filters.http.buffer
	"fault",               // envoy.filters.http.fault
	"jwt_authn",           // envoy.filters.http.jwt_authn
	"ext_authz",           // envoy.filters.http.ext_authz
	"ext_proc",            // envoy.filters.http.ext_proc
	"lua",                 // envoy.filters.http.lua
	"rbac",                // envoy.filters.http.rbac
	"basic_auth",          // envoy.filters.http.basic_auth
	"api_key_auth",        // envoy.filters.http.api_key_auth
	"oauth2",              // envoy.filters.http.oauth2
	"compressor",          // envoy.filters.http.compressor
	"decompressor",        // envoy.filters.http.decompressor
	"response_cache",      // envoy.filters.http.cache
	"custom_response",     // envoy.filters.http.custom_response
}

// UpstreamCapabilities is the capability set of upstream Envoy plus the
// extra ones a build adds (its own filters).
func UpstreamCapabilities(extra ...string) map[string]bool {
	return OnlyCapabilities(append(slices.Clone(upstreamCapabilities), extra...)...)
}

// OnlyCapabilities is a capability set of exactly the names given.
func OnlyCapabilities(caps ...string) map[string]bool {
	m := map[string]bool{}
	for _, c := range caps {
		m[c] = true
	}
	return m
}

// UpstreamTarget is upstream Envoy: every upstream filter and gwpol's
// own choices where a controller's differ — a route to a backend whose
// appProtocol is the Kubernetes WebSocket one upgrades, a health check's
// host is the one sent. It is the default target and is always registered.
var UpstreamTarget = Target{Name: "envoy", Capabilities: UpstreamCapabilities(), Blackhole: true, HTTPSRedirect: true,
	WebSocketAppProtocols: []string{"kubernetes.io/ws"}, CheckHostClearsEndpointHosts: true}

// AddTargets registers the render targets of the families the pipeline
// lists.
func (r *Registry) AddTargets(ts ...Target) { r.targets = append(r.targets, ts...) }

// Targets are the render targets by name: UpstreamTarget and the
// registered ones, each with what its family leaves unset of its Names,
// SessionPersistence and HTTP10DefaultHost (a controller's translation
// of its own fields, whichever target renders them) taken from the first
// registered target that has it (XDSNames).
func (r *Registry) Targets() map[string]Target {
	var registered []Target
	if r != nil {
		registered = r.targets
	}
	out := map[string]Target{}
	for _, t := range append([]Target{UpstreamTarget}, registered...) {
		t.Names = t.Names.completeFrom(registered)
		for _, o := range registered {
			if t.SessionPersistence == nil {
				t.SessionPersistence = o.SessionPersistence
			}
			if t.HTTP10DefaultHost == nil {
				t.HTTP10DefaultHost = o.HTTP10DefaultHost
			}
		}
		out[t.Name] = t
	}
	return out
}

// TargetNames lists the render targets, sorted.
func (r *Registry) TargetNames() []string { return slices.Sorted(maps.Keys(r.Targets())) }

// Target finds a render target by name (case-insensitive); "" is
// UpstreamTarget.
func (r *Registry) Target(name string) (Target, bool) {
	if name == "" {
		name = UpstreamTarget.Name
	}
	t, ok := r.Targets()[strings.ToLower(name)]
	return t, ok
}

// MirrorShare is the share of requests a RequestMirror copies, as a
// controller writes it on the route's request mirror policy
// (Target.MirrorFraction): Numerator out of Denominator (100, 10,000 or
// 1,000,000), or every request with no runtime fraction (Every), or no
// mirror policy at all (Off; the mirror's cluster is still written).
type MirrorShare struct {
	Numerator, Denominator uint32
	Every, Off             bool
}

// DefaultMirrorShare is the share Target.MirrorFraction's nil stands for
// (upstream Envoy's reading of the Gateway API): a percent out of a
// hundred, a fraction in exact millionths rounded down, neither (or a
// denominator that is not positive) every request.
func DefaultMirrorShare(f *gwv1.HTTPRequestMirrorFilter) MirrorShare {
	switch {
	case f.Percent != nil:
		return MirrorShare{Numerator: uint32(max(*f.Percent, 0)), Denominator: 100}
	case f.Fraction != nil:
		den := int32(100)
		if f.Fraction.Denominator != nil {
			den = *f.Fraction.Denominator
		}
		if den > 0 {
			num := max(f.Fraction.Numerator, 0)
			return MirrorShare{Numerator: uint32(int64(num) * 1_000_000 / int64(den)), Denominator: 1_000_000}
		}
	}
	return MirrorShare{Every: true}
}

// BackendPortName is the port name whose backend policies (sectionName)
// configure the cluster of a Service port named name: name itself, but
// "" — the whole Service's policies alone — for a cluster only GRPCRoutes
// send to (grpcOnly) under GRPCBackendsWholeService.
func (t *Target) BackendPortName(name string, grpcOnly bool) string {
	if t != nil && grpcOnly && t.GRPCBackendsWholeService {
		return ""
	}
	return name
}

// SessionSite is the Envoy route a rule's sessionPersistence is
// translated for (Target.SessionPersistence): the route object's Kind,
// Namespace and Name, the rule's index as the target's route names
// number it (RouteName.Rule), and the path match the route serves (nil
// for a rule without matches, which matches every path).
type SessionSite struct {
	Kind, Namespace, Name string
	Rule                  int
	Path                  *gwv1.HTTPPathMatch
}

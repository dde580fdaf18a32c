package envoygateway

import (
	"time"

	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	listenerv3 "github.com/envoyproxy/go-control-plane/envoy/config/listener/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	tlsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/transport_sockets/tls/v3"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
	"github.com/gwpol/gwpol/internal/topology"
)

// InvalidBackendCluster is the cluster Envoy Gateway's routes name for the
// share of their backendRefs that take no traffic (policy.Target.InvalidShare);
// no resource defines it.
const InvalidBackendCluster = "invalid-backend-cluster"

// emptyCluster is the static cluster without endpoints Envoy Gateway's
// listeners without routes proxy to (policy.Target.EmptyStreamCluster).
const emptyCluster = "EmptyCluster"

// Target is the render target of Envoy Gateway's data plane: upstream
// Envoy's filters (its policy kinds place their configuration on each
// route, see policy.WholeOverrider), with the xDS structure Envoy
// Gateway's translator writes.
var Target = policy.Target{Name: "envoygateway", Capabilities: policy.UpstreamCapabilities(), InvalidShare: InvalidBackendCluster,
	PoliciesOnUnrouted: true, Baseline: baseline(), RequestIdleTimeout: true, DropReplacedClusters: true, HostRewriteAppendsXFH: true,
	GRPCFilters: true, BackendRefDestinations: true, Names: XDSNames,
	ConnectTimeout: connectTimeout,
	// A TCP or TLS listener no route is served on still gets a TCP proxy
	// chain, once per Envoy listener, to the static EmptyCluster, and a
	// UDP listener without a route a UDP proxy to it (xds translator
	// translator.go: processTCPListenerXdsTranslation,
	// processUDPListenerXdsTranslation; listener.go: addXdsTCPFilterChain
	// with a route that has no TLS).
	EmptyStreamCluster: emptyCluster,
	// A ClientTrafficPolicy that fails on a TCP or TLS listener removes
	// the listener's routes, so its connections go to EmptyCluster
	// (clienttrafficpolicy.go: translateClientTrafficPolicyForListener,
	// "tcpIR.Routes = nil").
	InvalidDropsStreamRoutes: true,
	// The stateful session filter a rule's sessionPersistence turns on
	// sits after JWT authentication, before buffering and the extensions
	// (xds translator httpfilters.go: newOrderedHTTPFilter).
	SessionFilterOrder: orderStatefulSession,
	// and the session's cookie or header is named after the route's rule
	// unless the rule names it (render_session.go).
	SessionPersistence: sessionPersistence,
	// A RequestMirror copies requests to the destination it builds for
	// its backendRef, an Envoy Gateway Backend too (gatewayapi filters.go:
	// processRequestMirrorFilter → processDestination), with the Host
	// unchanged (xds route.go: buildXdsRequestMirrorPolicies).
	MirrorBackendObjects: true, MirrorsKeepHost: true,
	// A header modifier's adds are converted before its sets, and a name
	// (EqualFold) the rule's (or the backendRef's) filters already add or
	// set is not added or set again, nor a header removed twice
	// (gatewayapi filters.go: processRequestHeaderModifierFilter,
	// processResponseHeaderModifierFilter).
	HeaderAddsFirst: true, HeaderNamesOnce: true,
	// A redirect without a port takes its scheme's well-known port, else
	// the listener's (gatewayapi route.go:
	// processHTTPRouteParentRefListener), and the xDS translator leaves out
	// port 80 and 443 whatever the scheme (xds route.go:
	// buildXdsRedirectAction).
	RedirectPortsByNumber: true,
	// A prefix replaced by "" or "/" is a regular expression of the
	// escaped prefix, on a URLRewrite and a redirect alike; a URLRewrite's
	// other prefix replacement loses its trailing "/" (xds route.go:
	// useRegexRewriteForPrefixMatchReplace, prefix2RegexRewrite,
	// buildXdsURLRewriteAction, buildXdsRedirectAction).
	PrefixModifiersEscaped: true,
	// Its mirror shares are float32 percentages in millionths, a zero
	// one no mirror (render_mirror.go).
	MirrorFraction: mirrorFraction,
	// A Service port's upstream protocol: the route kind's, refined by
	// the port's appProtocol (render_mirror.go).
	ServiceHTTP2: serviceHTTP2,
	// A cluster speaking HTTP/2 gets Envoy Gateway's window sizes (xds
	// translator cluster.go buildHTTP2Settings).
	UpstreamHTTP2: http2Windows(),
	// Its xDS translator lets every HTTP/1.1 route (not a GRPCRoute's)
	// upgrade to WebSocket unless a BackendTrafficPolicy lists the
	// upgrades or buffers requests (xds route.go: buildUpgradeConfig),
	// whatever appProtocol its backends give.
	HTTPRoutesUpgrade: "websocket",
	// Envoy Gateway sorts a listener's routes by the characters of their
	// path match, regular expressions included (gatewayapi sort.go:
	// XdsIRRoutes, pathMatchCount).
	RegexPathsByLength: true,
	// It joins every CA certificate reference of a BackendTLSPolicy into
	// one bundle (gatewayapi backendtlspolicy.go: getCaCertsFromCARefs),
	// as its own verdict on the policy reads them.
	AllCACertificateRefs: true,
	// A ClientTrafficPolicy's http1.http10.useDefaultHost: the host
	// translateHTTP1Settings picks for the listener, or none, and then the
	// policy is refused there.
	HTTP10DefaultHost: func(l *topology.Listener) (string, bool) {
		host, problem := listenerDefaultHost(l)
		return host, problem == ""
	}}

// connectTimeout is the connect timeout of every cluster Envoy Gateway
// writes where no BackendTrafficPolicy sets one (xds translator,
// cluster.go: buildConnectTimeout's tcpClusterPerConnectTimeout).
const connectTimeout = 10 * time.Second

// baseline is what Envoy Gateway writes on every listener before its
// policies: a 32 KiB connection buffer and one connection accepted per
// socket event; requests with underscores in header names rejected,
// escaped slashes unescaped and redirected, its HTTP/2 window sizes and
// stream limit; TLS 1.2 to 1.3, no session resumption, ALPN h2 and
// http/1.1.
func baseline() *policy.ListenerBaseline {
	return &policy.ListenerBaseline{
		Listener: &listenerv3.Listener{
			PerConnectionBufferLimitBytes:        wrapperspb.UInt32(32768),
			MaxConnectionsToAcceptPerSocketEvent: wrapperspb.UInt32(1),
		},
		HCM: &hcmv3.HttpConnectionManager{
			CommonHttpProtocolOptions: &corev3.HttpProtocolOptions{
				HeadersWithUnderscoresAction: corev3.HttpProtocolOptions_REJECT_REQUEST,
			},
			Http2ProtocolOptions: &corev3.Http2ProtocolOptions{
				InitialConnectionWindowSize: wrapperspb.UInt32(1048576),
				InitialStreamWindowSize:     wrapperspb.UInt32(65536),
				MaxConcurrentStreams:        wrapperspb.UInt32(100),
			},
			PathWithEscapedSlashesAction: hcmv3.HttpConnectionManager_UNESCAPE_AND_REDIRECT,
		},
		TLS: &tlsv3.DownstreamTlsContext{
			CommonTlsContext: &tlsv3.CommonTlsContext{
				TlsParams: &tlsv3.TlsParameters{
					TlsMinimumProtocolVersion: tlsv3.TlsParameters_TLSv1_2,
					TlsMaximumProtocolVersion: tlsv3.TlsParameters_TLSv1_3,
				},
				AlpnProtocols: []string{"h2", "http/1.1"},
			},
			DisableStatefulSessionResumption: true,
			SessionTicketKeysType:            &tlsv3.DownstreamTlsContext_DisableStatelessSessionResumption{DisableStatelessSessionResumption: true},
		},
	}
}

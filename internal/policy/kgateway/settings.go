package kgateway

import (
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// kgateway's controller settings (its KGW_* environment, read into
// pkg/settings' Settings) that change what it does with the same
// manifests: top-level keys of .gwpol.yaml under the lower-camel-case
// names of kgateway's own, with its defaults.
var (
	EnableAuthMetadata = policy.Setting{Key: "enableAuthMetadata", Default: false,
		Doc:    "true: every authentication filter is followed by one that records auth_succeeded=true under dev.kgateway.auth_policy where the request passed it",
		Source: "pkg/settings/settings.go: Settings.EnableAuthMetadata (KGW_ENABLE_AUTH_METADATA)"}
	EnableExperimentalGatewayAPIFeatures = policy.Setting{Key: "enableExperimentalGatewayAPIFeatures", Default: true,
		Doc:    "kgateway's switch for the Gateway API's experimental kinds and fields: false, it watches no TCPRoute and no TLSRoute, so they attach to none of its Gateways and take no status from it, and their TCP and TLS listeners carry nothing; it reads no gateway.networking.x-k8s.io XListenerSet (true: an XListenerSet is a listener set of its parent Gateway, named XListenerSet in status and by the parentRefs and targetRefs that select it); and it ignores an HTTPRoute rule's retry and an HTTPRoute's or GRPCRoute's rule sessionPersistence",
		Source: "pkg/pluginsdk/collections/setup.go: CommonCollections.InitCollections (TCPRoute and TLSRoute collections empty, and no legacy XListenerSets joined to the ListenerSets, unless Settings.EnableExperimentalGatewayAPIFeatures; KGW_ENABLE_EXPERIMENTAL_GATEWAY_API_FEATURES); pkg/krtcollections/builtin.go: RoutesIndex.buildHTTPRouteRulePolicy"}
	WeightedRoutePrecedence = policy.Setting{Key: "weightedRoutePrecedence", Default: false,
		Doc:    "true: a route's kgateway.dev/route-weight orders its Envoy routes ahead of the Gateway API's precedence (routes of equal weight keep it; the default weight is 0)",
		Source: "pkg/settings/settings.go: Settings.WeightedRoutePrecedence (KGW_WEIGHTED_ROUTE_PRECEDENCE)"}
	EnableRouteSourceMetadata = policy.Setting{Key: "enableRouteSourceMetadata", Default: false,
		Doc:    "true: every Envoy route carries dev.kgateway.route_source filter metadata naming the route object, rule and match it comes from (rendered under every target)",
		Source: "pkg/settings/settings.go: Settings.EnableRouteSourceMetadata (KGW_ENABLE_ROUTE_SOURCE_METADATA)"}
	EnableAwsEc2Discovery = policy.Setting{Key: "enableAwsEc2Discovery", Default: false,
		Doc:    "kgateway's discovery of AWS EC2 instances for AWS EC2 Backends: false, kgateway refuses such a Backend (its status Accepted False, GWP221); gwpol never calls AWS, and reports one it accepts as not translated offline",
		Source: "pkg/settings/settings.go: Settings.EnableAwsEc2Discovery"}
	EnableIstioAutoMtls = policy.Setting{Key: "enableIstioAutoMtls", Default: false,
		Doc:    "true: every backend's cluster (a Service port's, a Backend's) carries Istio's two transport socket matches — mutual TLS with Istio's SDS certificates to endpoints labelled tlsMode istio, plain text to the others — unless the Service or Backend is annotated kgateway.dev/disable-istio-auto-mtls true",
		Source: "api/settings/settings.go: Settings.EnableIstioAutoMtls (KGW_ENABLE_ISTIO_AUTO_MTLS); pkg/kgateway/extensions2/plugins/istio/plugin.go: istioPlugin.processBackend"}
	DiscoveryNamespaceSelectors = policy.Setting{Key: "discoveryNamespaceSelectors", Default: []any{},
		Doc:    "the label selectors of the namespaces kgateway discovers resources in (empty: all); gwpol reads the namespaces of its input and takes the key for a configuration that sets it",
		Source: "pkg/settings/settings.go: Settings.DiscoveryNamespaceSelectors (KGW_DISCOVERY_NAMESPACE_SELECTORS)"}
	ExtensionBackends = policy.Setting{Key: "extensionBackends", Default: []any{},
		Doc:    "the backends the extension plugins of a kgateway build register ({group, kind, namespace, name, port} each; kgateway alone registers none): a backendRef of such a kind resolves to the entry of its namespace, name and port (ResolvedRefs True; its cluster <kind lower-cased>_<namespace>_<name>_<port>, which the plugin completes), any other of that kind is BackendNotFound",
		Source: "extensions2/plugin: Plugin.ContributesBackends (BackendPlugin.Backends), registered by a build's extra plugins (test/translator/test.go registers test-backend-plugin so); krtcollections/policy.go: BackendIndex.getBackend (by kind, then namespace/name and port)",
		Check:  policy.CheckExtensionBackends("extensionBackends")}
	DNSLookupFamily = policy.Setting{Key: "dnsLookupFamily", Default: "V4_PREFERRED", Choices: []string{"V4_PREFERRED", "V4_ONLY", "V6_ONLY", "ALL", "AUTO"},
		Doc:    "the address family the DNS clusters of Backends (static hosts by name, AWS Lambda, GCP) look names up in; kgateway's default V4_PREFERRED, not Envoy's AUTO",
		Source: "api/settings/settings.go: Settings.DnsLookupFamily (KGW_DNS_LOOKUP_FAMILY); translator/irtranslator/backend.go: processDnsLookupFamily"}
	ListenerBindIPv6 = policy.Setting{Key: "listenerBindIpv6", Default: true,
		Doc:    "the address the Gateway's Envoy listeners bind: true, :: with ipv4_compat (IPv6 and IPv4 clients); false, 0.0.0.0 (IPv4 only, no ipv4_compat)",
		Source: "api/settings/settings.go: Settings.ListenerBindIpv6 (KGW_LISTENER_BIND_IPV6); translator/listener/gateway_listener_translator.go: MergedListener.TranslateListener (bindAddress); translator/irtranslator/gateway.go (Ipv4Compat only on a non-IPv4 address)"}
	ValidationMode = policy.Setting{Key: "validationMode", Default: "Standard", Choices: []string{"Standard", "Strict"},
		Doc:    "how invalid routes and policies are handled: Standard replaces what an invalid rule or policy breaks with a direct response (500); Strict also refuses what Envoy's own validation of the generated configuration would (regular expressions, substitution formats, transformation templates, upstream TLS)",
		Source: "api/settings/settings.go: Settings.ValidationMode (KGW_VALIDATION_MODE: STANDARD, STRICT)"}
	ReferenceGrantMode = policy.Setting{Key: "referenceGrantMode", Default: "Permissive", Choices: []string{"Strict", "Permissive", "Off"},
		Doc:    "which references into another namespace need a ReferenceGrant: Permissive, backendRefs, mirrors, listener certificates and a policy's Secrets and backends; Strict, also a TrafficPolicy's GatewayExtension references; Off, none",
		Source: "api/settings/settings.go: Settings.ReferenceGrantMode (KGW_REFERENCE_GRANT_MODE: OFF, PERMISSIVE, STRICT); pkg/krtcollections/policy.go: NewRefGrantIndex, ReferenceAllowed (Off allows every reference: devel/reference_grant/reference-grant-mode.md)"}
	GlobalPolicyNamespace = policy.Setting{Key: "globalPolicyNamespace", Default: "",
		Doc:    "the namespace whose policies' targetSelectors select targets in every namespace, not only their own; empty: none",
		Source: "api/settings/settings.go: Settings.GlobalPolicyNamespace (KGW_GLOBAL_POLICY_NAMESPACE)"}
	PolicyMerge = policy.Setting{Key: "policyMerge", Default: map[string]any{},
		Doc:    "how the policies of one level merge a field that can merge deep, by kind and field ({trafficPolicy: {extAuth: DeepMerge}}): DeepMerge keeps every policy's (extAuth, extProc, transformation; acl by default), ShallowMerge the first policy's only",
		Source: "api/settings/settings.go: Settings.PolicyMerge (KGW_POLICY_MERGE, JSON)",
		Check:  checkPolicyMerge}
	KgatewayVersion = policy.Setting{Key: "kgatewayVersion", Default: "",
		Doc:    "the kgateway release, which its OpenTelemetry access logs report as service.version; empty: not reported",
		Source: "the controller's build version (OpenTelemetry access log resource attribute service.version)"}
)

// Settings are kgateway's deployment settings.
var Settings = []policy.Setting{EnableAuthMetadata, EnableExperimentalGatewayAPIFeatures, WeightedRoutePrecedence,
	EnableRouteSourceMetadata, EnableAwsEc2Discovery, EnableIstioAutoMtls, DiscoveryNamespaceSelectors, ExtensionBackends, DNSLookupFamily, ListenerBindIPv6, KgatewayVersion,
	ValidationMode, ReferenceGrantMode, GlobalPolicyNamespace, PolicyMerge}

// unwatchedRoutes says why kgateway, under cfg, reads no route of a kind:
// it builds collections of HTTPRoutes, GRPCRoutes, TCPRoutes and TLSRoutes
// only, so a UDPRoute is never read; and with
// enableExperimentalGatewayAPIFeatures false the TCPRoute and TLSRoute
// collections are empty (CommonCollections.InitCollections builds static
// empty collections in their place). It neither serves nor reports them.
// unreadListenerSets is why kgateway does not read listener sets of a kind
// other than the v1 ListenerSet (policy.Family.UnreadListenerSets): it
// reads the experimental XListenerSet beside them only when
// enableExperimentalGatewayAPIFeatures is true (its default), converted to
// the v1 shape with its own kind kept, so its status, the parentRefs and
// policy targetRefs that select it name XListenerSet
// (pluginsdk/collections/setup.go: InitCollections,
// convertLegacyXListenerSetToV1), and no other kind.
func unreadListenerSets(gk model.GroupKind, cfg policy.Config) string {
	switch {
	case gk != model.XListenerSetKind:
		return "kgateway reads no " + gk.Group + "/" + gk.Kind
	case !EnableExperimentalGatewayAPIFeatures.Bool(cfg):
		return "kgateway reads no XListenerSet: enableExperimentalGatewayAPIFeatures is false"
	}
	return ""
}

func unwatchedRoutes(kind string, cfg policy.Config) string {
	switch {
	case kind == "UDPRoute":
		return "kgateway watches no UDPRoutes (only HTTPRoutes, GRPCRoutes, TCPRoutes and TLSRoutes)"
	case (kind == "TCPRoute" || kind == "TLSRoute") && !EnableExperimentalGatewayAPIFeatures.Bool(cfg):
		return "kgateway does not watch " + kind + "s: enableExperimentalGatewayAPIFeatures is false"
	}
	return ""
}

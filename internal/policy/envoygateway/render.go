package envoygateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// fieldRenderer renders the value of one field in effect on a route (the
// policies' values already merged, see effectiveValue) in the shape Envoy
// Gateway's translator gives it. who is the policy whose value it is (the
// most specific contributor), for names Envoy Gateway derives from it.
type fieldRenderer func(v *fieldValue, who policyName) ([]policy.Fragment, error)

// policyName is a policy as Envoy Gateway names it in filter names
// (<kind lower-cased>/<namespace>/<name>). merged, where the policy's
// value is in effect through a merge (mergeType), is the name of the
// merged result: the most specific policy's, whether or not it set the
// field (policy.FieldInput.Whole).
type policyName struct {
	kind, namespace, name string
	merged                *policyName
}

func (p policyName) String() string { return p.kind + "/" + p.namespace + "/" + p.name }

// result is the name Envoy Gateway gives what it builds from the policy
// in effect: the merged result's where there is a merge, else the
// policy's own. SecurityPolicy's filters do not use it: Envoy Gateway
// names each after the field's owner in the merge (the policy that set it,
// buildSecurityPolicyOwners), which is p itself. (References in the value still resolve in the
// namespace of the policy that set it, p.namespace.)
func (p policyName) result() policyName {
	if p.merged != nil {
		return *p.merged
	}
	return p
}

// renderers are the fields rendered so far, by Kind.field; one file per
// kind holds them (render_<kind>.go). Every other field asks for a
// capability no render target has, so render reports it as unsupported
// (GWP404) and the routes it applies to fail closed rather than dropping
// the field silently.
var renderers = map[string]fieldRenderer{
	"BackendTrafficPolicy.compression":       typed[[]*egv1a1.Compression]("compression", renderCompression),
	"BackendTrafficPolicy.compressor":        typed[[]*egv1a1.Compression]("compressor", renderCompressor),
	"BackendTrafficPolicy.faultInjection":    typed[*egv1a1.FaultInjection]("faultInjection", renderFaultInjection),
	"BackendTrafficPolicy.httpUpgrade":       typed[[]*egv1a1.ProtocolUpgradeConfig]("httpUpgrade", renderHTTPUpgrade),
	"BackendTrafficPolicy.circuitBreaker":    typed[*egv1a1.CircuitBreaker]("circuitBreaker", renderCircuitBreaker),
	"BackendTrafficPolicy.loadBalancer":      typed[*egv1a1.LoadBalancer]("loadBalancer", renderLoadBalancer),
	"BackendTrafficPolicy.useClientProtocol": typed[*bool]("useClientProtocol", renderUseClientProtocol),
	"BackendTrafficPolicy.dns":               typed[*egv1a1.DNS]("dns", renderDNS),
	"BackendTrafficPolicy.routingType":       typed[*egv1a1.RoutingType]("routingType", renderRoutingType),
	"BackendTrafficPolicy.timeout":           typed[*egv1a1.Timeout]("timeout", renderTimeout),
	"BackendTrafficPolicy.tcpKeepalive":      typed[*egv1a1.TCPKeepalive]("tcpKeepalive", renderTCPKeepalive),
	"BackendTrafficPolicy.connection":        typed[*egv1a1.BackendConnection]("connection", renderConnection),
	"BackendTrafficPolicy.proxyProtocol":     typed[*egv1a1.ProxyProtocol]("proxyProtocol", renderProxyProtocol),
	"BackendTrafficPolicy.healthCheck":       typed[*egv1a1.HealthCheck]("healthCheck", renderHealthCheck),
	"BackendTrafficPolicy.requestBuffer":     typed[*egv1a1.RequestBuffer]("requestBuffer", renderRequestBuffer),
	"BackendTrafficPolicy.retry":             typed[*egv1a1.Retry]("retry", renderRetry),
	"BackendTrafficPolicy.telemetry":         typed[*egv1a1.BackendTelemetry]("telemetry", renderTelemetry),
	"HTTPRouteFilter.urlRewrite":             typed[*egv1a1.HTTPURLRewriteFilter]("urlRewrite", renderURLRewrite),
	"SecurityPolicy.basicAuth":               typed[*egv1a1.BasicAuth]("basicAuth", renderBasicAuth),
	"SecurityPolicy.cors":                    typed[*egv1a1.CORS]("cors", renderCORS),
	"SecurityPolicy.csrf":                    typed[*egv1a1.CSRF]("csrf", renderCSRF),
	"HTTPRouteFilter.credentialInjection":    typed[*egv1a1.HTTPCredentialInjectionFilter]("credentialInjection", renderCredentialInjection),
	"HTTPRouteFilter.matches":                typed[[]egv1a1.HTTPRouteMatchFilter]("matches", renderFilterMatches),
	"SecurityPolicy.jwt":                     typed[*egv1a1.JWT]("jwt", renderJWT),
}

// scopedRenderers are the fields whose rendering depends on the Envoy
// resource the merge configures (ClientTrafficPolicy's connection
// manager settings, see render_clienttrafficpolicy.go).
var scopedRenderers = map[string]func(v *fieldValue, who policyName, at placement) ([]policy.Fragment, error){
	"ClientTrafficPolicy.clientIPDetection":   typedWith[*egv1a1.ClientIPDetectionSettings]("clientIPDetection", renderClientIPDetection),
	"ClientTrafficPolicy.connection":          typedWith[*egv1a1.ClientConnection]("connection", renderClientConnection),
	"ClientTrafficPolicy.enableProxyProtocol": typedWith[*bool]("enableProxyProtocol", renderEnableProxyProtocol),
	"ClientTrafficPolicy.grpc":                typedWith[*egv1a1.GRPCSettings]("grpc", renderGRPC),
	"ClientTrafficPolicy.headers":             typedWith[*egv1a1.HeaderSettings]("headers", renderHeaders),
	"ClientTrafficPolicy.http1":               typedWith[*egv1a1.HTTP1Settings]("http1", renderHTTP1),
	"ClientTrafficPolicy.http2":               typedWith[*egv1a1.HTTP2Settings]("http2", renderClientHTTP2),
	"ClientTrafficPolicy.http3":               typedWith[*egv1a1.HTTP3Settings]("http3", renderHTTP3),
	"ClientTrafficPolicy.path":                typedWith[*egv1a1.PathSettings]("path", renderPath),
	"ClientTrafficPolicy.proxyProtocol":       typedWith[*egv1a1.ProxyProtocolSettings]("proxyProtocol", renderClientProxyProtocol),
	"ClientTrafficPolicy.scheme":              typedWith[*egv1a1.SchemeHeaderTransform]("scheme", renderScheme),
	"ClientTrafficPolicy.tcpKeepalive":        typedWith[*egv1a1.TCPKeepalive]("tcpKeepalive", renderClientTCPKeepalive),
	"ClientTrafficPolicy.timeout":             typedWith[*egv1a1.ClientTimeout]("timeout", renderClientTimeout),
	"ClientTrafficPolicy.tls":                 typedWith[*egv1a1.ClientTLSSettings]("tls", renderClientTLS),
}

// inputRenderers are the fields rendered from each contributor's value
// apart rather than from the merged value, and from the deployment's
// settings (the rate limits, render_ratelimit.go).
var inputRenderers = map[string]func(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error){
	"BackendTrafficPolicy.rateLimit": renderRateLimit,
}

// modelRenderers are the fields whose rendering reads other objects of
// the input (the Backend an extension service is, the keys of a ConfigMap a
// response body comes from).
var modelRenderers = map[string]func(v *fieldValue, who policyName, m *model.Model) ([]policy.Fragment, error){
	"SecurityPolicy.authorization":          typedWith[*egv1a1.Authorization]("authorization", renderAuthorization),
	"SecurityPolicy.extAuth":                typedWith[*egv1a1.ExtAuth]("extAuth", renderExtAuth),
	"BackendTrafficPolicy.responseOverride": typedWith[[]*egv1a1.ResponseOverride]("responseOverride", renderResponseOverride),
	"HTTPRouteFilter.directResponse":        typedWith[*egv1a1.HTTPDirectResponseFilter]("directResponse", renderDirectResponse),
}

// OverridesWhole implements policy.WholeOverrider: BackendTrafficPolicy,
// SecurityPolicy and EnvoyExtensionPolicy do (a route's policy replaces
// its Gateway's, or merges into it with spec.mergeType).
// ClientTrafficPolicy configures listeners, and HTTPRouteFilter is used
// by reference, so neither does.
func (k *Kind) OverridesWhole() bool { return k.mergeable }

// ConfiguresStreamListeners implements policy.StreamListenerConfigurer:
// ClientTrafficPolicy does, as Envoy Gateway applies a policy on a TCP or
// TLS listener to that listener's TCP proxy chains.
func (k *Kind) ConfiguresStreamListeners() bool { return k == clientTrafficPolicy }

var _ policy.StreamListenerConfigurer = (*Kind)(nil)

// ProcessingOrder implements policy.WholeOverrider: Envoy Gateway's.
func (k *Kind) ProcessingOrder(a, b *policy.Policy) int { return processingOrder(a, b) }

// ReplacedOnMerge implements policy.WholeOverrider: EnvoyExtensionPolicy's
// fields are lists its API gives no patch strategy, so a route's list
// replaces its Gateway's under StrategicMerge as under JSONMerge (Envoy
// Gateway merges the policies with Kubernetes' strategic merge patch).
func (k *Kind) ReplacedOnMerge(string) bool { return k == envoyExtensionPolicy }

// MergesInto implements policy.WholeOverrider: spec.mergeType.
func (k *Kind) MergesInto(p *policy.Policy) policy.Strategy {
	switch decoded(p).mergeType {
	case "StrategicMerge":
		return policy.StrategicMerge
	case "JSONMerge":
		return policy.JSONMerge
	}
	return ""
}

// RenderField implements policy.Renderer.
func (k *Kind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if ir, ok := inputRenderers[k.name+"."+in.Key]; ok && len(in.Values) > 0 {
		return ir(in, env)
	}
	r, ok := renderers[k.name+"."+in.Key]
	if mr, withModel := modelRenderers[k.name+"."+in.Key]; withModel {
		var m *model.Model
		if env != nil {
			m = env.Model
		}
		r, ok = func(v *fieldValue, who policyName) ([]policy.Fragment, error) { return mr(v, who, m) }, true
	}
	if sr, scoped := scopedRenderers[k.name+"."+in.Key]; scoped {
		r, ok = func(v *fieldValue, who policyName) ([]policy.Fragment, error) {
			return sr(v, who, placement{scope: in.Scope, sharedPort: in.SharedPort})
		}, true
	}
	if er, withEnv := envRenderers[k.name+"."+in.Key]; withEnv && len(in.Values) > 0 {
		return er(in, env, k.contributor(in))
	}
	if !ok || len(in.Values) == 0 {
		return []policy.Fragment{{Capability: "envoygateway." + k.name + "." + in.Key, Reason: unrenderable[k.name+"."+in.Key]}}, nil
	}
	v, err := effectiveValue(in)
	if err != nil {
		return nil, err
	}
	return r(v, k.contributor(in))
}

// contributor is the policy whose value of the field is in effect, the
// most specific contributor, named as Envoy Gateway names it.
func (k *Kind) contributor(in policy.FieldInput) policyName {
	who := policyName{kind: lower(k.name)}
	if len(in.Contributors) > 0 {
		who.namespace, who.name = splitID(in.Contributors[0])
	}
	if in.Whole != "" {
		m := policyName{kind: who.kind}
		m.namespace, m.name = splitID(in.Whole)
		who.merged = &m
	}
	return who
}

// splitID takes namespace and name from a policy ID
// (group/kind/namespace/name).
func splitID(id string) (string, string) {
	parts := strings.Split(id, "/")
	if len(parts) < 4 {
		return "", id
	}
	return parts[len(parts)-2], parts[len(parts)-1]
}

// effectiveValue is the field's value in effect: the single policy's, or,
// where a route's policy merges into its Gateway's (mergeType), the
// values merged most specific last. JSONMerge is RFC 7386: objects merge
// key by key, lists and scalars are replaced, null removes. StrategicMerge
// also merges the lists Envoy Gateway's types tag for it (strategicLists:
// a route's Brotli compressor merged over its Gateway's Gzip one keeps
// both): the route's items first, then the Gateway's that the route's do
// not name again (same type or name for objects, same value for scalars).
func effectiveValue(in policy.FieldInput) (*fieldValue, error) {
	vals := make([]*fieldValue, len(in.Values))
	for i, v := range in.Values {
		fv, err := valueOf(v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Key, err)
		}
		vals[i] = fv
	}
	if len(vals) == 1 {
		return vals[0], nil
	}
	// The merge works on several policies' documents as JSON (RFC 7386), not on one typed spec.
	var doc any
	if err := json.Unmarshal(vals[len(vals)-1].raw, &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Key, err)
	}
	strategic := in.Strategy == policy.StrategicMerge
	for _, v := range slices.Backward(vals[:len(vals)-1]) {
		// Each less specific policy's document, a patch of the merge.
		var patch any
		if err := json.Unmarshal(v.raw, &patch); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Key, err)
		}
		doc = mergePatch(doc, patch, strategic, in.Key)
	}
	raw, err := json.Marshal(doc)
	if err != nil {
		return nil, err
	}
	return &fieldValue{raw: raw}, nil
}

// mergePatch applies a merge patch (RFC 7386) to the value at path (a
// spec field path, "" for the spec). A strategic merge is Envoy Gateway's
// utils.Merge through the API machinery's strategic merge patch, which
// merges a list only where the Go type tags it patchStrategy "merge"
// (strategicLists) and replaces every other, as RFC 7386 does.
func mergePatch(doc, patch any, strategic bool, path string) any {
	if pl, ok := patch.([]any); ok && strategic && strategicLists[path] {
		if dl, ok := doc.([]any); ok {
			return mergeLists(dl, pl)
		}
	}
	p, ok := patch.(map[string]any)
	if !ok {
		return patch
	}
	d, ok := doc.(map[string]any)
	if !ok {
		d = map[string]any{}
	}
	out := make(map[string]any, len(d)+len(p))
	for k, v := range d {
		out[k] = v
	}
	for k, v := range p {
		if v == nil {
			delete(out, k)
			continue
		}
		at := k
		if path != "" {
			at = path + "." + k
		}
		out[k] = mergePatch(out[k], v, strategic, at)
	}
	return out
}

// strategicLists are the policy spec lists Envoy Gateway's API types tag
// patchStrategy "merge" at v1.9.0 (by the patchMergeKey type or name,
// which sameItem reads): BackendTrafficPolicy's compression, compressor
// and httpUpgrade, SecurityPolicy's ext auth context extensions. Under a
// strategic merge every other list of a route's policy replaces its
// parent's (JWT providers, authorization rules, CORS origins, external
// processors, Wasm modules, …).
var strategicLists = map[string]bool{
	"compression": true, "compressor": true, "httpUpgrade": true, "extAuth.contextExtensions": true,
}

// mergeLists is the patch's items, then the document's items the patch
// does not name again.
func mergeLists(doc, patch []any) []any {
	out := slices.Clone(patch)
	for _, d := range doc {
		if !slices.ContainsFunc(patch, func(p any) bool { return sameItem(d, p) }) {
			out = append(out, d)
		}
	}
	return out
}

// sameItem: two list items name the same thing — objects by their type
// or name, scalars by value.
func sameItem(a, b any) bool {
	am, aok := a.(map[string]any)
	bm, bok := b.(map[string]any)
	if aok != bok {
		return false
	}
	if !aok {
		return a == b
	}
	for _, k := range []string{"type", "name"} {
		if av, ok := am[k]; ok {
			return av == bm[k]
		}
	}
	return false
}

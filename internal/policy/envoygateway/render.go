package envoygateway

import (
	"encoding/json"
	"fmt"
	"reflect"
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
	// at is where the value rendered was written, for the checks that
	// judge what the user set (unrenderedFields); zero for a merged value.
	at writtenAt
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
	"BackendTrafficPolicy.http2":             typed[*egv1a1.HTTP2Settings]("http2", renderUpstreamHTTP2),
	"BackendTrafficPolicy.admissionControl":  typed[*egv1a1.AdmissionControl]("admissionControl", renderAdmissionControl),
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

// ReplacedOnMerge implements policy.WholeOverrider: Envoy Gateway merges
// the policies with Kubernetes' strategic merge patch (or a JSON merge
// patch), which merges objects key by key and lists only where the API
// type marks them patchStrategy=merge (a BackendTrafficPolicy's
// compressor and httpUpgrade); a merging policy's value of any other
// list (EnvoyExtensionPolicy's lua, wasm and extProc, a
// BackendTrafficPolicy's responseOverride) or scalar replaces the less
// specific policy's whole, under either mergeType (mergeSpecs).
func (k *Kind) ReplacedOnMerge(key string) bool {
	t, ok := specTypes[k.name]
	if !ok {
		return false
	}
	idx, ok := jsonFieldIndexes(t)[key]
	if !ok {
		return false
	}
	f := t.FieldByIndex(idx)
	ft := f.Type
	for ft.Kind() == reflect.Pointer {
		ft = ft.Elem()
	}
	if reflect.PointerTo(ft).Implements(reflect.TypeFor[json.Marshaler]()) {
		return true // written as a scalar (a quantity)
	}
	switch ft.Kind() {
	case reflect.Struct, reflect.Map:
		return false
	case reflect.Slice:
		return f.Tag.Get("patchStrategy") != "merge"
	}
	return true
}

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
	v, err := effectiveValue(in, k.name)
	if err != nil {
		return nil, err
	}
	who := k.contributor(in)
	who.at = v.at
	return r(v, who)
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
// values merged most specific last, as Envoy Gateway's utils.Merge merges
// the two policies (mergeSpecs). kind names the policy kind, whose spec
// type says how its lists merge.
func effectiveValue(in policy.FieldInput, kind string) (*fieldValue, error) {
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
	// The merge works on the field as part of a spec document: the
	// strategic merge reads the spec type's patch tags by path.
	wrap := func(raw []byte) []byte {
		b, _ := json.Marshal(map[string]json.RawMessage{in.Key: raw})
		return b
	}
	doc := wrap(vals[len(vals)-1].raw)
	for _, v := range slices.Backward(vals[:len(vals)-1]) {
		// each more specific policy's document patches the merge
		merged, err := mergeSpecs(specTypes[kind], doc, wrap(v.raw), in.Strategy == policy.StrategicMerge)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", in.Key, err)
		}
		doc = merged
	}
	var out map[string]json.RawMessage
	if err := json.Unmarshal(doc, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Key, err)
	}
	raw, ok := out[in.Key]
	if !ok {
		raw = json.RawMessage("null")
	}
	return &fieldValue{raw: raw}, nil
}

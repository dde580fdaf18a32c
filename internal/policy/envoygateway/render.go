package envoygateway

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/gwpol/gwpol/internal/policy"
)

// fieldRenderer renders the value of one field in effect on a route (the
// policies' values already merged, see effectiveValue) in the shape Envoy
// Gateway's translator gives it. who is the policy whose value it is (the
// most specific contributor), for names Envoy Gateway derives from it.
type fieldRenderer func(v json.RawMessage, who policyName) ([]policy.Fragment, error)

// policyName is a policy as Envoy Gateway names it in filter names
// (<kind lower-cased>/<namespace>/<name>).
type policyName struct{ kind, namespace, name string }

func (p policyName) String() string { return p.kind + "/" + p.namespace + "/" + p.name }

// renderers are the fields rendered so far, by Kind.field; one file per
// kind holds them (render_<kind>.go). Every other field asks for a
// capability no render target has, so render reports it as unsupported
// (GWP404) and the routes it applies to fail closed rather than dropping
// the field silently.
var renderers = map[string]fieldRenderer{
	"BackendTrafficPolicy.compression": renderCompressor,
	"BackendTrafficPolicy.compressor":  renderCompressor,
	"BackendTrafficPolicy.httpUpgrade": renderHTTPUpgrade,
	"BackendTrafficPolicy.rateLimit":   renderRateLimit,
	"SecurityPolicy.cors":              renderCORS,
}

// Filter order in the HCM chain, as Envoy Gateway orders its filters
// (translator's http filter order): fault injection and CORS first,
// authentication, then authorization, rate limits and compression last.
const (
	orderFault = 10 + iota
	orderCORS
	orderExtAuth
	orderBasicAuth
	orderOAuth2
	orderJWT
	orderRBAC
	orderLocalRateLimit
	orderRateLimit
	orderCompressor
)

// OverridesWhole implements policy.WholeOverrider: BackendTrafficPolicy,
// SecurityPolicy and EnvoyExtensionPolicy do (a route's policy replaces
// its Gateway's, or merges into it with spec.mergeType).
// ClientTrafficPolicy configures listeners, and HTTPRouteFilter is used
// by reference, so neither does.
func (k *Kind) OverridesWhole() bool { return k.mergeable }

// ProcessingOrder implements policy.WholeOverrider: Envoy Gateway's.
func (k *Kind) ProcessingOrder(a, b *policy.Policy) int { return processingOrder(a, b) }

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
func (k *Kind) RenderField(in policy.FieldInput, _ *policy.Env) ([]policy.Fragment, error) {
	r, ok := renderers[k.name+"."+in.Key]
	if !ok || len(in.Values) == 0 {
		return []policy.Fragment{{Capability: "envoygateway." + k.name + "." + in.Key}}, nil
	}
	v, err := effectiveValue(in)
	if err != nil {
		return nil, err
	}
	who := policyName{kind: lower(k.name)}
	if len(in.Contributors) > 0 {
		who.namespace, who.name = splitID(in.Contributors[0])
	}
	return r(v, who)
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
// values merged most specific last. Both of Envoy Gateway's merge types
// come out the same on its policy types, which declare no patch strategy
// for any list: objects merge key by key, lists and scalars are replaced,
// null removes (RFC 7386; a strategic merge patch without patch
// directives does the same).
func effectiveValue(in policy.FieldInput) (json.RawMessage, error) {
	raws := make([]json.RawMessage, len(in.Values))
	for i, v := range in.Values {
		raw, ok := v.(json.RawMessage)
		if !ok {
			b, err := json.Marshal(v)
			if err != nil {
				return nil, err
			}
			raw = b
		}
		raws[i] = raw
	}
	if len(raws) == 1 {
		return raws[0], nil
	}
	var doc any
	if err := json.Unmarshal(raws[len(raws)-1], &doc); err != nil {
		return nil, fmt.Errorf("%s: %w", in.Key, err)
	}
	for _, raw := range slices.Backward(raws[:len(raws)-1]) {
		var patch any
		if err := json.Unmarshal(raw, &patch); err != nil {
			return nil, fmt.Errorf("%s: %w", in.Key, err)
		}
		doc = mergePatch(doc, patch)
	}
	return json.Marshal(doc)
}

// mergePatch applies an RFC 7386 merge patch.
func mergePatch(doc, patch any) any {
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
		out[k] = mergePatch(out[k], v)
	}
	return out
}

package envoygateway

import (
	"cmp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// joinOrder is, per kind, the order in which Envoy Gateway's translator
// builds the features of a policy and joins their errors (errors.Join),
// by spec field: on a route target (translateSecurityPolicyForRoute,
// translateEnvoyExtensionPolicyForRoute: the builders before the parentRef
// loop, then, once per parentRef, those of perGatewayFields) and on a
// Gateway, ListenerSet or listener (translateSecurityPolicyForListeners,
// translateEnvoyExtensionPolicyForListeners). BackendTrafficPolicy
// (buildTrafficFeatures) and ClientTrafficPolicy
// (translateClientTrafficPolicyForListener) build in one order
// everywhere. Read at v1.9.0.
var joinOrder = map[*Kind]struct{ route, listeners []string }{}

func init() {
	joinOrder[securityPolicy] = struct{ route, listeners []string }{
		route:     []string{"basicAuth", "apiKeyAuth", "authorization", "extAuth", "oidc", "jwt"},
		listeners: []string{"jwt", "oidc", "basicAuth", "apiKeyAuth", "authorization", "extAuth"},
	}
	joinOrder[envoyExtensionPolicy] = struct{ route, listeners []string }{
		route:     []string{"wasm", "lua", "extProc", "dynamicModule"},
		listeners: []string{"extProc", "wasm", "lua", "dynamicModule"},
	}
	traffic := []string{"rateLimit", "bandwidthLimit", "loadBalancer", "circuitBreaker", "tcpKeepalive", "retry", "timeout",
		"connection", "http2", "responseOverride", "requestBuffer", "telemetry"}
	joinOrder[backendTrafficPolicy] = struct{ route, listeners []string }{traffic, traffic}
	client := []string{"tcpKeepalive", "connection", "timeout", "headers", "http1", "http2", "tls"}
	joinOrder[clientTrafficPolicy] = struct{ route, listeners []string }{client, client}
}

// specKey is the spec field a finding is at ("spec.http2.x" → "http2"),
// "" for one outside the spec's fields.
func specKey(field string) string {
	rest, ok := strings.CutPrefix(field, "spec.")
	if !ok {
		return ""
	}
	end := strings.IndexAny(rest, ".[")
	if end < 0 {
		return rest
	}
	return rest[:end]
}

// joinedErrors is Envoy Gateway's condition message for the errors of one
// translation of p, a policy of kind k (its findings there, invalid):
// ordered as the translator builds the features (joinOrder; a finding of
// no listed field first, as found — the validator's refusal, which is
// then the only one, too; the geolocation check, which runs after every
// builder, last), those of a field Envoy Gateway builds per
// parentRef repeated once for each of parents parentRefs (a route target;
// 0 elsewhere), several errors of one feature under its label once (the
// builder joins them before the label is put in front, perr.WithMessage),
// joined by new lines, and the whole as status.Error2ConditionMsg writes
// it: the first letter upper-cased and a full stop at the end.
func joinedErrors(k *Kind, p *policy.Policy, invalid []diag.Diagnostic, route bool, parents int) string {
	return joinedText(joinedParts(k, p, invalid, route, parents))
}

// joinedText is the condition message of errors joined in order (by new
// lines, each but the last without its full stop, as
// status.Error2ConditionMsg writes it).
func joinedText(parts []string) string {
	if len(parts) == 0 {
		return ""
	}
	parts = slices.Clone(parts)
	for i := range parts[:len(parts)-1] {
		parts[i] = strings.TrimSuffix(parts[i], ".")
	}
	return conditionText(strings.Join(parts, "\n"))
}

// joinedParts are the errors of one translation of p in the order
// joinedErrors joins them.
func joinedParts(k *Kind, p *policy.Policy, invalid []diag.Diagnostic, route bool, parents int) []string {
	if len(invalid) == 0 {
		return nil
	}
	d := decoded(p)
	geo := d.geo
	refusal := func(f diag.Diagnostic) bool {
		for _, r := range d.refusals {
			if r != nil && r.Field == f.Field && r.Message == f.Message {
				return true
			}
		}
		return false
	}
	order := joinOrder[k].listeners
	var perParent []string
	if route {
		order = joinOrder[k].route
		for _, f := range perGatewayFields[k] {
			perParent = append(perParent, specKey(f))
		}
	}
	last := len(order) + 1
	rank := func(f diag.Diagnostic) int {
		switch {
		case geo != nil && f.Field == geo.Field && f.Message == geo.Message:
			return last
		case refusal(f):
			return -1
		}
		return slices.Index(order, specKey(f.Field)) // -1: first
	}
	ds := slices.Clone(invalid)
	slices.SortStableFunc(ds, func(a, b diag.Diagnostic) int { return cmp.Compare(rank(a), rank(b)) })
	var once, each, after []diag.Diagnostic
	for _, f := range ds {
		switch {
		case rank(f) == last:
			after = append(after, f)
		case rank(f) >= 0 && slices.Contains(perParent, specKey(f.Field)):
			each = append(each, f)
		default:
			once = append(once, f)
		}
	}
	var parts []string
	add := func(block []diag.Diagnostic) {
		for i, f := range block {
			msg := f.Message
			if i > 0 && specKey(f.Field) == specKey(block[i-1].Field) {
				// one builder's errors, joined under one label
				msg = withoutLabel(block[i-1].Message, msg)
			}
			parts = append(parts, msg)
		}
	}
	add(once)
	if len(each) > 0 {
		for range max(parents, 1) {
			add(each)
		}
	}
	add(after)
	return parts
}

// withoutLabel is msg without the feature label ("HTTP2: ") that prev,
// an error of the same builder, starts with too.
func withoutLabel(prev, msg string) string {
	label, _, found := strings.Cut(prev, ": ")
	if !found {
		return msg
	}
	if rest, ok := strings.CutPrefix(msg, label+": "); ok {
		return rest
	}
	return msg
}

// conditionText is status.Error2ConditionMsg: the first letter
// upper-cased, a full stop added where the text does not end with one.
func conditionText(msg string) string {
	if msg == "" {
		return msg
	}
	r, n := utf8.DecodeRuneInString(msg)
	if unicode.IsLetter(r) {
		msg = string(unicode.ToUpper(r)) + msg[n:]
	}
	if !strings.HasSuffix(msg, ".") {
		msg += "."
	}
	return msg
}

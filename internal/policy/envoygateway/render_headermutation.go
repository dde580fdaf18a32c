package envoygateway

import (
	"strings"

	mutationrulesv3 "github.com/envoyproxy/go-control-plane/envoy/config/common/mutation_rules/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	headermutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/header_mutation/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	earlymutationv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/early_header_mutation/header_mutation/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/types/known/anypb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders a ClientTrafficPolicy's header modifiers
// (spec.headers.earlyRequestHeaders, spec.headers.lateResponseHeaders) as
// Envoy Gateway v1.9's translator writes them: gatewayapi
// clienttrafficpolicy.go translateHeaderModifier builds the lists, and
// xds/translator listener.go buildEarlyHeaderMutation and
// header_mutation.go buildHeaderMutationFilter / buildHeaderMutationRules
// write them.

// headerMutationFilter is the HTTP filter the late response headers
// configure (Envoy Gateway's EnvoyFilterHeaderMutation).
const headerMutationFilter = "envoy.filters.http.header_mutation"

// earlyHeaderMutation is the connection manager's early header mutation
// extension the early request headers configure.
const earlyHeaderMutation = "envoy.http.early_header_mutation.header_mutation"

// headerMutations are a header modifier's mutations in Envoy Gateway's
// order: the headers to add (appended), set (overwritten) and add if
// absent, in that order, a name an earlier entry of any of the three
// already took (compared case-insensitively) skipped; then each name to
// remove once (case-insensitively); then the removals by matcher, in
// order, a matcher without a type matching exactly. Entries Envoy
// Gateway's translation refuses (no name, '/' or ':' in it, an invalid
// value, an empty removal) are skipped as it skips them; the policy is
// then refused (clienttrafficpolicy_checks.go headers), so they never
// reach an applied policy.
func headerMutations(f *egv1a1.HTTPHeaderFilter) []*mutationrulesv3.HeaderMutation {
	if f == nil {
		return nil
	}
	var out []*mutationrulesv3.HeaderMutation
	var taken []string
	for _, op := range []struct {
		list   []gwapiv1.HTTPHeader
		action corev3.HeaderValueOption_HeaderAppendAction
	}{
		{f.Add, corev3.HeaderValueOption_APPEND_IF_EXISTS_OR_ADD},
		{f.Set, corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD},
		{f.AddIfAbsent, corev3.HeaderValueOption_ADD_IF_ABSENT},
	} {
		for _, h := range op.list {
			name := string(h.Name)
			if name == "" || strings.ContainsAny(name, "/:") || !headerValue.MatchString(h.Value) || containsFold(taken, name) {
				continue
			}
			taken = append(taken, name)
			out = append(out, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_Append{Append: &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: name, Value: h.Value}, AppendAction: op.action, KeepEmptyValue: h.Value == ""}}})
		}
	}
	var removed []string
	for _, name := range f.Remove {
		if name == "" || containsFold(removed, name) {
			continue
		}
		removed = append(removed, name)
		out = append(out, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_Remove{Remove: name}})
	}
	for _, m := range f.RemoveOnMatch {
		if m.Value == "" {
			continue
		}
		out = append(out, &mutationrulesv3.HeaderMutation{Action: &mutationrulesv3.HeaderMutation_RemoveOnMatch_{
			RemoveOnMatch: &mutationrulesv3.HeaderMutation_RemoveOnMatch{KeyMatcher: matchOf(m)}}})
	}
	return out
}

// matchOf is an Envoy Gateway StringMatch as Envoy's matcher (gatewayapi
// helpers.go irStringMatch: an absent or unknown type matches exactly).
func matchOf(m egv1a1.StringMatch) *matcherv3.StringMatcher {
	switch egv1a1.StringMatchType(deref(m.Type)) {
	case egv1a1.StringMatchPrefix:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Prefix{Prefix: m.Value}}
	case egv1a1.StringMatchSuffix:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Suffix{Suffix: m.Value}}
	case egv1a1.StringMatchRegularExpression:
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{SafeRegex: &matcherv3.RegexMatcher{Regex: m.Value}}}
	}
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: m.Value}}
}

func containsFold(list []string, s string) bool {
	for _, x := range list {
		if strings.EqualFold(x, s) {
			return true
		}
	}
	return false
}

// applyHeaderModifiers adds what the early request and late response
// headers make to the connection manager's fragment: the early header
// mutation extension on m (run before routing, on every request) and the
// header_mutation filter, on in the chain, mutating every response. A
// modifier with no mutation left adds nothing, as Envoy Gateway writes
// neither then.
func applyHeaderModifiers(h *egv1a1.HeaderSettings, m *hcmv3.HttpConnectionManager, fr *policy.Fragment) error {
	if early := headerMutations(h.EarlyRequestHeaders); len(early) > 0 {
		a, err := anypb.New(&earlymutationv3.HeaderMutation{Mutations: early})
		if err != nil {
			return err
		}
		m.EarlyHeaderMutationExtensions = []*corev3.TypedExtensionConfig{{Name: earlyHeaderMutation, TypedConfig: a}}
	}
	if late := headerMutations(h.LateResponseHeaders); len(late) > 0 {
		fr.Filter = &policy.HTTPFilter{Name: headerMutationFilter, Order: orderHeaderMutation, Enabled: true,
			Typed: &headermutationv3.HeaderMutation{Mutations: &headermutationv3.Mutations{ResponseMutations: late}}}
	}
	return nil
}

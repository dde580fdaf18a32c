package envoygateway

import (
	"strings"

	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	networkinputsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/network/v3"
	metadatamatcherv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/input_matchers/metadata/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
)

// jwtPredicates are the conditions a JWT principal puts on a request, as
// Envoy Gateway builds them on the payload the jwt_authn filter stores
// under the provider's name: each scope present in the normalized scope
// or scp claim, and each claim (a dotted name is a nested one) equal to
// one of its values — or, for a string array claim, holding one of
// them. All must hold.
func jwtPredicates(p *egv1a1.JWTPrincipal) ([]*xdsmatcherv3.Matcher_MatcherList_Predicate, error) {
	var out []*xdsmatcherv3.Matcher_MatcherList_Predicate
	for _, scope := range p.Scopes {
		var either []*xdsmatcherv3.Matcher_MatcherList_Predicate
		for _, key := range []string{"scope", "scp"} {
			either = append(either, metadataPredicate("scope", "scope_matcher", []string{p.Provider, key}, oneOf(string(scope))))
		}
		out = append(out, anyOf(either))
	}
	for _, c := range p.Claims {
		path := append([]string{p.Provider}, strings.Split(c.Name, ".")...)
		var values []*xdsmatcherv3.Matcher_MatcherList_Predicate
		for _, v := range c.Values {
			vm := &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_StringMatch{StringMatch: exactString(v)}}
			if deref(c.ValueType) == "StringArray" {
				vm = oneOf(v)
			}
			values = append(values, metadataPredicate("claim", "claim_matcher", path, vm))
		}
		if len(values) > 0 {
			out = append(out, anyOf(values))
		}
	}
	return out, nil
}

// metadataPredicate matches the jwt_authn filter's dynamic metadata at a
// path.
func metadataPredicate(input, matcher string, path []string, value *matcherv3.ValueMatcher) *xdsmatcherv3.Matcher_MatcherList_Predicate {
	in := &networkinputsv3.DynamicMetadataInput{Filter: jwtFilter}
	for _, key := range path {
		in.Path = append(in.Path, &networkinputsv3.DynamicMetadataInput_PathSegment{Segment: &networkinputsv3.DynamicMetadataInput_PathSegment_Key{Key: key}})
	}
	return &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{
		SinglePredicate: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
			Input: typedExtension(input, in),
			Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_CustomMatch{
				CustomMatch: typedExtension(matcher, &metadatamatcherv3.Metadata{Value: value})},
		}}}
}

// oneOf matches a list holding the value.
func oneOf(v string) *matcherv3.ValueMatcher {
	return &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_ListMatch{ListMatch: &matcherv3.ListMatcher{
		MatchPattern: &matcherv3.ListMatcher_OneOf{OneOf: &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_StringMatch{StringMatch: exactString(v)}}}}}}
}

func exactString(v string) *matcherv3.StringMatcher {
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: v}}
}

package kgateway

import (
	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	matchingv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/common/matching/v3"
	compositev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/composite/v3"
	setmetadatav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/set_metadata/v3"
	networkinputsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/network/v3"
	metadatamatcherv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/input_matchers/metadata/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/structpb"

	"github.com/gwpol/gwpol/internal/policy"
)

// disableMarker is kgateway's global disable of a filter family: a
// set_metadata filter, placed just before the family, writing
// dev.kgateway.disable_<what>.disable, which every filter of the family
// in the chain honours. A policy that disables the family switches the
// marker on for its resources.
func disableMarker(capability, what string) policy.Fragment {
	fr := familyMarker(capability, what)
	fr.TypedPerFilterConfig = map[string]proto.Message{fr.Filter.Name: enabledConfig()}
	return fr
}

// familyMarker is the marker filter alone, switched on nowhere: kgateway
// puts it in every chain that has a filter of the family, so a disable on
// any resource below finds it there.
func familyMarker(capability, what string) policy.Fragment {
	return policy.Fragment{Capability: capability, Filter: &policy.HTTPFilter{Name: "global_disable/" + what, Order: orderDisableMarker,
		Typed: setMetadata(disableNamespace(what), "disable", structpb.NewBoolValue(true))}}
}

// setMetadata is a set_metadata filter writing one value under a key of a
// dynamic metadata namespace.
func setMetadata(namespace, key string, v *structpb.Value) *setmetadatav3.Config {
	return &setmetadatav3.Config{Metadata: []*setmetadatav3.Metadata{{MetadataNamespace: namespace,
		Value: &structpb.Struct{Fields: map[string]*structpb.Value{key: v}}}}}
}

// disableNamespace is the dynamic metadata namespace a family's disable
// marker writes.
func disableNamespace(what string) string { return "dev.kgateway.disable_" + what }

// unlessDisabled wraps a filter that has no switch of its own for the
// family's disable metadata (jwt_authn, ext_proc) the way kgateway does:
// an ExtensionWithMatcher whose Composite runs the filter only while
// dev.kgateway.disable_<what>.disable is not true. Both are upstream
// Envoy extensions, so every target renders it alike.
func unlessDisabled(what, envoyName string, filterCfg proto.Message) proto.Message {
	typed := func(name string, m proto.Message) *xdscorev3.TypedExtensionConfig {
		return &xdscorev3.TypedExtensionConfig{Name: name, TypedConfig: pack(m)}
	}
	predicate := &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
		Input: typed("disable", &networkinputsv3.DynamicMetadataInput{Filter: disableNamespace(what),
			Path: []*networkinputsv3.DynamicMetadataInput_PathSegment{{Segment: &networkinputsv3.DynamicMetadataInput_PathSegment_Key{Key: "disable"}}}}),
		Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_CustomMatch{CustomMatch: typed("envoy.matching.matchers.metadata_matcher",
			&metadatamatcherv3.Metadata{Value: &matcherv3.ValueMatcher{MatchPattern: &matcherv3.ValueMatcher_BoolMatch{BoolMatch: true}}, Invert: true})},
	}
	run := typed("composite-action", &compositev3.ExecuteFilterAction{
		TypedConfig: &corev3.TypedExtensionConfig{Name: envoyName, TypedConfig: pack(filterCfg)}})
	return &matchingv3.ExtensionWithMatcher{
		ExtensionConfig: &corev3.TypedExtensionConfig{Name: "composite_" + what, TypedConfig: pack(&compositev3.Composite{})},
		XdsMatcher: &xdsmatcherv3.Matcher{MatcherType: &xdsmatcherv3.Matcher_MatcherList_{MatcherList: &xdsmatcherv3.Matcher_MatcherList{
			Matchers: []*xdsmatcherv3.Matcher_MatcherList_FieldMatcher{{
				Predicate: &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{SinglePredicate: predicate}},
				OnMatch:   &xdsmatcherv3.Matcher_OnMatch{OnMatch: &xdsmatcherv3.Matcher_OnMatch_Action{Action: run}},
			}},
		}}},
	}
}

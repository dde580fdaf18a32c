package envoygateway

import (
	"fmt"
	"slices"
	"strconv"

	"cel.dev/expr"
	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	xdstypev3 "github.com/cncf/xds/go/xds/type/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	customresponsev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/custom_response/v3"
	localresponsev3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/custom_response/local_response_policy/v3"
	redirectpolicyv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/http/custom_response/redirect_policy/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// responseBodyKey is the ConfigMap key Envoy Gateway reads a response
// body from.
const responseBodyKey = "response.body"

// renderResponseOverride is Envoy Gateway's response override: one
// custom_response filter per policy, envoy.filters.http.custom_response/
// backendtrafficpolicy/<namespace>/<name> (where a route's policy merged
// with its Gateway's, the route's), off in the chain and on for the
// policy's routes, whose matcher tries the entries in order. An entry
// matches the response's status (any of its codes: a value exactly, a
// range by a CEL expression) and all its headers, and, with source Local
// or Backend, whether Envoy answered the request itself; it answers with
// its response (body, content type, status, headers) or a redirect.
//
// A body from a ConfigMap is not inlined (gwpol never reads ConfigMap
// data): it is a ${configmap:ns/name#key} placeholder naming the key
// Envoy Gateway reads — response.body, else the ConfigMap's one key. The
// ConfigMap is looked up in the namespace of the policy the override
// comes from (where a route's policy merges into its Gateway's, the
// route's when it sets responseOverride itself).
func renderResponseOverride(ros []*egv1a1.ResponseOverride, who policyName, m *model.Model) ([]policy.Fragment, error) {
	var matchers []*xdsmatcherv3.Matcher_MatcherList_FieldMatcher
	for i, ro := range ros {
		if ro == nil {
			return nil, fmt.Errorf("responseOverride[%d]: exactly one of response or redirect must be specified", i)
		}
		name := fmt.Sprintf("%s/responseoverride/rule/%d", who.result(), i)
		pred, err := responseOverridePredicate(ro)
		if err != nil {
			return nil, fmt.Errorf("responseOverride[%d]: %w", i, err)
		}
		var action proto.Message
		switch {
		case ro.Redirect != nil:
			if p := ro.Redirect.Path; p != nil && p.ReplaceFullPath == nil {
				return unsupportedPart("responseOverride", "redirect.path."+string(p.Type)), nil
			}
			action = redirectPolicy(ro)
		case ro.Response != nil:
			if h := ro.Response.Header; h != nil && len(h.Remove) > 0 {
				return unsupportedPart("responseOverride", "response.header.remove"), nil
			}
			action = localResponse(ro, who.namespace, m)
		default:
			return nil, fmt.Errorf("responseOverride[%d]: exactly one of response or redirect must be specified", i)
		}
		matchers = append(matchers, &xdsmatcherv3.Matcher_MatcherList_FieldMatcher{
			Predicate: pred,
			OnMatch:   &xdsmatcherv3.Matcher_OnMatch{OnMatch: &xdsmatcherv3.Matcher_OnMatch_Action{Action: typedExtension(name, action)}},
		})
	}
	if len(matchers) == 0 {
		return nil, nil
	}
	filter := "envoy.filters.http.custom_response/" + who.result().String()
	return []policy.Fragment{{
		Capability: "custom_response",
		Filter: &policy.HTTPFilter{Name: filter, Order: orderCustomResponse, Typed: &customresponsev3.CustomResponse{
			CustomResponseMatcher: &xdsmatcherv3.Matcher{MatcherType: &xdsmatcherv3.Matcher_MatcherList_{
				MatcherList: &xdsmatcherv3.Matcher_MatcherList{Matchers: matchers}}},
		}},
		TypedPerFilterConfig: map[string]proto.Message{filter: &routev3.FilterConfig{Config: &anypb.Any{}}},
	}}, nil
}

// responseOverridePredicate is what an entry matches: its status codes
// (any of them), then its headers (all of them), then the response's
// origin (source), all of which must hold.
func responseOverridePredicate(ro *egv1a1.ResponseOverride) (*xdsmatcherv3.Matcher_MatcherList_Predicate, error) {
	var all []*xdsmatcherv3.Matcher_MatcherList_Predicate
	var codes []*xdsmatcherv3.Matcher_MatcherList_Predicate
	for _, c := range ro.Match.StatusCodes {
		switch {
		case c.Type != nil && *c.Type == "Range":
			if c.Range == nil {
				return nil, fmt.Errorf("statusCodes: range must be set for type Range")
			}
			codes = append(codes, &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{
				SinglePredicate: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
					Input: typedExtension("http-attributes-cel-match-input", &xdsmatcherv3.HttpAttributesCelMatchInput{}),
					Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_CustomMatch{
						CustomMatch: typedExtension("cel-matcher", statusRangeCEL(c.Range.Start, c.Range.End))},
				}}})
		case c.Value != nil:
			codes = append(codes, responsePredicate("http-response-status-code-match-input", &matcherv3.HttpResponseStatusCodeMatchInput{},
				&xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Exact{Exact: strconv.Itoa(*c.Value)}}))
		default:
			return nil, fmt.Errorf("statusCodes: value must be set for type Value")
		}
	}
	if len(codes) > 0 {
		all = append(all, anyOf(codes))
	}
	var headers []*xdsmatcherv3.Matcher_MatcherList_Predicate
	for _, h := range ro.Match.ResponseHeaders {
		sm, err := responseHeaderMatcher(h.Value.Type, h.Value.Value)
		name := string(h.Name)
		if err != nil {
			return nil, fmt.Errorf("responseHeaders %s: %w", name, err)
		}
		headers = append(headers, responsePredicate("http-response-header-match-input", &matcherv3.HttpResponseHeaderMatchInput{HeaderName: name}, sm))
	}
	if len(headers) > 0 {
		all = append(all, allOf(headers))
	}
	if len(all) == 0 {
		return nil, fmt.Errorf("at least one of statusCodes or responseHeaders must be specified")
	}
	if s := ro.Source; s != nil && (*s == "Local" || *s == "Backend") {
		all = append(all, responsePredicate("http-response-local-reply-match-input", &matcherv3.HttpResponseLocalReplyMatchInput{},
			&xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Exact{Exact: strconv.FormatBool(*s == "Local")}}))
	}
	return allOf(all), nil
}

// responsePredicate matches one input of the response against sm.
func responsePredicate(input string, in proto.Message, sm *xdsmatcherv3.StringMatcher) *xdsmatcherv3.Matcher_MatcherList_Predicate {
	return &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{
		SinglePredicate: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
			Input:   typedExtension(input, in),
			Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_ValueMatch{ValueMatch: sm},
		}}}
}

// allOf is one predicate, or several that must all hold.
func allOf(ps []*xdsmatcherv3.Matcher_MatcherList_Predicate) *xdsmatcherv3.Matcher_MatcherList_Predicate {
	if len(ps) == 1 {
		return ps[0]
	}
	return &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_AndMatcher{
		AndMatcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_PredicateList{Predicate: ps}}}
}

// responseHeaderMatcher is Envoy Gateway's StringMatch (Exact by default)
// as a matcher of a response header's value.
func responseHeaderMatcher(typ *egv1a1.StringMatchType, v string) (*xdsmatcherv3.StringMatcher, error) {
	t := "Exact"
	if typ != nil {
		t = string(*typ)
	}
	switch t {
	case "Exact":
		return &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Exact{Exact: v}}, nil
	case "Prefix":
		return &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Prefix{Prefix: v}}, nil
	case "Suffix":
		return &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Suffix{Suffix: v}}, nil
	case "RegularExpression":
		return &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_SafeRegex{SafeRegex: &xdsmatcherv3.RegexMatcher{
			Regex: v, EngineType: &xdsmatcherv3.RegexMatcher_GoogleRe2{GoogleRe2: &xdsmatcherv3.RegexMatcher_GoogleRE2{}}}}}, nil
	}
	return nil, fmt.Errorf("unknown match type %q", t)
}

// statusRangeCEL is the CEL expression response.code >= start &&
// response.code <= end, parsed (the expression ids are those a CEL parser
// gives it, as Envoy Gateway writes them).
func statusRangeCEL(start, end int) *xdsmatcherv3.CelMatcher {
	ident := func(id int64) *expr.Expr {
		return &expr.Expr{Id: id, ExprKind: &expr.Expr_IdentExpr{IdentExpr: &expr.Expr_Ident{Name: "response"}}}
	}
	code := func(id int64) *expr.Expr {
		return &expr.Expr{Id: id + 1, ExprKind: &expr.Expr_SelectExpr{SelectExpr: &expr.Expr_Select{Operand: ident(id), Field: "code"}}}
	}
	constant := func(id int64, v int) *expr.Expr {
		return &expr.Expr{Id: id, ExprKind: &expr.Expr_ConstExpr{ConstExpr: &expr.Constant{ConstantKind: &expr.Constant_Int64Value{Int64Value: int64(v)}}}}
	}
	call := func(id int64, fn string, args ...*expr.Expr) *expr.Expr {
		return &expr.Expr{Id: id, ExprKind: &expr.Expr_CallExpr{CallExpr: &expr.Expr_Call{Function: fn, Args: args}}}
	}
	e := call(9, "_&&_", call(3, "_>=_", code(1), constant(4, start)), call(7, "_<=_", code(5), constant(8, end)))
	return &xdsmatcherv3.CelMatcher{ExprMatch: &xdstypev3.CelExpression{CelExprParsed: &expr.ParsedExpr{Expr: e}}}
}

// localResponse is an entry's own response: its body (a format string, so
// Envoy's command operators work in it), its content type set and its
// headers added (header.add) or set (header.set), its status.
func localResponse(ro *egv1a1.ResponseOverride, ns string, m *model.Model) *localresponsev3.LocalResponsePolicy {
	r := ro.Response
	lr := &localresponsev3.LocalResponsePolicy{}
	body := ""
	if b := r.Body; b != nil {
		switch {
		case b.Type != nil && *b.Type == "ValueRef" && b.ValueRef != nil:
			name := string(b.ValueRef.Name)
			body = policy.ConfigMapPlaceholder(ns, name, responseBodyConfigMapKey(m, ns, name))
		case b.Inline != nil:
			body = *b.Inline
		}
	}
	if body != "" {
		//lint:ignore SA1019 Envoy Gateway writes the body as text_format (still honoured by Envoy), and gwpol reproduces it
		lr.BodyFormat = &corev3.SubstitutionFormatString{Format: &corev3.SubstitutionFormatString_TextFormat{TextFormat: body}}
	}
	if ct := r.ContentType; ct != nil && *ct != "" {
		lr.ResponseHeadersToAdd = append(lr.ResponseHeadersToAdd, &corev3.HeaderValueOption{
			Header: &corev3.HeaderValue{Key: "Content-Type", Value: *ct}, AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD})
	}
	if s := r.StatusCode; s != nil {
		lr.StatusCode = wrapperspb.UInt32(uint32(*s))
	}
	if h := r.Header; h != nil {
		for _, a := range h.Add {
			lr.ResponseHeadersToAdd = append(lr.ResponseHeadersToAdd, &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: string(a.Name), Value: a.Value}, KeepEmptyValue: a.Value == ""})
		}
		for _, s := range h.Set {
			lr.ResponseHeadersToAdd = append(lr.ResponseHeadersToAdd, &corev3.HeaderValueOption{
				Header: &corev3.HeaderValue{Key: string(s.Name), Value: s.Value}, KeepEmptyValue: s.Value == "",
				AppendAction: corev3.HeaderValueOption_OVERWRITE_IF_EXISTS_OR_ADD})
		}
	}
	return lr
}

// responseBodyConfigMapKey is the key of a ConfigMap Envoy Gateway takes
// a response body from: response.body, else the ConfigMap's only key
// (validation rejects a ConfigMap without keys, and warns where it has
// several but no response.body: Envoy Gateway then takes any of them).
func responseBodyConfigMapKey(m *model.Model, ns, name string) string {
	if m == nil {
		return responseBodyKey
	}
	cm := m.ConfigMap(ns, name)
	if cm == nil || len(cm.Keys) == 0 || slices.Contains(cm.Keys, responseBodyKey) {
		return responseBodyKey
	}
	return slices.Min(cm.Keys)
}

// redirectPolicy is an entry's redirect: the scheme, host, port and full
// path of the Location given, with status 302 unless it says 301.
func redirectPolicy(ro *egv1a1.ResponseOverride) *redirectpolicyv3.RedirectPolicy {
	r := ro.Redirect
	ra := &routev3.RedirectAction{}
	if r.Scheme != nil {
		ra.SchemeRewriteSpecifier = &routev3.RedirectAction_SchemeRedirect{SchemeRedirect: *r.Scheme}
	}
	if r.Hostname != nil {
		ra.HostRedirect = string(*r.Hostname)
	}
	if r.Port != nil {
		ra.PortRedirect = uint32(*r.Port)
	}
	if p := r.Path; p != nil && p.ReplaceFullPath != nil {
		ra.PathRewriteSpecifier = &routev3.RedirectAction_PathRedirect{PathRedirect: *p.ReplaceFullPath}
	}
	// The CRD defaults statusCode to 302, which the API server writes and
	// the model decodes; a redirect without one has a CRD that gave no
	// default (--crds or the input), where Envoy Gateway's translator
	// dereferences the unset code (custom_response.go: buildRedirectAction)
	// — gwpol keeps the CRD's 302 there rather than fail.
	status := uint32(302)
	if r.StatusCode != nil {
		status = uint32(*r.StatusCode)
	}
	return &redirectpolicyv3.RedirectPolicy{
		RedirectActionSpecifier: &redirectpolicyv3.RedirectPolicy_RedirectAction{RedirectAction: ra},
		StatusCode:              wrapperspb.UInt32(status),
	}
}

package kgateway

import (
	"fmt"
	"net/netip"
	"strings"
	"sync"

	"cel.dev/expr"
	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	xdstypev3 "github.com/cncf/xds/go/xds/type/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	rbacfilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	"github.com/google/cel-go/cel"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// rbac (basic auth / api key auth: render_authn.go): kgateway's RBAC
// filter, in every chain as an empty (allow-all) RBAC config, and per
// resource either a CEL matcher tree (matchExpressions) or RBAC rules on
// the client address (allowed/blocked CIDRs). Built as typed messages.
func (r *fieldRenderer) rbac() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Authorization)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	action := rbacv3.RBAC_ALLOW
	if strings.EqualFold(v.Action, "Deny") {
		action = rbacv3.RBAC_DENY
	}
	var per *rbacfilterv3.RBACPerRoute
	if len(v.Policy.MatchExpressions) > 0 {
		if len(v.Policy.AllowedCIDRs) > 0 || len(v.Policy.BlockedCIDRs) > 0 {
			return nil, fmt.Errorf("matchExpressions cannot be combined with allowedCIDRs/blockedCIDRs here")
		}
		m, err := celMatcherTree(v.Policy.MatchExpressions, action)
		if err != nil {
			return nil, err
		}
		per = &rbacfilterv3.RBACPerRoute{Rbac: &rbacfilterv3.RBAC{Matcher: m}}
	} else {
		rules, err := cidrRules(v.Policy.AllowedCIDRs, v.Policy.BlockedCIDRs, action)
		if err != nil {
			return nil, err
		}
		per = &rbacfilterv3.RBACPerRoute{Rbac: &rbacfilterv3.RBAC{Rules: rules}}
	}
	const name = "envoy.filters.http.rbac"
	return []policy.Fragment{{
		Capability: "rbac",
		// An RBAC filter without rules enforces nothing: kgateway leaves it
		// on in the chain, and a resource's own RBAC config decides there.
		Filter:               &policy.HTTPFilter{Name: name, Order: orderRBAC, Typed: &rbacfilterv3.RBAC{}, Enabled: true},
		TypedPerFilterConfig: map[string]proto.Message{name: per},
	}}, nil
}

// cidrRules: one policy for any request from the principals the CIDRs
// describe — allowed and not blocked for ALLOW, matched or blocked for
// DENY.
func cidrRules(allowedCIDRs, blockedCIDRs []string, action rbacv3.RBAC_Action) (*rbacv3.RBAC, error) {
	ids := func(cidrs []string, field string) ([]*rbacv3.Principal, error) {
		var out []*rbacv3.Principal
		for _, c := range cidrs {
			cr, err := cidrRange(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", field, err)
			}
			out = append(out, &rbacv3.Principal{Identifier: &rbacv3.Principal_RemoteIp{RemoteIp: cr}})
		}
		return out, nil
	}
	allowed, err := ids(allowedCIDRs, "allowedCIDRs")
	if err != nil {
		return nil, err
	}
	blocked, err := ids(blockedCIDRs, "blockedCIDRs")
	if err != nil {
		return nil, err
	}
	orIDs := func(ps []*rbacv3.Principal) *rbacv3.Principal {
		return &rbacv3.Principal{Identifier: &rbacv3.Principal_OrIds{OrIds: &rbacv3.Principal_Set{Ids: ps}}}
	}
	principal := &rbacv3.Principal{Identifier: &rbacv3.Principal_Any{Any: true}}
	if len(allowed) > 0 {
		principal = orIDs(allowed)
	}
	if len(blocked) > 0 {
		if action == rbacv3.RBAC_ALLOW {
			notBlocked := &rbacv3.Principal{Identifier: &rbacv3.Principal_NotId{NotId: orIDs(blocked)}}
			principal = &rbacv3.Principal{Identifier: &rbacv3.Principal_AndIds{AndIds: &rbacv3.Principal_Set{Ids: []*rbacv3.Principal{principal, notBlocked}}}}
		} else {
			principal = orIDs(append([]*rbacv3.Principal{principal}, blocked...))
		}
	}
	return &rbacv3.RBAC{Action: action, Policies: map[string]*rbacv3.Policy{"policy": {
		Permissions: []*rbacv3.Permission{{Rule: &rbacv3.Permission_Any{Any: true}}},
		Principals:  []*rbacv3.Principal{principal},
	}}}, nil
}

// cidrRange reads an address or CIDR.
func cidrRange(c string) (*corev3.CidrRange, error) {
	if p, err := netip.ParsePrefix(c); err == nil {
		return &corev3.CidrRange{AddressPrefix: p.Addr().String(), PrefixLen: wrapperspb.UInt32(uint32(p.Bits()))}, nil
	}
	a, err := netip.ParseAddr(c)
	if err != nil {
		return nil, fmt.Errorf("%q is not a CIDR", c)
	}
	return &corev3.CidrRange{AddressPrefix: a.String(), PrefixLen: wrapperspb.UInt32(uint32(a.BitLen()))}, nil
}

// celMatcherTree is kgateway's matcher for CEL rules: the action where an
// expression matches (several expressions: any of them), the opposite
// everywhere else. Each expression is compiled as kgateway compiles it
// and written as its parsed form.
func celMatcherTree(exprs []string, action rbacv3.RBAC_Action) (*xdsmatcherv3.Matcher, error) {
	input, err := typedExtension("envoy.matching.inputs.cel_data_input", &xdsmatcherv3.HttpAttributesCelMatchInput{})
	if err != nil {
		return nil, err
	}
	var preds []*xdsmatcherv3.Matcher_MatcherList_Predicate
	for i, e := range exprs {
		parsed, err := parseCEL(e)
		if err != nil {
			return nil, fmt.Errorf("matchExpressions[%d]: %w", i, err)
		}
		m, err := typedExtension("envoy.matching.matchers.cel_matcher", &xdsmatcherv3.CelMatcher{ExprMatch: &xdstypev3.CelExpression{CelExprParsed: parsed}})
		if err != nil {
			return nil, err
		}
		preds = append(preds, &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{
			SinglePredicate: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
				Input: input, Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_CustomMatch{CustomMatch: m}}}})
	}
	pred := preds[0]
	if len(preds) > 1 {
		pred = &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_OrMatcher{
			OrMatcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_PredicateList{Predicate: preds}}}
	}
	other := rbacv3.RBAC_DENY
	if action == rbacv3.RBAC_DENY {
		other = rbacv3.RBAC_ALLOW
	}
	// kgateway names the matched action's extension after the RBAC action
	// filter and the default one plainly "action".
	onMatch, err := rbacAction("envoy.filters.rbac.action", action)
	if err != nil {
		return nil, err
	}
	onNoMatch, err := rbacAction("action", other)
	if err != nil {
		return nil, err
	}
	return &xdsmatcherv3.Matcher{
		MatcherType: &xdsmatcherv3.Matcher_MatcherList_{MatcherList: &xdsmatcherv3.Matcher_MatcherList{
			Matchers: []*xdsmatcherv3.Matcher_MatcherList_FieldMatcher{{Predicate: pred, OnMatch: onMatch}}}},
		OnNoMatch: onNoMatch,
	}, nil
}

func rbacAction(extension string, a rbacv3.RBAC_Action) (*xdsmatcherv3.Matcher_OnMatch, error) {
	name := "allow-request"
	if a == rbacv3.RBAC_DENY {
		name = "deny-request"
	}
	ext, err := typedExtension(extension, &rbacv3.Action{Name: name, Action: a})
	if err != nil {
		return nil, err
	}
	return &xdsmatcherv3.Matcher_OnMatch{OnMatch: &xdsmatcherv3.Matcher_OnMatch_Action{Action: ext}}, nil
}

// typedExtension packs m deterministically (a parsed CEL expression holds
// a map): the same policy renders to the same bytes every time.
func typedExtension(name string, m proto.Message) (*xdscorev3.TypedExtensionConfig, error) {
	a := &anypb.Any{}
	if err := anypb.MarshalFrom(a, m, proto.MarshalOptions{Deterministic: true}); err != nil {
		return nil, err
	}
	return &xdscorev3.TypedExtensionConfig{Name: name, TypedConfig: a}, nil
}

// celEnv is kgateway's environment for RBAC expressions: Envoy's HTTP
// attributes, all dynamic.
var celEnv = sync.OnceValues(func() (*cel.Env, error) {
	return cel.NewEnv(
		cel.Variable("request", cel.DynType),
		cel.Variable("source", cel.DynType),
		cel.Variable("destination", cel.DynType),
		cel.Variable("connection", cel.DynType),
		cel.Variable("metadata", cel.DynType),
	)
})

// parseCEL compiles an expression (an invalid one is an error, as in
// kgateway) and returns its parsed form, node IDs and source positions as
// the CEL parser assigns them.
func parseCEL(e string) (*expr.ParsedExpr, error) {
	env, err := celEnv()
	if err != nil {
		return nil, err
	}
	ast, iss := env.Compile(e)
	if iss.Err() != nil {
		return nil, fmt.Errorf("invalid RBAC CEL expression %q: %w", e, iss.Err())
	}
	pe, err := cel.AstToParsedExpr(ast)
	if err != nil {
		return nil, err
	}
	// cel-go writes the genproto message; the xDS field holds the
	// cel.dev/expr one, the same on the wire.
	raw, err := proto.Marshal(pe)
	if err != nil {
		return nil, err
	}
	out := &expr.ParsedExpr{}
	if err := proto.Unmarshal(raw, out); err != nil {
		return nil, err
	}
	return out, nil
}

//lint:file-ignore SA1019 Envoy Gateway still reads its deprecated fields (users set them), so gwpol reads them too.

package envoygateway

import (
	"fmt"
	"net"
	"net/netip"
	"reflect"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	xdscorev3 "github.com/cncf/xds/go/xds/core/v3"
	xdsmatcherv3 "github.com/cncf/xds/go/xds/type/matcher/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	rbacv3 "github.com/envoyproxy/go-control-plane/envoy/config/rbac/v3"
	basicauthv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/basic_auth/v3"
	corsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/cors/v3"
	extauthzv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_authz/v3"
	rbachttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/rbac/v3"
	networkinputsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/common_inputs/network/v3"
	ipv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/matching/input_matchers/ip/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"
	gwapiv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// unrenderable says, for the fields gwpol cannot render from the input
// alone, why and what the user can do (policy.Fragment.Reason), by
// Kind.field.
var unrenderable = map[string]string{
	// Envoy Gateway's api_key_auth filter lists every credential: each
	// key of the credential Secrets' data is a client ID, its value that
	// client's API key. How many there are, and their names, are Secret
	// data too, so not even a placeholder can stand for them.
	"SecurityPolicy.apiKeyAuth": "Envoy Gateway inlines the API keys of the credentialRefs Secrets (each data key a client ID, its value the key) into its api_key_auth filter, " +
		"and gwpol never reads Secret data, so it cannot write the filter (nor tell duplicated keys, which Envoy Gateway rejects); " +
		"translate with Envoy Gateway itself (egctl x translate, with the Secrets) to see those routes, or annotate the SecurityPolicy gwpol.dev/ignore: GWP404 to accept that gwpol fails them closed",
}

var _ policy.InvalidKeeper = (*Kind)(nil)

// KeptWhenInvalid implements policy.InvalidKeeper: on the routes an
// invalid SecurityPolicy fails with 500, Envoy Gateway keeps each of its
// features that translated — every field without a finding of its own;
// the authorization even when the geolocation check (which runs after
// the rules are translated) failed. A finding outside the fields (the
// spec, the targets, mergeType) keeps nothing. Other kinds keep nothing.
func (k *Kind) KeptWhenInvalid(p *policy.Policy) []string {
	if k != securityPolicy {
		return nil
	}
	geo := decoded(p).geo
	var failed []string
	for _, d := range p.Invalid {
		if geo != nil && d.Field == geo.Field && d.Message == geo.Message {
			continue
		}
		field, ok := specField(d.Field, k.fields)
		if !ok {
			return nil
		}
		failed = append(failed, field)
	}
	var kept []string
	for _, f := range k.fields {
		if _, set := p.Values[f]; set && !slices.Contains(failed, f) {
			kept = append(kept, f)
		}
	}
	return kept
}

// specField is the field of fields a finding's path (spec.<field>…) is
// in.
func specField(path string, fields []string) (string, bool) {
	rest, ok := strings.CutPrefix(path, "spec.")
	if !ok {
		return "", false
	}
	for _, f := range fields {
		if after, ok := strings.CutPrefix(rest, f); ok && (after == "" || after[0] == '.' || after[0] == '[') {
			return f, true
		}
	}
	return "", false
}

// corsFilter is the name of Envoy's CORS filter, which Envoy Gateway
// adds once per listener and configures per route.
const corsFilter = "envoy.filters.http.cors"

// renderCORS is a CorsPolicy on the route, as Envoy Gateway writes it:
// lists joined with ", ", max age in seconds, allowCredentials and
// forwardNotMatchingPreflights always written.
func renderCORS(c *egv1a1.CORS, _ policyName) ([]policy.Fragment, error) {
	if c == nil {
		c = &egv1a1.CORS{}
	}
	per := &corsv3.CorsPolicy{
		AllowMethods:                 joinOrWildcard(c.AllowMethods),
		AllowHeaders:                 joinOrWildcard(c.AllowHeaders),
		ExposeHeaders:                strings.Join(c.ExposeHeaders, ", "),
		AllowCredentials:             wrapperspb.Bool(c.AllowCredentials != nil && *c.AllowCredentials),
		ForwardNotMatchingPreflights: wrapperspb.Bool(false),
	}
	for _, o := range c.AllowOrigins {
		per.AllowOriginStringMatch = append(per.AllowOriginStringMatch, originMatcher(string(o)))
	}
	if c.MaxAge != nil {
		d, err := time.ParseDuration(string(*c.MaxAge))
		if err != nil {
			return nil, fmt.Errorf("cors.maxAge: %w", err)
		}
		per.MaxAge = strconv.Itoa(int(d.Seconds()))
	}
	return []policy.Fragment{{
		Capability: "cors",
		// On in the chain, as Envoy Gateway leaves it: without a policy of
		// its own it answers nothing but where a route's config says.
		Filter:               &policy.HTTPFilter{Name: corsFilter, Order: orderCORS, Enabled: true, Typed: &corsv3.Cors{}},
		TypedPerFilterConfig: map[string]proto.Message{corsFilter: per},
	}}, nil
}

// joinOrWildcard joins a CORS list with ", ", or is "*" when the list
// has "*": Envoy reads "*" as any only alone (in "*, GET" it is a
// literal), so Envoy Gateway writes it alone.
func joinOrWildcard(vs []string) string {
	if slices.Contains(vs, "*") {
		return "*"
	}
	return strings.Join(vs, ", ")
}

// originMatcher matches one allowed origin: a wildcard origin ("*",
// "https://*", "http://*.example.com") becomes a regular expression with
// the dots quoted and each "*" any run of characters; any other origin
// is matched exactly.
func originMatcher(o string) *matcherv3.StringMatcher {
	if !strings.Contains(o, "*") {
		return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: o}}
	}
	parts := strings.Split(o, "*")
	for i, p := range parts {
		parts[i] = regexp.QuoteMeta(p)
	}
	return &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_SafeRegex{
		SafeRegex: &matcherv3.RegexMatcher{Regex: strings.Join(parts, ".*")}}}
}

// rbacFilter is Envoy's RBAC filter, which Envoy Gateway adds once per
// listener and configures per route.
const rbacFilter = "envoy.filters.http.rbac"

// renderAuthorizationValue renders the authorization in effect with the
// geolocation verdict its policy holds (fieldValue.geo; a value merged
// from several policies holds none, and the filter's settings are then
// worked out from the input), kept on routes the policy fails or applied
// (in.Failed).
func renderAuthorizationValue(in policy.FieldInput, env *policy.Env, who policyName) ([]policy.Fragment, error) {
	v, err := effectiveValue(in, securityPolicy.name)
	if err != nil {
		return nil, err
	}
	a, err := typedAs[*egv1a1.Authorization](v)
	if err != nil {
		return nil, fmt.Errorf("authorization: %w", err)
	}
	var m *model.Model
	if env != nil {
		m = env.Model
	}
	return renderAuthorization(a, who, m, v.geo, in.Failed)
}

// renderAuthorization is an RBACPerRoute with Envoy Gateway's matcher
// tree: a matcher per rule, named after the rule (else
// securitypolicy/<ns>/<name>/authorization/rule/<i>), whose predicate is
// the rule's conditions — methods, path, client CIDRs, client IP
// geolocations (render_geoip.go), JWT scopes and claims
// (render_jwtprincipal.go), headers, in that order; several combined
// with and, a list of values with or — and the default action when no
// rule matches. Geolocations also bring the geolocation filter and the
// removal of its internal headers from the route's requests. Other
// principals are not rendered yet: a value using them is unsupported.
func renderAuthorization(a *egv1a1.Authorization, who policyName, m *model.Model, geoDecided *geoDecision, failed bool) ([]policy.Fragment, error) {
	var geo geoUse
	if a == nil {
		a = &egv1a1.Authorization{}
	}
	list := &xdsmatcherv3.Matcher_MatcherList{}
	for i, r := range a.Rules {
		var preds []*xdsmatcherv3.Matcher_MatcherList_Predicate
		if op := r.Operation; op != nil {
			if len(op.Methods) > 0 {
				var ms []*xdsmatcherv3.Matcher_MatcherList_Predicate
				for _, m := range op.Methods {
					ms = append(ms, headerPredicate(":method", &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Exact{Exact: string(m)}, IgnoreCase: true}))
				}
				preds = append(preds, anyOf(ms))
			}
			if p := op.Path; p != nil {
				pred := headerPredicate(":path", &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_SafeRegex{
					SafeRegex: &xdsmatcherv3.RegexMatcher{EngineType: &xdsmatcherv3.RegexMatcher_GoogleRe2{GoogleRe2: &xdsmatcherv3.RegexMatcher_GoogleRE2{}}, Regex: pathRegex(p.Type, p.Value)}}})
				if p.Invert != nil && *p.Invert {
					pred = &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_NotMatcher{NotMatcher: pred}}
				}
				preds = append(preds, pred)
			}
		}
		principal := r.Principal
		if principal == nil {
			principal = &egv1a1.Principal{}
		}
		if cidrs := principal.ClientCIDRs; cidrs != nil {
			ipm := &ipv3.Ip{StatPrefix: "client_ip"}
			for _, c := range cidrs {
				prefix, err := netip.ParsePrefix(string(c))
				if err != nil {
					return nil, fmt.Errorf("authorization.rules[%d].principal.clientCIDRs: %w", i, err)
				}
				ipm.CidrRanges = append(ipm.CidrRanges, &corev3.CidrRange{AddressPrefix: prefix.Addr().String(), PrefixLen: wrapperspb.UInt32(uint32(prefix.Bits()))})
			}
			preds = append(preds, &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{
				SinglePredicate: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
					Input: typedExtension("client_ip", &networkinputsv3.SourceIPInput{}),
					Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_CustomMatch{
						CustomMatch: typedExtension("ip_matcher", ipm)},
				}}})
		}
		if locs := principal.ClientIPGeoLocations; locs != nil {
			gp, err := geoPredicate(locs, &geo)
			if err != nil {
				return nil, fmt.Errorf("authorization.rules[%d].principal: %w", i, err)
			}
			if gp != nil {
				preds = append(preds, gp)
			}
		}
		if jwt := principal.JWT; jwt != nil {
			jp, err := jwtPredicates(jwt)
			if err != nil {
				return nil, fmt.Errorf("authorization.rules[%d]: %w", i, err)
			}
			preds = append(preds, jp...)
		}
		if hs := principal.Headers; hs != nil {
			for _, h := range hs {
				var vs []*xdsmatcherv3.Matcher_MatcherList_Predicate
				for _, val := range h.Values {
					vs = append(vs, headerPredicate(h.Name, &xdsmatcherv3.StringMatcher{MatchPattern: &xdsmatcherv3.StringMatcher_Exact{Exact: val}}))
				}
				preds = append(preds, anyOf(vs))
			}
		}
		if len(preds) == 0 {
			return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.authorization.rule-without-conditions"}}, nil
		}
		name := fmt.Sprintf("%s/authorization/rule/%d", who, i)
		if r.Name != nil && *r.Name != "" {
			name = *r.Name
		}
		pred := preds[0]
		if len(preds) > 1 {
			pred = &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_AndMatcher{
				AndMatcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_PredicateList{Predicate: preds}}}
		}
		list.Matchers = append(list.Matchers, &xdsmatcherv3.Matcher_MatcherList_FieldMatcher{Predicate: pred, OnMatch: rbacOnMatch(name, string(r.Action))})
	}
	def := "Deny"
	if a.DefaultAction != nil {
		def = string(*a.DefaultAction)
	}
	tree := &xdsmatcherv3.Matcher{OnNoMatch: rbacOnMatch("default", def)}
	if len(list.Matchers) > 0 {
		tree.MatcherType = &xdsmatcherv3.Matcher_MatcherList_{MatcherList: list}
	}
	var frags []policy.Fragment
	if geo.any() {
		gf, err := geoFragments(geo, who, m, geoDecided, failed)
		if err != nil {
			return nil, err
		}
		frags = gf
	}
	return append(frags, policy.Fragment{
		Capability: "rbac",
		// On in the chain, as Envoy Gateway leaves it: without rules it
		// allows everything but where a route's config says.
		Filter:               &policy.HTTPFilter{Name: rbacFilter, Order: orderRBAC, Enabled: true, Typed: &rbachttpv3.RBAC{}},
		TypedPerFilterConfig: map[string]proto.Message{rbacFilter: &rbachttpv3.RBACPerRoute{Rbac: &rbachttpv3.RBAC{Matcher: tree}}},
	}), nil
}

// pathRegex is the regular expression Envoy Gateway matches :path with: a
// prefix matches whole segments (and what follows: query, fragment,
// parameters), an exact path only itself, a regular expression as given,
// anchored at the start.
func pathRegex(typ *gwapiv1.PathMatchType, v string) string {
	switch {
	case typ != nil && *typ == "Exact":
		return "^" + regexp.QuoteMeta(v) + `(\?.*|#.*|;.*|$)`
	case typ != nil && *typ == "RegularExpression":
		if strings.HasPrefix(v, "^") {
			return v
		}
		return "^" + v
	}
	return "^" + regexp.QuoteMeta(strings.TrimSuffix(v, "/")) + `(/.*|\?.*|#.*|;.*|$)`
}

// headerPredicate matches a request header's value.
func headerPredicate(name string, sm *xdsmatcherv3.StringMatcher) *xdsmatcherv3.Matcher_MatcherList_Predicate {
	return &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_{
		SinglePredicate: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate{
			Input:   typedExtension("http_header", &matcherv3.HttpRequestHeaderMatchInput{HeaderName: name}),
			Matcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_SinglePredicate_ValueMatch{ValueMatch: sm},
		}}}
}

// anyOf is one predicate, or several combined with or.
func anyOf(ps []*xdsmatcherv3.Matcher_MatcherList_Predicate) *xdsmatcherv3.Matcher_MatcherList_Predicate {
	if len(ps) == 1 {
		return ps[0]
	}
	return &xdsmatcherv3.Matcher_MatcherList_Predicate{MatchType: &xdsmatcherv3.Matcher_MatcherList_Predicate_OrMatcher{
		OrMatcher: &xdsmatcherv3.Matcher_MatcherList_Predicate_PredicateList{Predicate: ps}}}
}

// rbacOnMatch is an RBAC action (Allow or Deny) named name.
func rbacOnMatch(name, action string) *xdsmatcherv3.Matcher_OnMatch {
	act := &rbacv3.Action{Name: "ALLOW"}
	if action == "Deny" {
		act = &rbacv3.Action{Name: "DENY", Action: rbacv3.RBAC_DENY}
	}
	return &xdsmatcherv3.Matcher_OnMatch{OnMatch: &xdsmatcherv3.Matcher_OnMatch_Action{Action: typedExtension(name, act)}}
}

// typedExtension packs a message built here (packing a known message
// cannot fail).
func typedExtension(name string, m proto.Message) *xdscorev3.TypedExtensionConfig {
	a, err := anypb.New(m)
	if err != nil {
		panic(fmt.Sprintf("envoygateway: packing %T: %v", m, err))
	}
	return &xdscorev3.TypedExtensionConfig{Name: name, TypedConfig: a}
}

// renderBasicAuth is Envoy Gateway's basic auth: a filter per policy,
// envoy.filters.http.basic_auth/securitypolicy/<ns>/<name>, enabled on the
// route with the users of the policy's Secret (key .htpasswd). gwpol never
// reads Secret data, so the users are the Secret's placeholder where
// Envoy Gateway inlines them.
func renderBasicAuth(b *egv1a1.BasicAuth, who policyName) ([]policy.Fragment, error) {
	if b == nil || b.Users.Name == "" {
		return nil, fmt.Errorf("basicAuth.users: no Secret named")
	}
	ns := who.namespace
	if b.Users.Namespace != nil && *b.Users.Namespace != "" {
		ns = string(*b.Users.Namespace)
	}
	users := &corev3.DataSource{Specifier: &corev3.DataSource_InlineString{InlineString: policy.SecretPlaceholder(ns, string(b.Users.Name), ".htpasswd")}}
	name := "envoy.filters.http.basic_auth/" + who.String()
	filter := &basicauthv3.BasicAuth{Users: users}
	if b.ForwardUsernameHeader != nil {
		filter.ForwardUsernameHeader = *b.ForwardUsernameHeader
	}
	return []policy.Fragment{{
		Capability:           "basic_auth",
		Filter:               &policy.HTTPFilter{Name: name, Order: orderBasicAuth, Typed: filter},
		TypedPerFilterConfig: map[string]proto.Message{name: &basicauthv3.BasicAuthPerRoute{Users: users}},
	}}, nil
}

// extAuth is what renderExtAuth renders of SecurityPolicy's spec.extAuth
// (Envoy Gateway's ExtAuth): the record unrendered checks a value
// against, never decoded into.
type extAuth struct {
	GRPC             *extAuthService `json:"grpc"`
	HTTP             *extAuthService `json:"http"`
	HeadersToExtAuth []string        `json:"headersToExtAuth"`
	FailOpen         *bool           `json:"failOpen"`
	StatusOnError    *int32          `json:"statusOnError"`
	RecomputeRoute   *bool           `json:"recomputeRoute"`
	Timeout          *string         `json:"timeout"`
	BodyToExtAuth    *struct {
		MaxRequestBytes uint32 `json:"maxRequestBytes"`
	} `json:"bodyToExtAuth"`
}

type extAuthService struct {
	BackendRef  *backendRef  `json:"backendRef"`
	BackendRefs []backendRef `json:"backendRefs"`
	Path        *string      `json:"path"`
	// HeadersToBackend (http only) are the authorization response's
	// headers Envoy copies onto the request to the backend.
	HeadersToBackend []string `json:"headersToBackend"`
}

// renderExtAuth is Envoy Gateway's external authorization: a filter per
// policy, envoy.filters.http.ext_authz/securitypolicy/<ns>/<name>, calling
// the gRPC or HTTP service (timeout 10s unless set) with the listed
// request headers (and up to a limit of the body), enabled on the route;
// recomputeRoute picks the route again after the check. The service is
// one backend: a Service port, reached through gwpol's cluster for it
// (kube_<ns>_<name>_<port>; HTTP/2 for gRPC, with Envoy Gateway's window
// sizes, as every cluster it builds for a gRPC destination has them), or an
// Envoy Gateway Backend,
// through the cluster gwpol gives it as a route's backend
// (backend_<ns>_<name>_<port>) — where Envoy Gateway names a cluster
// after the policy. The authority (and the HTTP service's host) is Envoy
// Gateway's: <name>.<ns>:<port> for a Service, the Backend's first FQDN
// endpoint, else <name>.<ns> (a Unix socket). The HTTP service's
// headersToBackend become the response headers allowed upstream
// (case-insensitive exact matches), as Envoy Gateway writes them.
// Several backends, and any key extAuth's type has no field for (at any
// depth, see unrendered), are not rendered yet: a value using them is
// unsupported, named by its path.
func renderExtAuth(e *egv1a1.ExtAuth, who policyName, m *model.Model) ([]policy.Fragment, error) {
	if k := unrendered(who.at, e, reflect.TypeFor[extAuth]()); k != "" {
		return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.extAuth." + k}}, nil
	}
	if e == nil {
		e = &egv1a1.ExtAuth{}
	}
	var cluster0 *egv1a1.BackendCluster
	var path *string
	var headersToBackend []string
	grpc := false
	switch {
	case e.GRPC != nil:
		cluster0, grpc = &e.GRPC.BackendCluster, true
	case e.HTTP != nil:
		cluster0, path, headersToBackend = &e.HTTP.BackendCluster, e.HTTP.Path, e.HTTP.HeadersToBackend
	default:
		return nil, fmt.Errorf("extAuth: neither grpc nor http")
	}
	refs := clusterRefs(cluster0)
	if len(refs) != 1 {
		return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.extAuth.backend"}}, nil
	}
	ref := refs[0]
	cluster, host, ok := extensionBackend(ref, who.namespace, m)
	if !ok {
		return []policy.Fragment{{Capability: "envoygateway.SecurityPolicy.extAuth.backend"}}, nil
	}
	clusterFrag := &clusterv3.Cluster{Name: cluster}
	timeout, err := durationOr(e.Timeout, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("extAuth.timeout: %w", err)
	}
	cfg := &extauthzv3.ExtAuthz{TransportApiVersion: corev3.ApiVersion_V3, FailureModeAllow: e.FailOpen != nil && *e.FailOpen,
		ClearRouteCache: e.RecomputeRoute != nil && *e.RecomputeRoute}
	if b := e.BodyToExtAuth; b != nil {
		cfg.WithRequestBody = &extauthzv3.BufferSettings{MaxRequestBytes: b.MaxRequestBytes}
	}
	if grpc {
		h2, err := httpOptions(&upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{
			ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
				ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: http2Windows()}}}})
		if err != nil {
			return nil, err
		}
		clusterFrag.TypedExtensionProtocolOptions = h2.TypedExtensionProtocolOptions
		cfg.Services = &extauthzv3.ExtAuthz_GrpcService{GrpcService: &corev3.GrpcService{Timeout: timeout,
			TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster, Authority: host}}}}
	} else {
		hs := &extauthzv3.HttpService{
			ServerUri: &corev3.HttpUri{Uri: "http://" + host + deref(path), HttpUpstreamType: &corev3.HttpUri_Cluster{Cluster: cluster}, Timeout: timeout}}
		if len(headersToBackend) > 0 {
			allowed := &matcherv3.ListStringMatcher{}
			for _, h := range headersToBackend {
				allowed.Patterns = append(allowed.Patterns, &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: h}, IgnoreCase: true})
			}
			hs.AuthorizationResponse = &extauthzv3.AuthorizationResponse{AllowedUpstreamHeaders: allowed}
		}
		cfg.Services = &extauthzv3.ExtAuthz_HttpService{HttpService: hs}
	}
	if len(e.HeadersToExtAuth) > 0 {
		cfg.AllowedHeaders = &matcherv3.ListStringMatcher{}
		for _, h := range e.HeadersToExtAuth {
			cfg.AllowedHeaders.Patterns = append(cfg.AllowedHeaders.Patterns, &matcherv3.StringMatcher{MatchPattern: &matcherv3.StringMatcher_Exact{Exact: h}, IgnoreCase: true})
		}
	}
	if e.StatusOnError != nil {
		cfg.StatusOnError = &typev3.HttpStatus{Code: typev3.StatusCode(*e.StatusOnError)}
	}
	name := "envoy.filters.http.ext_authz/" + who.String()
	return []policy.Fragment{{
		Capability: "ext_authz",
		Filter:     &policy.HTTPFilter{Name: name, Order: orderExtAuth, Typed: cfg},
		TypedPerFilterConfig: map[string]proto.Message{name: &extauthzv3.ExtAuthzPerRoute{Override: &extauthzv3.ExtAuthzPerRoute_CheckSettings{
			CheckSettings: &extauthzv3.CheckSettings{}}}},
		TypedClusters: []proto.Message{clusterFrag},
	}}, nil
}

// extensionBackend is the cluster gwpol calls an extension service's one
// backendRef through, and the authority Envoy Gateway gives the calls: a
// Service port's cluster (kube_<ns>_<name>_<port>) and <name>.<ns>:<port>;
// an Envoy Gateway Backend's cluster as a route's backendRef names it
// (backend_<ns>_<name>_<port>) and its first FQDN endpoint's
// <hostname>:<port>, else <name>.<ns> (a Unix socket or an IP). ok is
// false for another kind, or a Service without a port.
func extensionBackend(ref backendRef, policyNS string, m *model.Model) (cluster, authority string, ok bool) {
	k := ref.key(policyNS)
	switch {
	case k.Group == "" && k.Kind == "Service":
		if ref.Port == nil {
			return "", "", false
		}
		return policy.ServiceCluster(k.Namespace, k.Name, *ref.Port), net.JoinHostPort(k.Name+"."+k.Namespace, strconv.Itoa(int(*ref.Port))), true
	case k.Group == Group && k.Kind == backend.Kind:
		port := int32(0)
		if ref.Port != nil {
			port = *ref.Port
		}
		cluster = strings.ToLower(k.Kind) + "_" + k.Namespace + "_" + k.Name + "_" + strconv.Itoa(int(port))
		authority = k.Name + "." + k.Namespace
		if fqdn, ok := backendFQDN(k, m); ok {
			authority = fqdn
		}
		return cluster, authority, true
	}
	return "", "", false
}

// backendFQDN is a Backend's first FQDN endpoint as host:port.
// clusterRefs are an extension's backends as gwpol resolves them: its
// backendRef, then its backendRefs.
func clusterRefs(c *egv1a1.BackendCluster) []backendRef {
	var out []backendRef
	if c.BackendRef != nil {
		out = append(out, refOf(*c.BackendRef))
	}
	for _, r := range c.BackendRefs {
		out = append(out, weightedRefOf(r))
	}
	return out
}

// weightedRefOf is refOf for an Envoy Gateway backendRef, which may carry
// a weight.
func weightedRefOf(r egv1a1.BackendRef) backendRef {
	out := refOf(r.BackendObjectReference)
	out.unweighted = r.Weight != nil && *r.Weight == 0
	return out
}

// refOf is a Gateway API backend reference as gwpol resolves it.
func refOf(r gwapiv1.BackendObjectReference) backendRef {
	out := backendRef{Name: string(r.Name), Port: (*int32)(r.Port)}
	if r.Group != nil {
		out.Group = string(*r.Group)
	}
	if r.Kind != nil {
		out.Kind = string(*r.Kind)
	}
	if r.Namespace != nil {
		ns := string(*r.Namespace)
		out.Namespace = &ns
	}
	return out
}

func backendFQDN(k model.Key, m *model.Model) (string, bool) {
	if m == nil {
		return "", false
	}
	spec, _ := readBackend(nil, m, k.Namespace, k.Name)
	if spec == nil {
		return "", false
	}
	for _, ep := range spec.Endpoints {
		if ep.FQDN != nil {
			return net.JoinHostPort(ep.FQDN.Hostname, strconv.Itoa(int(ep.FQDN.Port))), true
		}
	}
	return "", false
}

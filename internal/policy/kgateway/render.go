package kgateway

import (
	"encoding/json"
	"fmt"

	"slices"
	"strconv"
	"strings"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	dynmodulesv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/dynamic_modules/v3"
	dynmodulefilterv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/dynamic_modules/v3"
	omitcanaryv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/omit_canary_hosts/v3"
	previoushostsv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/retry/host/previous_hosts/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	matcherv3 "github.com/envoyproxy/go-control-plane/envoy/type/matcher/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/policy"
)

// RenderField implements policy.Renderer: each TrafficPolicy field becomes
// kgateway's Envoy configuration — an HTTP filter in the HCM chain
// (disabled by default) enabled and configured per resource through
// typed_per_filter_config, or RouteAction/Route fields. Filter names are
// kgateway's. Fragments declare the capability they need; transformation
// and acl need kgateway's dynamic modules.
func (Kind) RenderField(in policy.FieldInput, env *policy.Env) ([]policy.Fragment, error) {
	if len(in.Values) == 0 {
		return nil, nil
	}
	if _, ok := in.Values[0].(*RuleRewrite); ok {
		return nil, nil // Gateway API routing renders the rule's own rewrite
	}
	r := &fieldRenderer{in: in, env: env}
	f, ok := fieldRenderers[in.Key]
	if !ok {
		return nil, nil // metadata only
	}
	return f(r)
}

type fieldRenderer struct {
	in  policy.FieldInput
	env *policy.Env
}

// ns is the namespace of the i-th contributor.
func (r *fieldRenderer) ns(i int) string {
	if i < len(r.in.Namespaces) {
		return r.in.Namespaces[i]
	}
	return ""
}

var fieldRenderers = map[string]func(*fieldRenderer) ([]policy.Fragment, error){
	"rateLimit.local":  (*fieldRenderer).localRateLimit,
	"rateLimit.global": (*fieldRenderer).globalRateLimit,
	"cors":             (*fieldRenderer).cors,
	"csrf":             (*fieldRenderer).csrf,
	"headerModifiers":  (*fieldRenderer).headerModifiers,
	"buffer":           (*fieldRenderer).buffer,
	"faultInjection":   (*fieldRenderer).fault,
	"jwt":              (*fieldRenderer).jwt,
	"extAuth":          (*fieldRenderer).extAuth,
	"extProc":          (*fieldRenderer).extProc,
	"rbac":             (*fieldRenderer).rbac,
	"basicAuth":        (*fieldRenderer).basicAuth,
	"apiKeyAuth":       (*fieldRenderer).apiKeyAuth,
	"oidc":             (*fieldRenderer).oauth2,
	"compression":      (*fieldRenderer).compression,
	"decompression":    (*fieldRenderer).decompression,
	"timeouts":         (*fieldRenderer).timeouts,
	"retry":            (*fieldRenderer).retry,
	"urlRewrite":       (*fieldRenderer).urlRewrite,
	"autoHostRewrite":  (*fieldRenderer).autoHostRewrite,
	"tracing":          (*fieldRenderer).tracing,
	"transformation":   (*fieldRenderer).transformation,
	"httpACL":          (*fieldRenderer).acl,
	"internalRedirect": (*fieldRenderer).internalRedirect,
	"statPrefix":       (*fieldRenderer).statPrefix,
	"requestMirror":    (*fieldRenderer).requestMirror,
}

// Filter order in the HCM chain (lower runs first), as kgateway sorts the
// filters it writes (pluginsdk/filters/stages.go: CompareStagedFilters):
// each is placed relative to a stage of its chain (WellKnownFilterStage)
// by a relative weight — BeforeStage -1, DuringStage 0, AfterStage 1 —
// and filters of one place sort by their precedence weight (one type
// only), then by name. The places are those of the traffic policy
// plugin's HttpFilters (trafficpolicy/traffic_policy_plugin.go, read at
// 0ba18d7f and 60a960b4, which agree), compression.go's
// addCompressionFiltersIfNeeded and utils.go's AddDisableFilterIfNeeded /
// AddAuthEnabledFilterIfNeeded.
const (
	stageFault = iota
	stageCors
	stageWaf
	stageAuthN
	stageAuthZ
	stageRateLimit
	stageAccepted
	stageOutAuth
	stageRoute
)

// stageSpan is the room of one stage among filter orders: relative
// weights from -stageSpan/2 to stageSpan/2 stay within it.
const stageSpan = 10

// staged is the order of a filter placed relative to stage by rel.
func staged(stage, rel int) int { return 100 + stage*stageSpan + rel }

const (
	// orderDisableMarker: every family's global_disable/<family> marker
	// runs before the first stage, so a disable is known to every filter.
	orderDisableMarker = 100 + stageFault*stageSpan - 1
	orderFault         = 100 + stageFault*stageSpan
	orderCors          = 100 + stageCors*stageSpan
	// orderDecompressor: every decompressor right after CORS (AfterStage);
	// the compressors from there on, one weight each (compression.go).
	orderDecompressor = orderCors + 1
	orderCompressor   = orderCors + 1
	// orderACL: the HTTP ACL dynamic module, at the WAF stage (the stored
	// revisions of the plugin predate it: not read from source).
	orderACL = 100 + stageWaf*stageSpan
	// orderOAuth2 runs before the JWT filters of the stage, which may read
	// the ID token it sets.
	orderOAuth2     = 100 + stageAuthN*stageSpan - 1
	orderJWT        = 100 + stageAuthN*stageSpan
	orderBasicAuth  = orderJWT
	orderAPIKeyAuth = orderJWT
	orderExtAuth    = orderJWT
	// orderAuthEnabled: each authentication family's "<family>_enabled"
	// metadata filter, after the stage.
	orderAuthEnabled = orderJWT + 1
	orderRBAC        = 100 + stageAuthZ*stageSpan
	// orderExtProc: an ext_proc filter's default place, after
	// authorization; orderHealthCheck, a ListenerPolicy's health check,
	// shares it (listenerpolicy's HttpFilters: AfterStage(AuthZStage)),
	// so that authorization may guard it and no rate limit throttles it.
	orderExtProc        = 100 + stageAuthZ*stageSpan + 1
	orderHealthCheck    = orderExtProc
	orderRateLimit      = 100 + stageRateLimit*stageSpan
	orderTransformation = 100 + stageAccepted*stageSpan - 1
	orderCsrf           = 100 + stageRoute*stageSpan
	orderHeaderMutation = orderCsrf
	orderBuffer         = orderCsrf
)

func typeURL(name string) string { return "type.googleapis.com/" + name }

// disabledConfig switches a filter off on one resource.
func disabledConfig() *routev3.FilterConfig { return &routev3.FilterConfig{Disabled: true} }

// enabledConfig switches a disabled-by-default filter on, as configured in
// the chain (kgateway's FilterConfig with an empty config).
func enabledConfig() *routev3.FilterConfig { return &routev3.FilterConfig{Config: &anypb.Any{}} }

// --------------------------------------------------------------------------
// cors, csrf, buffer and fault: render_<family>.go; rate limits:
// render_ratelimit.go; header mutation: render_headers.go

// --------------------------------------------------------------------------
// GatewayExtension-backed fields: the lookup they share (ext_auth, ext_proc,
// jwt and oauth2 each have their render_<family>.go; their disable
// markers render_disable.go)

// extension finds and decodes a GatewayExtension (namespace defaults to
// the policy's).
func (r *fieldRenderer) extension(ref *NamespacedObjectReference, policyNS string) (*GatewayExtension, string, error) {
	return lookupExtension(r.env.Model, ref, policyNS)
}

// serviceCluster names the cluster of a backendRef and returns the
// fragment cluster entry asking for it (HTTP/2 for gRPC services).
func serviceCluster(ref gwv1.BackendObjectReference, ns string, http2 bool) (string, *clusterv3.Cluster) {
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	port := int32(0)
	if ref.Port != nil {
		port = int32(*ref.Port)
	}
	name := policy.ServiceCluster(ns, string(ref.Name), port)
	if ref.Kind != nil && *ref.Kind != "" && *ref.Kind != "Service" {
		name = strings.ToLower(string(*ref.Kind)) + "_" + ns + "_" + string(ref.Name) + "_" + strconv.Itoa(int(port)) // as render/envoy names a backend object's cluster
	}
	c := &clusterv3.Cluster{Name: name}
	if http2 {
		c.TypedExtensionProtocolOptions = map[string]*anypb.Any{"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": pack(&upstreamhttpv3.HttpProtocolOptions{
			UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
				ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: &corev3.Http2ProtocolOptions{}}}}})}
	}
	return name, c
}

// --------------------------------------------------------------------------
// route action fields

func (r *fieldRenderer) timeouts() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Timeouts)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ra := &routev3.RouteAction{}
	var err error
	if v.Request != nil {
		if ra.Timeout, err = duration("timeouts.request", *v.Request); err != nil {
			return nil, err
		}
	}
	if v.StreamIdle != nil {
		if ra.IdleTimeout, err = duration("timeouts.streamIdle", *v.StreamIdle); err != nil {
			return nil, err
		}
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: ra}}, nil
}

// Envoy's retry host predicates by kgateway's names.
var retryHostPredicates = map[string]func() *routev3.RetryPolicy_RetryHostPredicate{
	"PreviousHosts": func() *routev3.RetryPolicy_RetryHostPredicate {
		return &routev3.RetryPolicy_RetryHostPredicate{Name: "envoy.retry_host_predicates.previous_hosts",
			ConfigType: &routev3.RetryPolicy_RetryHostPredicate_TypedConfig{TypedConfig: pack(&previoushostsv3.PreviousHostsPredicate{})}}
	},
	"OmitCanaryHosts": func() *routev3.RetryPolicy_RetryHostPredicate {
		return &routev3.RetryPolicy_RetryHostPredicate{Name: "envoy.retry_host_predicates.omit_canary_hosts",
			ConfigType: &routev3.RetryPolicy_RetryHostPredicate_TypedConfig{TypedConfig: pack(&omitcanaryv3.OmitCanaryHostsPredicate{})}}
	},
}

func (r *fieldRenderer) retry() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Retry)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	if len(r.in.Contributors) > 0 && strings.HasPrefix(r.in.Contributors[0], Group+"/") {
		v = retryDefaults(v) // a policy's, not a route rule's own
	}
	rp := &routev3.RetryPolicy{}
	rp.RetryOn = retryOn(v)
	var err error
	if v.Attempts != nil {
		if *v.Attempts < 0 {
			return nil, fmt.Errorf("retry.attempts: %d is negative", *v.Attempts)
		}
		rp.NumRetries = wrapperspb.UInt32(uint32(*v.Attempts))
	}
	if v.PerTryTimeout != nil {
		if rp.PerTryTimeout, err = duration("retry.perTryTimeout", *v.PerTryTimeout); err != nil {
			return nil, err
		}
	}
	if rp.RetriableStatusCodes, err = statusCodes("retry.statusCodes", v.StatusCodes); err != nil {
		return nil, err
	}
	if v.BackoffBaseInterval != nil {
		base, err := duration("retry.backoffBaseInterval", *v.BackoffBaseInterval)
		if err != nil {
			return nil, err
		}
		rp.RetryBackOff = &routev3.RetryPolicy_RetryBackOff{BaseInterval: base}
	}
	for _, p := range v.RetryHostPredicates {
		pred, ok := retryHostPredicates[p]
		if !ok {
			return nil, fmt.Errorf("retryHostPredicates: %q is not PreviousHosts or OmitCanaryHosts", p)
		}
		rp.RetryHostPredicate = append(rp.RetryHostPredicate, pred())
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: &routev3.RouteAction{RetryPolicy: rp}}}, nil
}

// retryOn is Envoy's retry_on as kgateway writes it: the conditions as a
// set (sorted, each once), with retriable-status-codes added when status
// codes are given — so the order they are listed in changes nothing.
func retryOn(v *Retry) string {
	on := slices.Clone(v.RetryOn)
	if len(v.StatusCodes) > 0 {
		on = append(on, "retriable-status-codes")
	}
	slices.Sort(on)
	return strings.Join(slices.Compact(on), ",")
}

// statusCodes are HTTP status codes as Envoy's unsigned integers.
func statusCodes(field string, codes []int32) ([]uint32, error) {
	var out []uint32
	for _, c := range codes {
		if c < 0 {
			return nil, fmt.Errorf("%s: %d is not a status code", field, c)
		}
		out = append(out, uint32(c))
	}
	return out, nil
}

// retryDefaults is a policy's retry as the API server stores it: the
// CRD defaults one attempt and a 25ms backoff base interval (a route
// rule's own retry has no such defaults).
func retryDefaults(r *Retry) *Retry {
	c := *r
	if c.Attempts == nil {
		one := int32(1)
		c.Attempts = &one
	}
	if c.BackoffBaseInterval == nil {
		base := "25ms"
		c.BackoffBaseInterval = &base
	}
	return &c
}

func (r *fieldRenderer) urlRewrite() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*URLRewrite)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	if v.PathRegex == nil {
		return nil, nil
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: &routev3.RouteAction{RegexRewrite: &matcherv3.RegexMatchAndSubstitute{
		Pattern: &matcherv3.RegexMatcher{Regex: v.PathRegex.Pattern}, Substitution: v.PathRegex.Substitution,
	}}}}, nil
}

func (r *fieldRenderer) autoHostRewrite() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*bool)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ra := &routev3.RouteAction{}
	if *v {
		// kgateway writes the rewrite only when it is on: false is no
		// setting, yet it still decides the field over a less specific
		// level's true (trafficpolicy/traffic_policy_plugin.go:
		// handlePerRoutePolicies, `enabled.GetValue()`)
		ra.HostRewriteSpecifier = &routev3.RouteAction_AutoHostRewrite{AutoHostRewrite: wrapperspb.Bool(true)}
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: ra}}, nil
}

func (r *fieldRenderer) internalRedirect() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*InternalRedirect)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	codes, err := statusCodes("internalRedirect.redirectResponseCodes", v.RedirectResponseCodes)
	if err != nil {
		return nil, err
	}
	p := &routev3.InternalRedirectPolicy{RedirectResponseCodes: codes, AllowCrossSchemeRedirect: derefOr(v.AllowCrossSchemeRedirect), ResponseHeadersToCopy: v.ResponseHeadersToCopy}
	if v.MaxRedirects != nil {
		p.MaxInternalRedirects = wrapperspb.UInt32(*v.MaxRedirects)
	}
	return []policy.Fragment{{Capability: "route", TypedRouteAction: &routev3.RouteAction{InternalRedirectPolicy: p}}}, nil
}

// requestMirror tunes the mirrors the route's RequestMirror filters make;
// it adds none.
func (r *fieldRenderer) requestMirror() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RequestMirrorPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	m := &routev3.RouteAction_RequestMirrorPolicy{DisableShadowHostSuffixAppend: derefOr(v.DisableShadowHostSuffixAppend), HostRewriteLiteral: derefOr(v.HostRewriteLiteral)}
	return []policy.Fragment{{Capability: "route", TypedMirrorPolicy: m}}, nil
}

func (r *fieldRenderer) statPrefix() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*string)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	return []policy.Fragment{{Capability: "route", TypedRoute: &routev3.Route{StatPrefix: *v}}}, nil
}

// tracing overrides the listener's tracing on a route: its sampling
// percentages and span tags, or sampling off (disable).
func (r *fieldRenderer) tracing() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RouteTracing)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	t := &routev3.Tracing{}
	if v.Disable != nil {
		t.ClientSampling, t.RandomSampling, t.OverallSampling = fraction(nil, 0), fraction(nil, 0), fraction(nil, 0)
		return []policy.Fragment{{Capability: "tracing", TypedRoute: &routev3.Route{Tracing: t}}}, nil
	}
	if v.ClientSampling != nil {
		t.ClientSampling = fraction(v.ClientSampling, 0)
	}
	if v.RandomSampling != nil {
		t.RandomSampling = fraction(v.RandomSampling, 0)
	}
	if v.OverallSampling != nil {
		t.OverallSampling = fraction(v.OverallSampling, 0)
	}
	tags, err := customTags(v.Attributes)
	if err != nil {
		return nil, fmt.Errorf("tracing.%w", err)
	}
	t.CustomTags = tags
	return []policy.Fragment{{Capability: "tracing", TypedRoute: &routev3.Route{Tracing: t}}}, nil
}

// --------------------------------------------------------------------------
// kgateway's dynamic-module filters

// dynamicModule is kgateway's rustformation-based filter and per-route
// config: the policy value travels as JSON in a StringValue.
func dynamicModule(capability, name, filterName string, order int, filterJSON, routeJSON string) policy.Fragment {
	module := &dynmodulesv3.DynamicModuleConfig{Name: "rust_module"}
	filter := &dynmodulefilterv3.DynamicModuleFilter{DynamicModuleConfig: module, FilterName: filterName, FilterConfig: pack(wrapperspb.String(filterJSON))}
	per := &dynmodulefilterv3.DynamicModuleFilterPerRoute{
		DynamicModuleConfig: module,
		FilterName:          filterName, // what Envoy reads; per_route_config_name is its deprecated spelling, kgateway writes both
		//lint:ignore SA1019 kgateway writes the deprecated spelling too, and gwpol reproduces it
		PerRouteConfigName: filterName,
		FilterConfig:       pack(wrapperspb.String(routeJSON)),
	}
	return policy.Fragment{Capability: capability, Filter: &policy.HTTPFilter{Name: name, Typed: filter, Order: order},
		TypedPerFilterConfig: map[string]proto.Message{name: per}}
}

func (r *fieldRenderer) transformation() ([]policy.Fragment, error) {
	vals := make([]*TransformationPolicy, len(r.in.Values))
	for i, v := range r.in.Values {
		t, ok := v.(*TransformationPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", v)
		}
		vals[i] = t
	}
	var js []byte
	var err error
	switch r.in.Strategy {
	case policy.AugmentedDeep, policy.OverridableDeep:
		js, err = deepMergedTransformation(vals)
	default:
		js, err = shallowTransformation(vals)
	}
	if js == nil || err != nil {
		return nil, err // kgateway writes no transformation for an empty one
	}
	return []policy.Fragment{dynamicModule("transformation", "dynamic_modules/simple_mutations", "rustformation", orderTransformation, "{}", string(js))}, nil
}

// shallowTransformation is the per-route JSON of the one policy a shallow
// merge keeps (the first), as kgateway serializes its spec: nil for an
// empty one.
func shallowTransformation(vals []*TransformationPolicy) ([]byte, error) {
	if len(vals) == 0 || vals[0].Request == nil && vals[0].Response == nil {
		return nil, nil
	}
	return json.Marshal(&TransformationPolicy{Request: bodyDefault(vals[0].Request), Response: bodyDefault(vals[0].Response)})
}

// deepMergedTransformation is kgateway's deep merge of transformations
// (the preferred policy first in vals), which works on the policies'
// JSON rather than their fields: the result starts as the preferred
// policy's JSON and each less preferred policy in turn becomes the base
// the result so far is folded into. Per direction (request, response):
// a base without the direction takes the result's whole; otherwise the
// base's add, remove and set lists are followed by the result's (so the
// preferred policy's entries come last and win in Envoy), the result's
// body replaces the base's when it has one, and everything else of the
// direction — its dynamicMetadata — stays the base's. So dynamicMetadata
// is the least preferred policy's that has the direction at all, the
// others' dropped. The JSON is written back from a map, its keys sorted,
// even for one policy. Nil when no policy sets a direction.
func deepMergedTransformation(vals []*TransformationPolicy) ([]byte, error) {
	var merged map[string]any
	for _, v := range vals {
		if v.Request == nil && v.Response == nil {
			continue // an empty transformation has no config to merge
		}
		base, err := transformationJSON(&TransformationPolicy{Request: bodyDefault(v.Request), Response: bodyDefault(v.Response)})
		if err != nil {
			return nil, err
		}
		if merged != nil {
			for _, dir := range []string{"response", "request"} {
				foldTransformDirection(base, merged, dir)
			}
		}
		merged = base
	}
	if merged == nil {
		return nil, nil
	}
	return json.Marshal(merged)
}

// transformationJSON is v as the generic JSON value kgateway's deep merge
// reads it as.
func transformationJSON(v *TransformationPolicy) (map[string]any, error) {
	js, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	var m map[string]any
	if err := json.Unmarshal(js, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// foldTransformDirection folds the more preferred result's direction dir
// into base's (deepMergedTransformation).
func foldTransformDirection(base, preferred map[string]any, dir string) {
	b, okB := base[dir].(map[string]any)
	p, okP := preferred[dir].(map[string]any)
	switch {
	case !okB:
		if okP {
			base[dir] = p
		}
		return
	case !okP:
		return
	}
	for _, list := range []string{"add", "remove", "set"} {
		bl, okBL := b[list].([]any)
		pl, okPL := p[list].([]any)
		switch {
		case !okBL:
			if okPL {
				b[list] = pl
			}
		case okPL:
			b[list] = append(bl, pl...)
		}
	}
	if body, ok := p["body"]; ok {
		b["body"] = body
	}
}

// bodyDefault gives a body without parseAs the CRD's default, AsString:
// kgateway serializes the policy as the API server stored it.
func bodyDefault(t *Transform) *Transform {
	if t == nil || t.Body == nil || t.Body.ParseAs != "" {
		return t
	}
	c, b := *t, *t.Body
	b.ParseAs = "AsString"
	c.Body = &b
	return &c
}

func (r *fieldRenderer) acl() ([]policy.Fragment, error) {
	// Deep merge: the preferred policy's rules first.
	var merged *ACLPolicy
	for _, val := range r.in.Values {
		v, ok := val.(*ACLPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		if merged == nil {
			c := *v
			c.Rules = slices.Clone(v.Rules)
			merged = &c
			continue
		}
		merged.Rules = append(merged.Rules, v.Rules...)
	}
	js, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	filterJSON := `{"defaultAction":"allow"}`
	return []policy.Fragment{dynamicModule("acl", "dynamic_modules/http-acl", "http-acl", orderACL, filterJSON, string(js))}, nil
}

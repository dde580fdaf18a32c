package trafficpolicy

import (
	"encoding/json"
	"fmt"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"
)

var _ policy.Renderer = Kind{}

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

// Filter order in the HCM chain (lower runs first), roughly Envoy's usual
// stages: faults, CORS, access control, authentication, authorization,
// rate limiting, mutation, buffering, compression.
const (
	orderFault = 100 + iota*10
	orderCors
	orderCsrf
	orderACL
	orderExtProc
	orderOAuth2
	orderJWT
	orderBasicAuth
	orderAPIKeyAuth
	orderExtAuth
	orderRBAC
	// orderRateLimit is one stage for local and global rate limits, as in
	// kgateway: within it filters sort by name, so a global limit
	// ("ratelimit/<ns>/<name>") runs before the local one ("ratelimit/local").
	orderRateLimit
	orderHeaderMutation
	orderTransformation
	orderBuffer
	orderDecompressor
	orderCompressor
)

func typeURL(name string) string { return "type.googleapis.com/" + name }

type obj = map[string]any

// disabledConfig switches a filter off on one resource.
func disabledConfig() obj {
	return obj{"@type": typeURL("envoy.config.route.v3.FilterConfig"), "disabled": true}
}

// enabledConfig switches a disabled-by-default filter on, as configured in
// the chain (kgateway's FilterConfig with an empty config).
func enabledConfig() obj {
	return obj{"@type": typeURL("envoy.config.route.v3.FilterConfig"), "config": obj{}}
}

// fragment is one filter with its per-resource config.
func fragment(capability, name string, order int, filterCfg, perFilter obj) policy.Fragment {
	fr := policy.Fragment{Capability: capability, Filter: &policy.HTTPFilter{Name: name, Config: filterCfg, Order: order}}
	if perFilter != nil {
		fr.PerFilterConfig = map[string]map[string]any{name: perFilter}
	}
	return fr
}

// dur formats a duration the way protojson writes google.protobuf.Duration.
func dur(d time.Duration) string { return strconv.FormatFloat(d.Seconds(), 'f', -1, 64) + "s" }

func parseDur(s string) (string, error) {
	d, err := time.ParseDuration(s)
	if err != nil {
		return "", fmt.Errorf("%q is not a duration", s)
	}
	return dur(d), nil
}

func percent(p *int32, def int32) obj {
	v := def
	if p != nil {
		v = *p
	}
	return obj{"numerator": max(v, 0), "denominator": "HUNDRED"}
}

// --------------------------------------------------------------------------
// rate limiting

func (r *fieldRenderer) localRateLimit() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*LocalRateLimitPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "ratelimit/local"
	typ := typeURL("envoy.extensions.filters.http.local_ratelimit.v3.LocalRateLimit")
	per := obj{
		"@type": typ, "stat_prefix": "http_local_rate_limiter",
		"filter_enabled":  obj{"runtime_key": "local_rate_limit_enabled", "default_value": percent(v.PercentEnabled, 100)},
		"filter_enforced": obj{"runtime_key": "local_rate_limit_enforced", "default_value": percent(v.PercentEnforced, 100)},
	}
	if tb := v.TokenBucket; tb != nil {
		fill, err := parseDur(tb.FillInterval)
		if err != nil {
			return nil, fmt.Errorf("tokenBucket.fillInterval: %w", err)
		}
		tokens := int32(1)
		if tb.TokensPerFill != nil {
			tokens = *tb.TokensPerFill
		}
		per["token_bucket"] = obj{"max_tokens": tb.MaxTokens, "tokens_per_fill": tokens, "fill_interval": fill}
	}
	return []policy.Fragment{fragment("local_ratelimit", name, orderRateLimit,
		obj{"@type": typ, "stat_prefix": "http_local_rate_limiter"}, per)}, nil
}

func (r *fieldRenderer) globalRateLimit() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RateLimitPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ext, ns, err := r.extension(&v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	p := ext.Spec.RateLimit
	if p == nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no rateLimit", ns, ext.Name)
	}
	if p.Domain == "" {
		return nil, fmt.Errorf("GatewayExtension %s/%s: rateLimit.domain is empty", ns, ext.Name)
	}
	cluster, cl := serviceCluster(p.GrpcService.BackendRef.BackendObjectReference, ns, true)
	failOpen := p.FailOpen == nil || *p.FailOpen
	timeout := "0.1s"
	if p.Timeout != nil {
		if timeout, err = parseDur(*p.Timeout); err != nil {
			return nil, fmt.Errorf("rateLimit.timeout: %w", err)
		}
	}
	cfg := obj{
		"@type":             typeURL("envoy.extensions.filters.http.ratelimit.v3.RateLimit"),
		"domain":            p.Domain,
		"failure_mode_deny": !failOpen,
		"timeout":           timeout,
		"rate_limit_service": obj{
			"grpc_service":          obj{"envoy_grpc": obj{"cluster_name": cluster}},
			"transport_api_version": "V3",
		},
	}
	if p.XRateLimitHeaders == "DraftVersion03" {
		cfg["enable_x_ratelimit_headers"] = "DRAFT_VERSION_03"
	}
	var limits []any
	for _, d := range v.Descriptors {
		var actions []any
		for _, e := range d.Entries {
			switch e.Type {
			case "Generic":
				if e.Generic == nil {
					return nil, fmt.Errorf("descriptor entry of type Generic needs generic")
				}
				actions = append(actions, obj{"generic_key": obj{"descriptor_key": e.Generic.Key, "descriptor_value": e.Generic.Value}})
			case "Header":
				if e.Header == nil || *e.Header == "" {
					return nil, fmt.Errorf("descriptor entry of type Header needs header")
				}
				actions = append(actions, obj{"request_headers": obj{"header_name": *e.Header, "descriptor_key": *e.Header}})
			case "RemoteAddress":
				actions = append(actions, obj{"remote_address": obj{}})
			case "Path":
				actions = append(actions, obj{"request_headers": obj{"header_name": ":path", "descriptor_key": "path"}})
			default:
				return nil, fmt.Errorf("descriptor entry type %q is not Generic, Header, RemoteAddress or Path", e.Type)
			}
		}
		if len(actions) > 0 {
			limits = append(limits, obj{"actions": actions})
		}
	}
	name := "ratelimit/" + ns + "/" + ext.Name
	fr := fragment("ratelimit", name, orderRateLimit, cfg, obj{
		"@type": typeURL("envoy.extensions.filters.http.ratelimit.v3.RateLimitPerRoute"), "rate_limits": limits,
	})
	fr.Clusters = []map[string]any{cl}
	return []policy.Fragment{fr}, nil
}

// --------------------------------------------------------------------------
// cors / csrf / header mutation / buffer / fault

func (r *fieldRenderer) cors() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*CorsPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.cors"
	filter := obj{"@type": typeURL("envoy.extensions.filters.http.cors.v3.Cors")}
	if v.Disable != nil {
		return []policy.Fragment{fragment("cors", name, orderCors, filter, disabledConfig())}, nil
	}
	c := v.HTTPCORSFilter
	per := obj{"@type": typeURL("envoy.extensions.filters.http.cors.v3.CorsPolicy"), "forward_not_matching_preflights": false}
	var origins []any
	for _, o := range c.AllowOrigins {
		origins = append(origins, originMatcher(string(o)))
	}
	if len(origins) > 0 {
		per["allow_origin_string_match"] = origins
	}
	if len(c.AllowMethods) > 0 {
		per["allow_methods"] = joinStrings(c.AllowMethods, ",")
	}
	if len(c.AllowHeaders) > 0 {
		per["allow_headers"] = joinStrings(c.AllowHeaders, ",")
	}
	if len(c.ExposeHeaders) > 0 {
		per["expose_headers"] = joinStrings(c.ExposeHeaders, ",")
	}
	maxAge := c.MaxAge
	if maxAge == 0 {
		maxAge = 5 // the Gateway API default
	}
	per["max_age"] = strconv.Itoa(int(maxAge))
	if c.AllowCredentials != nil {
		per["allow_credentials"] = *c.AllowCredentials
	}
	return []policy.Fragment{fragment("cors", name, orderCors, filter, per)}, nil
}

// originMatcher matches one allowed origin; "*" wildcards become a regex.
func originMatcher(o string) obj {
	if o == "*" {
		return obj{"safe_regex": obj{"regex": ".*"}}
	}
	if strings.Contains(o, "*") {
		parts := strings.Split(o, "*")
		for i, p := range parts {
			parts[i] = regexp.QuoteMeta(p)
		}
		return obj{"safe_regex": obj{"regex": strings.Join(parts, "[^.]+")}}
	}
	return obj{"exact": o}
}

func joinStrings[S ~string](ss []S, sep string) string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = string(s)
	}
	return strings.Join(out, sep)
}

func (r *fieldRenderer) csrf() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*CSRFPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.csrf"
	typ := typeURL("envoy.extensions.filters.http.csrf.v3.CsrfPolicy")
	filter := obj{"@type": typ, "filter_enabled": obj{"default_value": percent(nil, 0)}}
	per := obj{"@type": typ, "filter_enabled": obj{"default_value": percent(v.PercentageEnabled, 100)}}
	if v.PercentageShadowed != nil {
		per["shadow_enabled"] = obj{"default_value": percent(v.PercentageShadowed, 0)}
	}
	var origins []any
	for _, m := range v.AdditionalOrigins {
		origins = append(origins, stringMatcher(m))
	}
	if len(origins) > 0 {
		per["additional_origins"] = origins
	}
	return []policy.Fragment{fragment("csrf", name, orderCsrf, filter, per)}, nil
}

func stringMatcher(m StringMatcher) obj {
	out := obj{}
	switch {
	case m.Exact != nil:
		out["exact"] = *m.Exact
	case m.Prefix != nil:
		out["prefix"] = *m.Prefix
	case m.Suffix != nil:
		out["suffix"] = *m.Suffix
	case m.Contains != nil:
		out["contains"] = *m.Contains
	case m.SafeRegex != nil:
		out["safe_regex"] = obj{"regex": *m.SafeRegex}
	}
	if m.IgnoreCase != nil && *m.IgnoreCase {
		out["ignore_case"] = true
	}
	return out
}

func (r *fieldRenderer) headerModifiers() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*HeaderModifiers)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.extensions.filters.http.header_mutation"
	mutations := obj{}
	if m := r.mutations(v.Request); len(m) > 0 {
		mutations["request_mutations"] = m
	}
	if m := r.mutations(v.Response); len(m) > 0 {
		mutations["response_mutations"] = m
	}
	// The chain's filter carries no mutations of its own (they are per
	// route); kgateway types that empty config as HeaderMutationPerRoute.
	chainType := "envoy.extensions.filters.http.header_mutation.v3.HeaderMutation"
	if r.env.Target == "kgateway" {
		chainType = "envoy.extensions.filters.http.header_mutation.v3.HeaderMutationPerRoute"
	}
	return []policy.Fragment{fragment("header_mutation", name, orderHeaderMutation,
		obj{"@type": typeURL(chainType)},
		obj{"@type": typeURL("envoy.extensions.filters.http.header_mutation.v3.HeaderMutationPerRoute"), "mutations": mutations})}, nil
}

// mutations: set overwrites, add appends, remove removes. A value from a
// Secret is never read; it is written as a placeholder naming the Secret.
func (r *fieldRenderer) mutations(f *HTTPHeaderFilter) []any {
	if f == nil {
		return nil
	}
	var out []any
	add := func(hs []HTTPHeader, action string) {
		for _, h := range hs {
			for _, kv := range r.headerValues(h) {
				a := obj{"header": obj{"key": kv[0], "value": kv[1]}}
				if action != "" {
					a["append_action"] = action
				}
				out = append(out, obj{"append": a})
			}
		}
	}
	add(f.Add, "")
	add(f.Set, "OVERWRITE_IF_EXISTS_OR_ADD")
	for _, h := range f.Remove {
		out = append(out, obj{"remove": h})
	}
	return out
}

// headerValues expands one header: inline, or from a Secret (one key, or
// every key of the Secret when neither name nor key is given).
func (r *fieldRenderer) headerValues(h HTTPHeader) [][2]string {
	if h.SecretRef == nil {
		if h.Name == nil {
			return nil
		}
		val := ""
		if h.Value != nil {
			val = *h.Value
		}
		return [][2]string{{*h.Name, val}}
	}
	ns := r.ns(0)
	if h.SecretRef.Namespace != nil && *h.SecretRef.Namespace != "" {
		ns = *h.SecretRef.Namespace
	}
	sec := h.SecretRef.Name
	switch {
	case h.Name != nil && h.SecretRef.Key != nil:
		return [][2]string{{*h.Name, policy.SecretPlaceholder(ns, sec, *h.SecretRef.Key)}}
	case h.Name != nil:
		return [][2]string{{*h.Name, policy.SecretPlaceholder(ns, sec, *h.Name)}}
	case h.SecretRef.Key != nil:
		return [][2]string{{*h.SecretRef.Key, policy.SecretPlaceholder(ns, sec, *h.SecretRef.Key)}}
	}
	var out [][2]string
	if s := r.env.Model.Secret(ns, sec); s != nil {
		keys := slices.Clone(s.Keys)
		slices.Sort(keys)
		for _, k := range keys {
			out = append(out, [2]string{k, policy.SecretPlaceholder(ns, sec, k)})
		}
	}
	return out
}

func (r *fieldRenderer) buffer() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Buffer)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.buffer"
	filter := obj{"@type": typeURL("envoy.extensions.filters.http.buffer.v3.Buffer"), "max_request_bytes": uint32(4294967295)}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.buffer.v3.BufferPerRoute")}
	switch {
	case v.Disable != nil:
		per["disabled"] = true
	case v.MaxRequestSize != nil:
		n := v.MaxRequestSize.Value()
		if n < 1 || n > 4294967295 {
			return nil, fmt.Errorf("maxRequestSize %s is out of range", v.MaxRequestSize.String())
		}
		per["buffer"] = obj{"max_request_bytes": n}
	default:
		return nil, fmt.Errorf("buffer needs maxRequestSize or disable")
	}
	return []policy.Fragment{fragment("buffer", name, orderBuffer, filter, per)}, nil
}

func (r *fieldRenderer) fault() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*FaultInjectionPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.fault"
	typ := typeURL("envoy.extensions.filters.http.fault.v3.HTTPFault")
	if v.Disable != nil {
		return []policy.Fragment{fragment("fault", name, orderFault, obj{"@type": typ}, disabledConfig())}, nil
	}
	per := obj{"@type": typ}
	if d := v.Delay; d != nil {
		fixed, err := parseDur(d.FixedDelay)
		if err != nil {
			return nil, fmt.Errorf("delay.fixedDelay: %w", err)
		}
		per["delay"] = obj{"fixed_delay": fixed, "percentage": percent(d.Percentage, 100)}
	}
	if a := v.Abort; a != nil {
		ab := obj{"percentage": percent(a.Percentage, 100)}
		switch {
		case a.HTTPStatus != nil:
			ab["http_status"] = *a.HTTPStatus
		case a.GrpcStatus != nil:
			ab["grpc_status"] = *a.GrpcStatus
		default:
			return nil, fmt.Errorf("abort needs httpStatus or grpcStatus")
		}
		per["abort"] = ab
	}
	if rl := v.ResponseRateLimit; rl != nil {
		per["response_rate_limit"] = obj{"fixed_limit": obj{"limit_kbps": rl.KbitsPerSecond}, "percentage": percent(rl.Percentage, 100)}
	}
	if v.MaxActiveFaults != nil {
		per["max_active_faults"] = *v.MaxActiveFaults
	}
	return []policy.Fragment{fragment("fault", name, orderFault, obj{"@type": typ}, per)}, nil
}

// --------------------------------------------------------------------------
// GatewayExtension-backed fields

// extension finds and decodes a GatewayExtension (namespace defaults to
// the policy's).
func (r *fieldRenderer) extension(ref *NamespacedObjectReference, policyNS string) (*GatewayExtension, string, error) {
	if ref == nil {
		return nil, "", fmt.Errorf("extensionRef is missing")
	}
	ns := policyNS
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = *ref.Namespace
	}
	o, ok := r.env.Model.Object(model.Key{Group: Group, Kind: KindGatewayExtension, Namespace: ns, Name: ref.Name})
	if !ok {
		return nil, ns, fmt.Errorf("GatewayExtension %s/%s not found", ns, ref.Name)
	}
	var ext GatewayExtension
	if err := o.Decode(&ext); err != nil {
		return nil, ns, fmt.Errorf("GatewayExtension %s/%s: %v", ns, ref.Name, err)
	}
	ext.Name, ext.Namespace = ref.Name, ns
	return &ext, ns, nil
}

// extensionWeight is the GatewayExtension's kgateway.dev/policy-weight:
// kgateway runs the filters of one stage that call extensions by it,
// higher first (then by name). An unreadable weight counts as 0, as for
// policies.
func (r *fieldRenderer) extensionWeight(ext *GatewayExtension) int32 {
	w, err := strconv.ParseInt(ext.Annotations[AnnotationWeight], 10, 32)
	if err != nil {
		return 0
	}
	return int32(w)
}

// serviceCluster names the cluster of a backendRef and returns the
// fragment cluster entry asking for it (HTTP/2 for gRPC services).
func serviceCluster(ref gwv1.BackendObjectReference, ns string, http2 bool) (string, map[string]any) {
	if ref.Namespace != nil && *ref.Namespace != "" {
		ns = string(*ref.Namespace)
	}
	port := int32(0)
	if ref.Port != nil {
		port = int32(*ref.Port)
	}
	name := policy.ServiceCluster(ns, string(ref.Name), port)
	if ref.Kind != nil && *ref.Kind != "" && *ref.Kind != "Service" {
		name = strings.ToLower(string(*ref.Kind)) + "_" + ns + "_" + string(ref.Name) + "_" + strconv.Itoa(int(port))
	}
	c := obj{"name": name}
	if http2 {
		c["typed_extension_protocol_options"] = obj{
			"envoy.extensions.upstreams.http.v3.HttpProtocolOptions": obj{
				"@type":                typeURL("envoy.extensions.upstreams.http.v3.HttpProtocolOptions"),
				"explicit_http_config": obj{"http2_protocol_options": obj{}},
			},
		}
	}
	return name, c
}

// disableMarker is kgateway's global disable of a filter family: a
// set_metadata filter, placed just before the family, writing
// dev.kgateway.disable_<what>.disable, which every filter of the family
// in the chain honours. A policy that disables the family switches the
// marker on for its resources.
func disableMarker(capability, what string, order int) policy.Fragment {
	fr := familyMarker(capability, what, order)
	fr.PerFilterConfig = map[string]map[string]any{fr.Filter.Name: enabledConfig()}
	return fr
}

// familyMarker is the marker filter alone, switched on nowhere: kgateway
// puts it in every chain that has a filter of the family, so a disable on
// any resource below finds it there.
func familyMarker(capability, what string, order int) policy.Fragment {
	return fragment(capability, "global_disable/"+what, order, obj{
		"@type":    typeURL("envoy.extensions.filters.http.set_metadata.v3.Config"),
		"metadata": []any{obj{"metadata_namespace": disableNamespace(what), "value": obj{"disable": true}}},
	}, nil)
}

func disableNamespace(what string) string { return "dev.kgateway.disable_" + what }

// unlessDisabled wraps a filter that has no switch of its own for the
// family's disable metadata (jwt_authn, ext_proc) the way kgateway does:
// an ExtensionWithMatcher whose Composite runs the filter only while
// dev.kgateway.disable_<what>.disable is not true. Both are upstream
// Envoy extensions, so every target renders it alike.
func unlessDisabled(what, envoyName string, filterCfg obj) obj {
	return obj{
		"@type": typeURL("envoy.extensions.common.matching.v3.ExtensionWithMatcher"),
		"extension_config": obj{"name": "composite_" + what, "typed_config": obj{
			"@type": typeURL("envoy.extensions.filters.http.composite.v3.Composite")}},
		"xds_matcher": obj{"matcher_list": obj{"matchers": []any{obj{
			"predicate": obj{"single_predicate": obj{
				"input": obj{"name": "disable", "typed_config": obj{
					"@type":  typeURL("envoy.extensions.matching.common_inputs.network.v3.DynamicMetadataInput"),
					"filter": disableNamespace(what),
					"path":   []any{obj{"key": "disable"}},
				}},
				"custom_match": obj{"name": "envoy.matching.matchers.metadata_matcher", "typed_config": obj{
					"@type":  typeURL("envoy.extensions.matching.input_matchers.metadata.v3.Metadata"),
					"value":  obj{"bool_match": true},
					"invert": true,
				}},
			}},
			"on_match": obj{"action": obj{"name": "composite-action", "typed_config": obj{
				"@type":        typeURL("envoy.extensions.filters.http.composite.v3.ExecuteFilterAction"),
				"typed_config": obj{"name": envoyName, "typed_config": filterCfg},
			}}},
		}}}},
	}
}

func (r *fieldRenderer) extAuth() ([]policy.Fragment, error) {
	var out []policy.Fragment
	enabled := false // some contributor authorizes (not all disable)
	for i, val := range r.in.Values {
		v, ok := val.(*ExtAuthPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		if v.Disable != nil {
			out = append(out, disableMarker("ext_authz", "ext_auth", orderExtAuth-1))
			continue
		}
		ext, ns, err := r.extension(v.ExtensionRef, r.ns(i))
		if err != nil {
			return nil, err
		}
		p := ext.Spec.ExtAuth
		if p == nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s has no extAuth", ns, ext.Name)
		}
		cfg := obj{
			"@type": typeURL("envoy.extensions.filters.http.ext_authz.v3.ExtAuthz"),
			"filter_enabled_metadata": obj{"filter": "dev.kgateway.disable_ext_auth", "path": []any{obj{"key": "disable"}},
				"value": obj{"bool_match": true}, "invert": true},
			"status_on_error": obj{"code": "Forbidden"},
		}
		var cl map[string]any
		switch {
		case p.GrpcService != nil:
			var name string
			name, cl = serviceCluster(p.GrpcService.BackendRef.BackendObjectReference, ns, true)
			gs := obj{"envoy_grpc": obj{"cluster_name": name}}
			if p.GrpcService.Authority != nil {
				gs["envoy_grpc"].(obj)["authority"] = *p.GrpcService.Authority
			}
			if p.GrpcService.RequestTimeout != nil {
				t, err := parseDur(*p.GrpcService.RequestTimeout)
				if err != nil {
					return nil, fmt.Errorf("grpcService.requestTimeout: %w", err)
				}
				gs["timeout"] = t
			}
			cfg["grpc_service"] = gs
		case p.HTTPService != nil:
			h := p.HTTPService
			var name string
			name, cl = serviceCluster(h.BackendRef.BackendObjectReference, ns, false)
			// kgateway's defaults: the cluster name as the URI (Envoy sends
			// to the cluster either way) and a 2s timeout.
			timeout := "2s"
			if h.RequestTimeout != nil {
				if timeout, err = parseDur(*h.RequestTimeout); err != nil {
					return nil, fmt.Errorf("httpService.requestTimeout: %w", err)
				}
			}
			hs := obj{"server_uri": obj{"uri": name, "cluster": name, "timeout": timeout}}
			if h.PathPrefix != "" {
				hs["path_prefix"] = h.PathPrefix
			}
			cfg["http_service"] = hs
		default:
			return nil, fmt.Errorf("GatewayExtension %s/%s: extAuth needs grpcService or httpService", ns, ext.Name)
		}
		if p.FailOpen != nil {
			cfg["failure_mode_allow"] = *p.FailOpen
		}
		if p.ClearRouteCache != nil {
			cfg["clear_route_cache"] = *p.ClearRouteCache
		}
		if p.StatusOnError != nil {
			cfg["status_on_error"] = obj{"code": statusName(*p.StatusOnError)}
		}
		if p.StatPrefix != nil {
			cfg["stat_prefix"] = *p.StatPrefix
		}
		if b := p.WithRequestBody; b != nil {
			cfg["with_request_body"] = requestBody(b)
		}
		// Switched on as configured in the chain (kgateway's FilterConfig),
		// or with the policy's own check settings.
		per := enabledConfig()
		if len(v.ContextExtensions) > 0 || v.WithRequestBody != nil {
			per = obj{"@type": typeURL("envoy.extensions.filters.http.ext_authz.v3.ExtAuthzPerRoute")}
			cs := obj{}
			if len(v.ContextExtensions) > 0 {
				cs["context_extensions"] = v.ContextExtensions
			}
			if v.WithRequestBody != nil {
				cs["with_request_body"] = requestBody(v.WithRequestBody)
			}
			per["check_settings"] = cs
		}
		fr := fragment("ext_authz", "ext_auth/"+ns+"/"+ext.Name, orderExtAuth, cfg, per)
		fr.Filter.Precedence = r.extensionWeight(ext)
		fr.Clusters = []map[string]any{cl}
		out = append(out, familyMarker("ext_authz", "ext_auth", orderExtAuth-1), fr)
		enabled = true
	}
	return append(out, r.authMetadata("ext_authz", "ext_auth", orderExtAuth+1, !enabled)...), nil
}

func requestBody(b *ExtAuthBufferSettings) obj {
	o := obj{"max_request_bytes": b.MaxRequestBytes}
	if b.AllowPartialMessage != nil {
		o["allow_partial_message"] = *b.AllowPartialMessage
	}
	if b.PackAsBytes != nil {
		o["pack_as_bytes"] = *b.PackAsBytes
	}
	return o
}

// statusName is the envoy.type.v3.StatusCode name of an HTTP status.
func statusName(code int32) string {
	names := map[int32]string{400: "BadRequest", 401: "Unauthorized", 403: "Forbidden", 404: "NotFound", 429: "TooManyRequests",
		500: "InternalServerError", 502: "BadGateway", 503: "ServiceUnavailable", 504: "GatewayTimeout"}
	if n, ok := names[code]; ok {
		return n
	}
	return "Forbidden"
}

func (r *fieldRenderer) extProc() ([]policy.Fragment, error) {
	var out []policy.Fragment
	for i, val := range r.in.Values {
		v, ok := val.(*ExtProcPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		if v.Disable != nil {
			out = append(out, disableMarker("ext_proc", "ext_proc", orderExtProc-1))
			continue
		}
		ext, ns, err := r.extension(v.ExtensionRef, r.ns(i))
		if err != nil {
			return nil, err
		}
		p := ext.Spec.ExtProc
		if p == nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s has no extProc", ns, ext.Name)
		}
		name, cl := serviceCluster(p.GrpcService.BackendRef.BackendObjectReference, ns, true)
		cfg := obj{
			"@type":        typeURL("envoy.extensions.filters.http.ext_proc.v3.ExternalProcessor"),
			"grpc_service": obj{"envoy_grpc": obj{"cluster_name": name}},
		}
		cfg["failure_mode_allow"] = p.FailOpen == nil || *p.FailOpen
		if p.ProcessingMode != nil {
			cfg["processing_mode"] = processingMode(p.ProcessingMode)
		}
		if p.MessageTimeout != nil {
			t, err := parseDur(*p.MessageTimeout)
			if err != nil {
				return nil, fmt.Errorf("messageTimeout: %w", err)
			}
			cfg["message_timeout"] = t
		}
		if p.StatPrefix != nil {
			cfg["stat_prefix"] = *p.StatPrefix
		}
		per := obj{"@type": typeURL("envoy.extensions.filters.http.ext_proc.v3.ExtProcPerRoute"), "overrides": obj{}}
		if v.ProcessingMode != nil {
			per["overrides"] = obj{"processing_mode": processingMode(v.ProcessingMode)}
		}
		fr := fragment("ext_proc", "ext_proc/"+ns+"/"+ext.Name, orderExtProc, unlessDisabled("ext_proc", "envoy.filters.http.ext_proc", cfg), per)
		if p.FilterStage != nil {
			fr.Filter.Precedence = p.FilterStage.Weight // its weight within the stage, higher first
		}
		fr.Clusters = []map[string]any{cl}
		out = append(out, familyMarker("ext_proc", "ext_proc", orderExtProc-1), fr)
	}
	return out, nil
}

func processingMode(m *ProcessingMode) obj {
	out := obj{}
	set := func(key, v string) {
		if v != "" {
			out[key] = enumName(v)
		}
	}
	set("request_header_mode", m.RequestHeaderMode)
	set("response_header_mode", m.ResponseHeaderMode)
	set("request_body_mode", m.RequestBodyMode)
	set("response_body_mode", m.ResponseBodyMode)
	set("request_trailer_mode", m.RequestTrailerMode)
	set("response_trailer_mode", m.ResponseTrailerMode)
	return out
}

// enumName is the Envoy enum value name of a policy's enum string.
// kgateway's API spells most enums as Envoy does (NONE, BUFFERED_PARTIAL),
// which are kept as they are; a CamelCase spelling (BufferedPartial)
// becomes BUFFERED_PARTIAL. Splitting an upper-case name at each capital
// would mangle NONE into N_O_N_E.
func enumName(s string) string {
	if strings.ToUpper(s) == s {
		return s
	}
	var b strings.Builder
	for i, c := range s {
		if i > 0 && c >= 'A' && c <= 'Z' {
			b.WriteByte('_')
		}
		b.WriteRune(c)
	}
	return strings.ToUpper(b.String())
}

func (r *fieldRenderer) jwt() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*JWTAuth)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	typPer := typeURL("envoy.extensions.filters.http.jwt_authn.v3.PerRouteConfig")
	if v.Disable != nil {
		return append([]policy.Fragment{disableMarker("jwt_authn", "jwt", orderJWT-1)},
			r.authMetadata("jwt_authn", "jwt", orderJWT+1, true)...), nil
	}
	ext, ns, err := r.extension(v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	j := ext.Spec.JWT
	if j == nil || len(j.Providers) == 0 {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no jwt providers", ns, ext.Name)
	}
	providers := obj{}
	var reqs []any
	var clusters []map[string]any
	for _, p := range j.Providers {
		pname := ext.Name + "_" + ns + "_" + p.Name
		po := obj{"payload_in_metadata": "payload"}
		if p.Issuer != "" {
			po["issuer"] = p.Issuer
		}
		if len(p.Audiences) > 0 {
			po["audiences"] = p.Audiences
		}
		if p.ForwardToken != nil {
			po["forward"] = *p.ForwardToken
		}
		if ts := p.TokenSource; ts != nil {
			if ts.HeaderSource != nil {
				h := obj{"name": ts.HeaderSource.Header}
				if ts.HeaderSource.Prefix != nil {
					h["value_prefix"] = *ts.HeaderSource.Prefix
				}
				po["from_headers"] = []any{h}
			}
			if ts.QueryParameter != nil {
				po["from_params"] = []any{*ts.QueryParameter}
			}
		}
		var c2h []any
		for _, c := range p.ClaimsToHeaders {
			c2h = append(c2h, obj{"claim_name": c.Name, "header_name": c.Header})
		}
		if len(c2h) > 0 {
			// Headers set from claims can change which route matches:
			// kgateway has Envoy match again.
			po["claim_to_headers"] = c2h
			po["clear_route_cache"] = true
		}
		switch {
		case p.JWKS.Local != nil && p.JWKS.Local.Inline != nil:
			po["local_jwks"] = obj{"inline_string": inlineJWKS(*p.JWKS.Local.Inline)}
		case p.JWKS.Local != nil && p.JWKS.Local.ConfigMapRef != nil:
			po["local_jwks"] = obj{"inline_string": policy.ConfigMapPlaceholder(ns, p.JWKS.Local.ConfigMapRef.Name, "jwks")}
		case p.JWKS.Remote != nil:
			rj := p.JWKS.Remote
			name, cl := serviceCluster(rj.BackendRef, ns, false)
			clusters = append(clusters, cl)
			remote := obj{"http_uri": obj{"uri": rj.URL, "cluster": name, "timeout": "5s"}}
			if rj.CacheDuration != nil {
				d, err := parseDur(*rj.CacheDuration)
				if err != nil {
					return nil, fmt.Errorf("jwks.remote.cacheDuration: %w", err)
				}
				remote["cache_duration"] = d
			}
			if rj.AsyncFetch != nil {
				af := obj{}
				if rj.AsyncFetch.FastListener != nil {
					af["fast_listener"] = *rj.AsyncFetch.FastListener
				}
				if rj.AsyncFetch.FailedRefetchDuration != nil {
					d, err := parseDur(*rj.AsyncFetch.FailedRefetchDuration)
					if err != nil {
						return nil, fmt.Errorf("jwks.remote.asyncFetch.failedRefetchDuration: %w", err)
					}
					af["failed_refetch_duration"] = d
				}
				remote["async_fetch"] = af
			}
			if rp := rj.RetryPolicy; rp != nil {
				p, err := jwksRetry(rp)
				if err != nil {
					return nil, fmt.Errorf("jwks.remote.retryPolicy: %w", err)
				}
				remote["retry_policy"] = p
			}
			po["remote_jwks"] = remote
		default:
			return nil, fmt.Errorf("jwt provider %s needs jwks.local or jwks.remote", p.Name)
		}
		providers[pname] = po
		reqs = append(reqs, obj{"provider_name": pname})
	}
	if j.ValidationMode != nil && *j.ValidationMode == "AllowMissing" {
		reqs = append(reqs, obj{"allow_missing": obj{}})
	}
	reqName := ext.Name + "_" + ns + "_requirements"
	req := obj{"requires_any": obj{"requirements": reqs}}
	if len(reqs) == 1 {
		req = reqs[0].(obj)
	}
	name := "jwt/" + ns + "/" + ext.Name
	fr := fragment("jwt_authn", name, orderJWT, unlessDisabled("jwt", "envoy.filters.http.jwt_authn", obj{
		"@type":           typeURL("envoy.extensions.filters.http.jwt_authn.v3.JwtAuthentication"),
		"providers":       providers,
		"requirement_map": obj{reqName: req},
	}), obj{"@type": typPer, "requirement_name": reqName})
	fr.Clusters = clusters
	return append([]policy.Fragment{familyMarker("jwt_authn", "jwt", orderJWT-1), fr},
		r.authMetadata("jwt_authn", "jwt", orderJWT+1, false)...), nil
}

// jwksRetry is the retry policy of a remote key set fetch.
func jwksRetry(rp *JWKSRetryPolicy) (obj, error) {
	p := obj{}
	if rp.NumRetries != nil {
		p["num_retries"] = *rp.NumRetries
	}
	if b := rp.BackOff; b != nil {
		base, err := parseDur(b.BaseInterval)
		if err != nil {
			return nil, fmt.Errorf("backOff.baseInterval: %w", err)
		}
		bo := obj{"base_interval": base}
		if b.MaxInterval != nil {
			if bo["max_interval"], err = parseDur(*b.MaxInterval); err != nil {
				return nil, fmt.Errorf("backOff.maxInterval: %w", err)
			}
		}
		p["retry_back_off"] = bo
	}
	return p, nil
}

func (r *fieldRenderer) oauth2() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*OAuth2Policy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ext, ns, err := r.extension(&v.ExtensionRef, r.ns(0))
	if err != nil {
		return nil, err
	}
	p := ext.Spec.OAuth2
	if p == nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s has no oauth2", ns, ext.Name)
	}
	if p.TokenEndpoint == nil || p.AuthorizationEndpoint == nil {
		return nil, fmt.Errorf("GatewayExtension %s/%s: oauth2 needs tokenEndpoint and authorizationEndpoint (issuer discovery is not done offline)", ns, ext.Name)
	}
	cluster, cl := serviceCluster(p.BackendRef.BackendObjectReference, ns, false)
	redirect := "%REQ(x-forwarded-proto)%://%REQ(:authority)%/oauth2/redirect"
	redirectPath := "/oauth2/redirect"
	if p.RedirectURI != nil {
		redirect = *p.RedirectURI
		if u, err := url.Parse(*p.RedirectURI); err == nil && u.Path != "" {
			redirectPath = u.Path
		}
	}
	cfg := obj{
		"token_endpoint":         obj{"uri": *p.TokenEndpoint, "cluster": cluster, "timeout": "15s"},
		"authorization_endpoint": *p.AuthorizationEndpoint,
		"redirect_uri":           redirect,
		"redirect_path_matcher":  obj{"path": obj{"exact": redirectPath}},
		"credentials": obj{
			"client_id":    p.Credentials.ClientID,
			"token_secret": obj{"name": policy.SecretSDSName(ns, p.Credentials.ClientSecretRef.Name), "sds_config": obj{"ads": obj{}, "resource_api_version": "V3"}},
			"hmac_secret":  obj{"name": "hmac/" + ns + "/" + ext.Name, "sds_config": obj{"ads": obj{}, "resource_api_version": "V3"}},
		},
	}
	logout := "/logout"
	if p.LogoutPath != nil {
		logout = *p.LogoutPath
	}
	cfg["signout_path"] = obj{"path": obj{"exact": logout}}
	if len(p.Scopes) > 0 {
		cfg["auth_scopes"] = p.Scopes
	}
	if p.ForwardAccessToken != nil {
		cfg["forward_bearer_token"] = *p.ForwardAccessToken
	}
	name := "envoy.filters.http.oauth2/" + ns + "/" + ext.Name
	fr := fragment("oauth2", name, orderOAuth2, obj{
		"@type": typeURL("envoy.extensions.filters.http.oauth2.v3.OAuth2"), "config": cfg,
	}, enabledConfig())
	fr.Clusters = []map[string]any{cl}
	return append([]policy.Fragment{fr}, r.authMetadata("oauth2", "oauth2", orderOAuth2+1, false)...), nil
}

// --------------------------------------------------------------------------
// rbac / basic auth / api key auth

func (r *fieldRenderer) rbac() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Authorization)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	action := "ALLOW"
	if strings.EqualFold(v.Action, "Deny") {
		action = "DENY"
	}
	if len(v.Policy.MatchExpressions) > 0 {
		var exprs []string
		for _, e := range v.Policy.MatchExpressions {
			exprs = append(exprs, "("+e+")")
		}
		return r.rbacMatcher(action, strings.Join(exprs, " || "), v.Policy.AllowedCIDRs, v.Policy.BlockedCIDRs)
	}
	ids := func(cidrs []string, field string) ([]any, error) {
		var out []any
		for _, c := range cidrs {
			cr, err := cidrRange(c)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", field, err)
			}
			out = append(out, obj{"remote_ip": cr})
		}
		return out, nil
	}
	allowed, err := ids(v.Policy.AllowedCIDRs, "allowedCIDRs")
	if err != nil {
		return nil, err
	}
	blocked, err := ids(v.Policy.BlockedCIDRs, "blockedCIDRs")
	if err != nil {
		return nil, err
	}
	principal := obj{"any": true}
	if len(allowed) > 0 {
		principal = obj{"or_ids": obj{"ids": allowed}}
	}
	if len(blocked) > 0 {
		notBlocked := obj{"not_id": obj{"or_ids": obj{"ids": blocked}}}
		if action == "ALLOW" {
			// allowed and not blocked
			principal = obj{"and_ids": obj{"ids": []any{principal, notBlocked}}}
		} else {
			// denied when matched or blocked
			principal = obj{"or_ids": obj{"ids": append([]any{principal}, blocked...)}}
		}
	}
	rules := obj{"action": action, "policies": obj{"policy": obj{
		"permissions": []any{obj{"any": true}}, "principals": []any{principal},
	}}}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.rbac.v3.RBACPerRoute"), "rbac": obj{"rules": rules}}
	return []policy.Fragment{fragment("rbac", "envoy.filters.http.rbac", orderRBAC,
		obj{"@type": typeURL("envoy.extensions.filters.http.rbac.v3.RBAC")}, per)}, nil
}

// rbacMatcher renders a CEL rule with the RBAC matcher tree: on match the
// action applies, otherwise the opposite.
func (r *fieldRenderer) rbacMatcher(action, expr string, allowed, blocked []string) ([]policy.Fragment, error) {
	if len(allowed) > 0 || len(blocked) > 0 {
		return nil, fmt.Errorf("matchExpressions cannot be combined with allowedCIDRs/blockedCIDRs here")
	}
	other := "DENY"
	if action == "DENY" {
		other = "ALLOW"
	}
	act := func(a string) obj {
		return obj{"name": "envoy.filters.rbac.action", "typed_config": obj{
			"@type": typeURL("envoy.config.rbac.v3.Action"), "name": strings.ToLower(a) + "-request", "action": a,
		}}
	}
	matcher := obj{
		"matcher_list": obj{"matchers": []any{obj{
			"predicate": obj{"single_predicate": obj{
				"input": obj{"name": "envoy.matching.inputs.cel_data_input", "typed_config": obj{
					"@type": typeURL("xds.type.matcher.v3.HttpAttributesCelMatchInput")}},
				"custom_match": obj{"name": "envoy.matching.matchers.cel_matcher", "typed_config": obj{
					"@type": typeURL("xds.type.matcher.v3.CelMatcher"), "expr_match": obj{"cel_expr_string": expr}}},
			}},
			"on_match": obj{"action": act(action)},
		}}},
		"on_no_match": obj{"action": act(other)},
	}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.rbac.v3.RBACPerRoute"), "rbac": obj{"matcher": matcher}}
	return []policy.Fragment{fragment("rbac", "envoy.filters.http.rbac", orderRBAC,
		obj{"@type": typeURL("envoy.extensions.filters.http.rbac.v3.RBAC")}, per)}, nil
}

func cidrRange(c string) (obj, error) {
	ip, bits, ok := strings.Cut(c, "/")
	n := 32
	if strings.Contains(ip, ":") {
		n = 128
	}
	if ok {
		v, err := strconv.Atoi(bits)
		if err != nil || v < 0 || v > n {
			return nil, fmt.Errorf("%q is not a CIDR", c)
		}
		n = v
	}
	return obj{"address_prefix": ip, "prefix_len": n}, nil
}

func (r *fieldRenderer) basicAuth() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*BasicAuthPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.basic_auth"
	filter := obj{"@type": typeURL("envoy.extensions.filters.http.basic_auth.v3.BasicAuth"), "users": obj{"inline_string": "#"}}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.basic_auth.v3.BasicAuthPerRoute")}
	switch {
	case v.Disable != nil:
		off := disabledConfig()
		off["config"] = obj{} // as kgateway writes it
		return append([]policy.Fragment{fragment("basic_auth", name, orderBasicAuth, filter, off)},
			r.authMetadata("basic_auth", "basic_auth", orderBasicAuth+1, true)...), nil
	case len(v.Users) > 0:
		per["users"] = obj{"inline_string": strings.Join(v.Users, "\n")}
	case v.SecretRef != nil:
		ns := r.ns(0)
		if v.SecretRef.Namespace != nil && *v.SecretRef.Namespace != "" {
			ns = *v.SecretRef.Namespace
		}
		key := ".htpasswd"
		if v.SecretRef.Key != nil {
			key = *v.SecretRef.Key
		}
		per["users"] = obj{"inline_string": policy.SecretPlaceholder(ns, v.SecretRef.Name, key)}
	default:
		return nil, fmt.Errorf("basicAuth needs users, secretRef or disable")
	}
	return append([]policy.Fragment{fragment("basic_auth", name, orderBasicAuth, filter, per)},
		r.authMetadata("basic_auth", "basic_auth", orderBasicAuth+1, false)...), nil
}

func (r *fieldRenderer) apiKeyAuth() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*APIKeyAuth)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	const name = "envoy.filters.http.api_key_auth"
	filter := obj{"@type": typeURL("envoy.extensions.filters.http.api_key_auth.v3.ApiKeyAuth")}
	if v.Disable != nil {
		return append([]policy.Fragment{fragment("api_key_auth", name, orderAPIKeyAuth, filter, disabledConfig())},
			r.authMetadata("api_key_auth", "api_key_auth", orderAPIKeyAuth+1, true)...), nil
	}
	var sources []any
	for _, s := range v.KeySources {
		src := obj{}
		if s.Header != nil {
			src["header"] = *s.Header
		}
		if s.Query != nil {
			src["query"] = *s.Query
		}
		if s.Cookie != nil {
			src["cookie"] = *s.Cookie
		}
		sources = append(sources, src)
	}
	if len(sources) == 0 {
		sources = []any{obj{"header": "api-key"}}
	}
	// Each Secret key is a client ID whose value is its API key; values are
	// never read, so they are placeholders naming the Secret.
	var creds []any
	add := func(s *model.Opaque) {
		keys := slices.Clone(s.Keys)
		slices.Sort(keys)
		for _, k := range keys {
			creds = append(creds, obj{"client": k, "key": policy.SecretPlaceholder(s.Namespace, s.Name, k)})
		}
	}
	switch {
	case v.SecretRef != nil:
		ns := r.ns(0)
		if v.SecretRef.Namespace != nil && *v.SecretRef.Namespace != "" {
			ns = string(*v.SecretRef.Namespace)
		}
		if s := r.env.Model.Secret(ns, string(v.SecretRef.Name)); s != nil {
			add(s)
		}
	case v.SecretSelector != nil:
		for _, s := range r.env.Model.Secrets {
			if matchLabels(v.SecretSelector.MatchLabels, s.Labels) {
				add(s)
			}
		}
	}
	if len(creds) == 0 {
		return nil, fmt.Errorf("apiKeyAuth: no credentials (no Secret with keys found)")
	}
	per := obj{"@type": typeURL("envoy.extensions.filters.http.api_key_auth.v3.ApiKeyAuthPerRoute"),
		"credentials": creds, "key_sources": sources}
	// The key is not forwarded upstream unless the policy asks
	// (kgateway's forwardCredential defaults to false).
	fw := obj{}
	if v.ClientIDHeader != nil {
		fw["header"] = *v.ClientIDHeader
	}
	if v.ForwardCredential == nil || !*v.ForwardCredential {
		fw["hide_credentials"] = true
	}
	per["forwarding"] = fw
	return append([]policy.Fragment{fragment("api_key_auth", name, orderAPIKeyAuth, filter, per)},
		r.authMetadata("api_key_auth", "api_key_auth", orderAPIKeyAuth+1, false)...), nil
}

func matchLabels(sel, ls map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if ls[k] != v {
			return false
		}
	}
	return true
}

// --------------------------------------------------------------------------
// compression

var compressorLibs = map[string][2]string{
	"gzip":   {"envoy.extensions.compression.gzip.compressor.v3.Gzip", "envoy.extensions.compression.gzip.decompressor.v3.Gzip"},
	"brotli": {"envoy.extensions.compression.brotli.compressor.v3.Brotli", "envoy.extensions.compression.brotli.decompressor.v3.Brotli"},
	"zstd":   {"envoy.extensions.compression.zstd.compressor.v3.Zstd", "envoy.extensions.compression.zstd.decompressor.v3.Zstd"},
}

func libraries(ls []string) ([]string, error) {
	if len(ls) == 0 {
		return []string{"gzip"}, nil
	}
	var out []string
	for _, l := range ls {
		k := strings.ToLower(l)
		if _, ok := compressorLibs[k]; !ok {
			return nil, fmt.Errorf("library %q is not Gzip, Brotli or Zstd", l)
		}
		out = append(out, k)
	}
	return out, nil
}

func (r *fieldRenderer) compression() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*ResponseCompression)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	libs, err := libraries(v.Libraries)
	if err != nil {
		return nil, err
	}
	var out []policy.Fragment
	for _, l := range libs {
		common := obj{}
		if v.MinContentLengthBytes != nil {
			common["min_content_length"] = *v.MinContentLengthBytes
		}
		if len(v.ContentTypes) > 0 {
			common["content_type"] = v.ContentTypes
		}
		cfg := obj{
			"@type":                     typeURL("envoy.extensions.filters.http.compressor.v3.Compressor"),
			"compressor_library":        obj{"name": l, "typed_config": obj{"@type": typeURL(compressorLibs[l][0])}},
			"response_direction_config": obj{"common_config": common},
		}
		per := obj{"@type": typeURL("envoy.extensions.filters.http.compressor.v3.CompressorPerRoute")}
		if v.Disable != nil {
			per["disabled"] = true
		} else {
			per["overrides"] = obj{"response_direction_config": obj{}}
		}
		out = append(out, fragment("compressor", "envoy.filters.http.compressor/"+l, orderCompressor, cfg, per))
	}
	return out, nil
}

func (r *fieldRenderer) decompression() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RequestDecompression)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	libs, err := libraries(v.Libraries)
	if err != nil {
		return nil, err
	}
	var out []policy.Fragment
	for _, l := range libs {
		cfg := obj{
			"@type":                typeURL("envoy.extensions.filters.http.decompressor.v3.Decompressor"),
			"decompressor_library": obj{"name": l, "typed_config": obj{"@type": typeURL(compressorLibs[l][1])}},
		}
		per := enabledConfig()
		if v.Disable != nil {
			per = disabledConfig()
		}
		out = append(out, fragment("decompressor", "envoy.filters.http.decompressor/"+l, orderDecompressor, cfg, per))
	}
	return out, nil
}

// --------------------------------------------------------------------------
// route action fields

func (r *fieldRenderer) timeouts() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Timeouts)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	ra := obj{}
	if v.Request != nil {
		d, err := parseDur(*v.Request)
		if err != nil {
			return nil, fmt.Errorf("timeouts.request: %w", err)
		}
		ra["timeout"] = d
	}
	if v.StreamIdle != nil {
		d, err := parseDur(*v.StreamIdle)
		if err != nil {
			return nil, fmt.Errorf("timeouts.streamIdle: %w", err)
		}
		ra["idle_timeout"] = d
	}
	return []policy.Fragment{{Capability: "route", RouteAction: ra}}, nil
}

func (r *fieldRenderer) retry() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*Retry)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	rp := obj{}
	on := slices.Clone(v.RetryOn)
	if len(v.StatusCodes) > 0 && !slices.Contains(on, "retriable-status-codes") {
		on = append(on, "retriable-status-codes")
	}
	if len(on) > 0 {
		rp["retry_on"] = strings.Join(on, ",")
	}
	if v.Attempts != nil {
		rp["num_retries"] = *v.Attempts
	}
	if v.PerTryTimeout != nil {
		d, err := parseDur(*v.PerTryTimeout)
		if err != nil {
			return nil, fmt.Errorf("retry.perTryTimeout: %w", err)
		}
		rp["per_try_timeout"] = d
	}
	if len(v.StatusCodes) > 0 {
		rp["retriable_status_codes"] = v.StatusCodes
	}
	if v.BackoffBaseInterval != nil {
		d, err := parseDur(*v.BackoffBaseInterval)
		if err != nil {
			return nil, fmt.Errorf("retry.backoffBaseInterval: %w", err)
		}
		rp["retry_back_off"] = obj{"base_interval": d}
	}
	var preds []any
	for _, p := range v.RetryHostPredicates {
		switch p {
		case "PreviousHosts":
			preds = append(preds, obj{"name": "envoy.retry_host_predicates.previous_hosts", "typed_config": obj{
				"@type": typeURL("envoy.extensions.retry.host.previous_hosts.v3.PreviousHostsPredicate")}})
		case "OmitCanaryHosts":
			preds = append(preds, obj{"name": "envoy.retry_host_predicates.omit_canary_hosts", "typed_config": obj{
				"@type": typeURL("envoy.extensions.retry.host.omit_canary_hosts.v3.OmitCanaryHostsPredicate")}})
		default:
			return nil, fmt.Errorf("retryHostPredicates: %q is not PreviousHosts or OmitCanaryHosts", p)
		}
	}
	if len(preds) > 0 {
		rp["retry_host_predicate"] = preds
	}
	return []policy.Fragment{{Capability: "route", RouteAction: obj{"retry_policy": rp}}}, nil
}

func (r *fieldRenderer) urlRewrite() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*URLRewrite)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	if v.PathRegex == nil {
		return nil, nil
	}
	return []policy.Fragment{{Capability: "route", RouteAction: obj{"regex_rewrite": obj{
		"pattern": obj{"regex": v.PathRegex.Pattern}, "substitution": v.PathRegex.Substitution,
	}}}}, nil
}

func (r *fieldRenderer) autoHostRewrite() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*bool)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	return []policy.Fragment{{Capability: "route", RouteAction: obj{"auto_host_rewrite": *v}}}, nil
}

func (r *fieldRenderer) internalRedirect() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*InternalRedirect)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	p := obj{}
	if len(v.RedirectResponseCodes) > 0 {
		p["redirect_response_codes"] = v.RedirectResponseCodes
	}
	if v.MaxRedirects != nil {
		p["max_internal_redirects"] = *v.MaxRedirects
	}
	if v.AllowCrossSchemeRedirect != nil {
		p["allow_cross_scheme_redirect"] = *v.AllowCrossSchemeRedirect
	}
	if len(v.ResponseHeadersToCopy) > 0 {
		p["response_headers_to_copy"] = v.ResponseHeadersToCopy
	}
	return []policy.Fragment{{Capability: "route", RouteAction: obj{"internal_redirect_policy": p}}}, nil
}

// requestMirror tunes the mirrors the route's RequestMirror filters make;
// it adds none.
func (r *fieldRenderer) requestMirror() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RequestMirrorPolicy)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	m := obj{}
	if v.DisableShadowHostSuffixAppend != nil {
		m["disable_shadow_host_suffix_append"] = *v.DisableShadowHostSuffixAppend
	}
	if v.HostRewriteLiteral != nil {
		m["host_rewrite_literal"] = *v.HostRewriteLiteral
	}
	return []policy.Fragment{{Capability: "route", MirrorPolicy: m}}, nil
}

func (r *fieldRenderer) statPrefix() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*string)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	return []policy.Fragment{{Capability: "route", Route: obj{"stat_prefix": *v}}}, nil
}

func (r *fieldRenderer) tracing() ([]policy.Fragment, error) {
	v, ok := r.in.Values[0].(*RouteTracing)
	if !ok {
		return nil, fmt.Errorf("unexpected value %T", r.in.Values[0])
	}
	t := obj{}
	if v.Disable != nil {
		t["client_sampling"] = percent(nil, 0)
		t["random_sampling"] = percent(nil, 0)
		t["overall_sampling"] = percent(nil, 0)
		return []policy.Fragment{{Capability: "tracing", Route: obj{"tracing": t}}}, nil
	}
	if v.ClientSampling != nil {
		t["client_sampling"] = percent(v.ClientSampling, 0)
	}
	if v.RandomSampling != nil {
		t["random_sampling"] = percent(v.RandomSampling, 0)
	}
	if v.OverallSampling != nil {
		t["overall_sampling"] = percent(v.OverallSampling, 0)
	}
	var tags []any
	for _, a := range v.Attributes {
		tag := obj{"tag": a.Name}
		switch {
		case a.Literal != nil:
			tag["literal"] = obj{"value": a.Literal.Value}
		case a.Environment != nil:
			e := obj{"name": a.Environment.Name}
			if a.Environment.DefaultValue != nil {
				e["default_value"] = *a.Environment.DefaultValue
			}
			tag["environment"] = e
		case a.RequestHeader != nil:
			h := obj{"name": a.RequestHeader.Name}
			if a.RequestHeader.DefaultValue != nil {
				h["default_value"] = *a.RequestHeader.DefaultValue
			}
			tag["request_header"] = h
		case a.Metadata != nil:
			var path []any
			for _, s := range a.Metadata.MetadataKey.Path {
				path = append(path, obj{"key": s.Key})
			}
			m := obj{"kind": obj{strings.ToLower(a.Metadata.Kind): obj{}},
				"metadata_key": obj{"key": a.Metadata.MetadataKey.Key, "path": path}}
			if a.Metadata.DefaultValue != nil {
				m["default_value"] = *a.Metadata.DefaultValue
			}
			tag["metadata"] = m
		default:
			continue
		}
		tags = append(tags, tag)
	}
	if len(tags) > 0 {
		t["custom_tags"] = tags
	}
	return []policy.Fragment{{Capability: "tracing", Route: obj{"tracing": t}}}, nil
}

// --------------------------------------------------------------------------
// kgateway's dynamic-module filters

// dynamicModule is kgateway's rustformation-based filter and per-route
// config: the policy value travels as JSON in a StringValue.
func dynamicModule(capability, name, filterName string, order int, filterJSON, routeJSON string) policy.Fragment {
	module := obj{"name": "rust_module"}
	return fragment(capability, name, order, obj{
		"@type":                 typeURL("envoy.extensions.filters.http.dynamic_modules.v3.DynamicModuleFilter"),
		"dynamic_module_config": module,
		"filter_name":           filterName,
		"filter_config":         obj{"@type": typeURL("google.protobuf.StringValue"), "value": filterJSON},
	}, obj{
		"@type":                 typeURL("envoy.extensions.filters.http.dynamic_modules.v3.DynamicModuleFilterPerRoute"),
		"dynamic_module_config": module,
		"filter_name":           filterName, // what Envoy reads; per_route_config_name is its deprecated spelling, kgateway writes both
		"per_route_config_name": filterName,
		"filter_config":         obj{"@type": typeURL("google.protobuf.StringValue"), "value": routeJSON},
	})
}

func (r *fieldRenderer) transformation() ([]policy.Fragment, error) {
	// Deep merge concatenates the contributors' lists; kgateway applies
	// the preferred (first) policy's entries last, so they win in Envoy.
	merged := &TransformationPolicy{}
	for i := len(r.in.Values) - 1; i >= 0; i-- {
		v, ok := r.in.Values[i].(*TransformationPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", r.in.Values[i])
		}
		merged.Request = mergeTransform(merged.Request, v.Request)
		merged.Response = mergeTransform(merged.Response, v.Response)
	}
	js, err := json.Marshal(merged)
	if err != nil {
		return nil, err
	}
	return []policy.Fragment{dynamicModule("transformation", "dynamic_modules/simple_mutations", "rustformation", orderTransformation, "{}", string(js))}, nil
}

func mergeTransform(a, b *Transform) *Transform {
	switch {
	case b == nil:
		return a
	case a == nil:
		c := *b
		return &c
	}
	out := *a
	out.Set = append(slices.Clone(a.Set), b.Set...)
	out.Add = append(slices.Clone(a.Add), b.Add...)
	out.Remove = append(slices.Clone(a.Remove), b.Remove...)
	out.DynamicMetadata = append(slices.Clone(a.DynamicMetadata), b.DynamicMetadata...)
	if b.Body != nil {
		out.Body = b.Body
	}
	return &out
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

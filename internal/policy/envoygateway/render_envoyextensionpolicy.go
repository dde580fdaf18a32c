package envoygateway

import (
	"fmt"
	"slices"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	luav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	upstreamhttpv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/upstreams/http/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/encoding/protojson"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/anypb"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/structpb"

	egv1a1 "github.com/envoyproxy/gateway/api/v1alpha1"

	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// This file renders EnvoyExtensionPolicy as Envoy Gateway's translator
// does. Each extension of the policy in effect on a route is an HTTP
// filter of its own, named <Envoy filter>/<owner>/<extension>/<index>
// after the policy that owns the field (the route's when it merges into
// its Gateway's and sets the field, see policyName) and the entry's index
// in the list; the filter is in every listener's chain, disabled, and the
// routes the policy reaches enable it with a per-route config. In the
// chain Lua scripts come first, then external processors, then Wasm
// modules, each kind's filters by index and then by name.

// envRenderers are the fields whose rendering reads more than the value:
// the ConfigMaps a Lua script comes from, the external processors that
// failed open, whether the policy fails where it is rendered (a
// SecurityPolicy's geolocation filter, renderAuthorizationValue). They take the whole field input and merge the values
// themselves (effectiveValue).
var envRenderers = map[string]func(in policy.FieldInput, env *policy.Env, who policyName) ([]policy.Fragment, error){
	"EnvoyExtensionPolicy.lua":     renderLua,
	"EnvoyExtensionPolicy.extProc": renderExtProc,
	"EnvoyExtensionPolicy.wasm":    renderWasm,
	"SecurityPolicy.authorization": renderAuthorizationValue,
	"SecurityPolicy.jwt":           renderJWTField,
}

// extensionFilter is the disabled chain filter of one extension entry
// and the per-route config that enables it. Envoy Gateway orders the
// filters of one extension kind by their index, then by name: the index
// is the filter's precedence (lower first), the name breaks ties.
func extensionFilter(name string, order, index int, cfg, perRoute proto.Message) policy.Fragment {
	return policy.Fragment{
		Filter:               &policy.HTTPFilter{Name: name, Order: order, Precedence: -int32(index), Typed: cfg},
		TypedPerFilterConfig: map[string]proto.Message{name: perRoute},
	}
}

// enableOnRoute is the per-route config that turns a disabled filter on
// with its own configuration (an empty config).
func enableOnRoute() *routev3.FilterConfig { return &routev3.FilterConfig{Config: &anypb.Any{}} }

// renderLua is a Lua filter per script,
// envoy.filters.http.lua/<owner>/lua/<i>, with the script as its default
// source code; a route enables it with an empty config, or with a
// LuaPerRoute carrying the entry's filterContext. A script from a
// ConfigMap (valueRef, in the owner's namespace) is read from its lua
// key, else from its only — or first, by name — key, as Envoy Gateway
// falls back; gwpol never reads ConfigMap data, so the source code names
// the ConfigMap key (policy.ConfigMapPlaceholder) where Envoy Gateway
// inlines the script.
func renderLua(in policy.FieldInput, env *policy.Env, who policyName) ([]policy.Fragment, error) {
	v, err := effectiveValue(in, "EnvoyExtensionPolicy")
	if err != nil {
		return nil, err
	}
	ls, err := typedAs[[]egv1a1.Lua](v)
	if err != nil {
		return nil, fmt.Errorf("lua: %w", err)
	}
	var frags []policy.Fragment
	for i, l := range ls {
		code, err := luaCode(l, env, who.namespace)
		if err != nil {
			return nil, fmt.Errorf("lua[%d]: %w", i, err)
		}
		var perRoute proto.Message = enableOnRoute()
		if fc := l.FilterContext; fc != nil && len(fc.Raw) > 0 && string(fc.Raw) != "null" {
			ctx := &structpb.Struct{}
			// The typed Lua holds filterContext as raw JSON; Envoy's proto Struct is built from it.
			if err := protojson.Unmarshal(fc.Raw, ctx); err != nil {
				return nil, fmt.Errorf("lua[%d].filterContext: %w", i, err)
			}
			perRoute = &luav3.LuaPerRoute{FilterContext: ctx}
		}
		name := fmt.Sprintf("envoy.filters.http.lua/%s/lua/%d", who, i)
		f := extensionFilter(name, orderLua, i, &luav3.Lua{DefaultSourceCode: &corev3.DataSource{
			Specifier: &corev3.DataSource_InlineString{InlineString: code}}}, perRoute)
		f.Capability = "lua"
		frags = append(frags, f)
	}
	return frags, nil
}

// luaCode is a script's source: inline, or the ConfigMap key it is read
// from.
func luaCode(l egv1a1.Lua, env *policy.Env, ns string) (string, error) {
	if l.Type != "ValueRef" {
		if l.Inline == nil {
			return "", fmt.Errorf("type %s without inline", l.Type)
		}
		return *l.Inline, nil
	}
	if l.ValueRef == nil {
		return "", fmt.Errorf("type ValueRef without valueRef")
	}
	var cm *model.Opaque
	if env != nil && env.Model != nil {
		cm = env.Model.ConfigMap(ns, string(l.ValueRef.Name))
	}
	var keys []string
	if cm != nil {
		keys = dataKeys(cm, "lua")
	}
	if len(keys) == 0 {
		return "", fmt.Errorf("ConfigMap %s/%s not found or without data", ns, l.ValueRef.Name)
	}
	key := "lua"
	if !slices.Contains(keys, key) {
		key = slices.Min(keys)
	}
	return policy.ConfigMapPlaceholder(ns, string(l.ValueRef.Name), key), nil
}

// extProcKeys are the spec.extProc keys renderExtProc renders.
var extProcKeys = []string{"backendRef", "backendRefs", "backendSettings", "messageTimeout", "failOpen", "shadowMode", "statusOnError", "processingMode", "metadata"}

// extServiceTimeout is the timeout of Envoy Gateway's gRPC calls to an
// extension service.
const extServiceTimeout = 10 * time.Second

// renderExtProc is an external processor filter per entry,
// envoy.filters.http.ext_proc/<owner>/extproc/<i>, calling the entry's
// gRPC service (authority <name>.<namespace>[:<port>] of the first
// backendRef) through the cluster Envoy Gateway names after the entry,
// envoyextensionpolicy/<owner namespace>/<owner name>/extproc/<i> — an
// EDS cluster of the backends' endpoints speaking HTTP/2, fed those of
// gwpol's cluster for a single Service port — with the
// processing mode (headers skipped, bodies not sent unless asked),
// message timeout, failOpen, shadow mode, metadata namespaces and status
// on error the entry sets; a route enables it with an empty config.
// An entry that did not validate but fails open is left out, as Envoy
// Gateway leaves it out (the policy's other entries stay). The entry's
// backendSettings shape its cluster (serviceClusterParts) and retry its
// gRPC calls (nonRouteRetry). Backends of hostnames (a DNS cluster in
// Envoy Gateway's rendering) are not rendered yet: unsupported.
func renderExtProc(in policy.FieldInput, env *policy.Env, who policyName) ([]policy.Fragment, error) {
	v, err := effectiveValue(in, "EnvoyExtensionPolicy")
	if err != nil {
		return nil, err
	}
	items, err := typedAs[[]egv1a1.ExtProc](v)
	if err != nil {
		return nil, fmt.Errorf("extProc: %w", err)
	}
	failed, ok := failedExtProcs(in, len(items))
	if !ok {
		return nil, fmt.Errorf("extProc: the entries that failed open are not those of the list in effect")
	}
	var frags []policy.Fragment
	for i, e := range items {
		if slices.Contains(failed, i) {
			continue
		}
		if k := unrenderedFields(v.at.index(i), e, extProcKeys...); k != "" {
			return []policy.Fragment{{Capability: "envoygateway.EnvoyExtensionPolicy.extProc." + k}}, nil
		}
		refs := clusterRefs(&e.BackendCluster)
		if len(refs) == 0 {
			return nil, fmt.Errorf("extProc[%d]: no backendRefs", i)
		}
		var m *model.Model
		if env != nil {
			m = env.Model
		}
		if slices.ContainsFunc(refs, func(r backendRef) bool { return backendAddressType(env, m, who.namespace, r) == "FQDN" }) {
			// Envoy Gateway reaches hostnames through a DNS cluster of
			// the entry, not rendered yet.
			return []policy.Fragment{{Capability: "envoygateway.EnvoyExtensionPolicy.extProc.backendRefs.fqdn"}}, nil
		}
		settingsAt := v.at.index(i).field("backendSettings")
		parts, capability, err := serviceClusterParts(e.BackendSettings, settingsAt, who)
		if err != nil {
			return nil, fmt.Errorf("extProc[%d].%w", i, err)
		}
		if capability != "" {
			return []policy.Fragment{{Capability: "envoygateway.EnvoyExtensionPolicy.extProc.backendSettings." + capability}}, nil
		}
		var retry *corev3.RetryPolicy
		if s := e.BackendSettings; s != nil && s.Retry != nil {
			rp, part, err := nonRouteRetry(s.Retry, settingsAt.field("retry"), "extProc.backendSettings.retry")
			if err != nil {
				return nil, fmt.Errorf("extProc[%d].%w", i, err)
			}
			if part != "" {
				return []policy.Fragment{{Capability: "envoygateway.EnvoyExtensionPolicy." + part}}, nil
			}
			retry = rp
		}
		frag, err := extProcFilter(e, refs, i, who, retry)
		if err != nil {
			return nil, fmt.Errorf("extProc[%d]: %w", i, err)
		}
		frag[0].TypedClusterParts = parts
		frags = append(frags, frag...)
	}
	return frags, nil
}

// extProcFilter is one entry's filter, per-route config and cluster.
func extProcFilter(e egv1a1.ExtProc, refs []backendRef, i int, who policyName, retry *corev3.RetryPolicy) ([]policy.Fragment, error) {
	first := refs[0]
	ns := who.namespace
	if first.Namespace != nil && *first.Namespace != "" {
		ns = *first.Namespace
	}
	authority := first.Name + "." + ns
	if first.Port != nil {
		authority += fmt.Sprintf(":%d", *first.Port)
	}
	cluster := fmt.Sprintf("%s/extproc/%d", who, i)
	cfg := &extprocv3.ExternalProcessor{
		GrpcService: &corev3.GrpcService{
			TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: &corev3.GrpcService_EnvoyGrpc{ClusterName: cluster, Authority: authority}},
			Timeout:         durationpb.New(extServiceTimeout),
			RetryPolicy:     retry,
		},
		ProcessingMode: &extprocv3.ProcessingMode{
			RequestHeaderMode:   extprocv3.ProcessingMode_SKIP,
			ResponseHeaderMode:  extprocv3.ProcessingMode_SKIP,
			RequestTrailerMode:  extprocv3.ProcessingMode_SKIP,
			ResponseTrailerMode: extprocv3.ProcessingMode_SKIP,
		},
		FailureModeAllow:  e.FailOpen != nil && *e.FailOpen,
		ObservabilityMode: e.ShadowMode != nil && *e.ShadowMode,
	}
	if pm := e.ProcessingMode; pm != nil {
		mode := cfg.ProcessingMode
		if r := pm.Request; r != nil {
			mode.RequestHeaderMode = extprocv3.ProcessingMode_SEND
			if err := setBodyMode((*string)(r.Body), &mode.RequestBodyMode, &mode.RequestTrailerMode); err != nil {
				return nil, err
			}
			cfg.RequestAttributes = slices.Clone(r.Attributes)
		}
		if r := pm.Response; r != nil {
			mode.ResponseHeaderMode = extprocv3.ProcessingMode_SEND
			if err := setBodyMode((*string)(r.Body), &mode.ResponseBodyMode, &mode.ResponseTrailerMode); err != nil {
				return nil, err
			}
			cfg.ResponseAttributes = slices.Clone(r.Attributes)
		}
		cfg.AllowModeOverride = pm.AllowModeOverride
	}
	if e.MessageTimeout != nil {
		d, err := time.ParseDuration(string(*e.MessageTimeout))
		if err != nil {
			return nil, fmt.Errorf("messageTimeout: %w", err)
		}
		cfg.MessageTimeout = durationpb.New(d)
	}
	if md := e.Metadata; md != nil && (md.AccessibleNamespaces != nil || md.WritableNamespaces != nil) {
		cfg.MetadataOptions = &extprocv3.MetadataOptions{}
		if md.AccessibleNamespaces != nil {
			cfg.MetadataOptions.ForwardingNamespaces = &extprocv3.MetadataOptions_MetadataNamespaces{Untyped: slices.Clone(md.AccessibleNamespaces)}
		}
		if md.WritableNamespaces != nil {
			cfg.MetadataOptions.ReceivingNamespaces = &extprocv3.MetadataOptions_MetadataNamespaces{Untyped: slices.Clone(md.WritableNamespaces)}
		}
	}
	if e.StatusOnError != nil {
		cfg.StatusOnError = &typev3.HttpStatus{Code: typev3.StatusCode(*e.StatusOnError)}
	}
	opts, err := httpOptions(&upstreamhttpv3.HttpProtocolOptions{UpstreamProtocolOptions: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_{
		ExplicitHttpConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig{
			ProtocolConfig: &upstreamhttpv3.HttpProtocolOptions_ExplicitHttpConfig_Http2ProtocolOptions{Http2ProtocolOptions: http2Windows()}}}})
	if err != nil {
		return nil, err
	}
	// The endpoints are the backends': one Service port's are those
	// gwpol's own cluster for it is fed (so a bootstrap resolves the
	// Service), several backends' the entry's own.
	eds := cluster
	if len(refs) == 1 && (first.Kind == "" || first.Kind == "Service") && first.Group == "" && first.Port != nil {
		eds = policy.ServiceCluster(ns, first.Name, *first.Port)
	}
	c := &clusterv3.Cluster{
		Name:                 cluster,
		ConnectTimeout:       durationpb.New(extServiceTimeout),
		ClusterDiscoveryType: &clusterv3.Cluster_Type{Type: clusterv3.Cluster_EDS},
		EdsClusterConfig: &clusterv3.Cluster_EdsClusterConfig{ServiceName: eds, EdsConfig: &corev3.ConfigSource{
			ResourceApiVersion:    corev3.ApiVersion_V3,
			ConfigSourceSpecifier: &corev3.ConfigSource_Ads{Ads: &corev3.AggregatedConfigSource{}},
		}},
		TypedExtensionProtocolOptions: opts.TypedExtensionProtocolOptions,
	}
	f := extensionFilter("envoy.filters.http.ext_proc/"+cluster, orderExtProc, i, cfg, enableOnRoute())
	f.Capability = "ext_proc"
	f.TypedClusters = []proto.Message{c}
	return []policy.Fragment{f}, nil
}

// setBodyMode sets how a body is sent to the processor; a body streamed
// both ways sends the trailers too.
func setBodyMode(body *string, mode *extprocv3.ProcessingMode_BodySendMode, trailers *extprocv3.ProcessingMode_HeaderSendMode) error {
	if body == nil {
		return nil
	}
	m, ok := map[string]extprocv3.ProcessingMode_BodySendMode{
		"Buffered":           extprocv3.ProcessingMode_BUFFERED,
		"BufferedPartial":    extprocv3.ProcessingMode_BUFFERED_PARTIAL,
		"Streamed":           extprocv3.ProcessingMode_STREAMED,
		"FullDuplexStreamed": extprocv3.ProcessingMode_FULL_DUPLEX_STREAMED,
	}[*body]
	if !ok {
		return fmt.Errorf("processingMode body %q: supported values: Buffered, BufferedPartial, Streamed, FullDuplexStreamed", *body)
	}
	*mode = m
	if m == extprocv3.ProcessingMode_FULL_DUPLEX_STREAMED {
		*trailers = extprocv3.ProcessingMode_SEND
	}
	return nil
}

// failedExtProcs are the indexes, in the effective list of n entries, of
// the external processors that failed open (markFailOpen). The list is
// one policy's: a merging policy's list replaces its Gateway's
// (ReplacedOnMerge). ok is false when the effective list is not that
// value's.
func failedExtProcs(in policy.FieldInput, n int) (failed []int, ok bool) {
	if len(in.Values) == 0 {
		return nil, true
	}
	ev, isEP := in.Values[0].(*fieldValue)
	if !isEP || len(ev.failed) == 0 {
		return nil, true
	}
	items, err := typedAs[[]egv1a1.ExtProc](ev)
	if err != nil || len(in.Values) > 1 || len(items) != n {
		return nil, false
	}
	return ev.failed, true
}

// renderWasm: Envoy Gateway downloads a Wasm module itself (from an HTTP
// URL or an OCI image), checks it, and serves it to Envoy from its own
// Wasm HTTP server at a path salted per installation, with the checksum
// of what it downloaded. gwpol fetches nothing, so it cannot write the
// filter's code source: the field is unsupported, and says why.
func renderWasm(policy.FieldInput, *policy.Env, policyName) ([]policy.Fragment, error) {
	return []policy.Fragment{{Capability: wasmCapability}}, nil
}

// wasmCapability names what rendering Wasm would take.
var wasmCapability = "envoygateway.EnvoyExtensionPolicy.wasm (" + strings.Join([]string{
	"Envoy Gateway downloads the module and serves it from its own Wasm HTTP server",
	"at a per-installation salted path with the checksum of what it downloaded;",
	"gwpol downloads nothing)"}, " ")

package kgateway

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/durationpb"
	"google.golang.org/protobuf/types/known/wrapperspb"

	"github.com/gwpol/gwpol/internal/policy"
)

// extProc: one ext_proc filter per GatewayExtension, wrapped so the
// family's disable marker switches it off (ext_proc has no switch of its
// own). A disable among the values disables the family on the resource
// and no provider is written, as for extAuth (extproc_policy.go:
// handleExtProc returns after the disable marker).
func (r *fieldRenderer) extProc() ([]policy.Fragment, error) {
	if anyDisables(r.in.Values, func(v *ExtProcPolicy) bool { return v.Disable != nil }) {
		return []policy.Fragment{disableMarker("ext_proc", "ext_proc")}, nil
	}
	var out []policy.Fragment
	for i, val := range r.in.Values {
		v, ok := val.(*ExtProcPolicy)
		if !ok {
			return nil, fmt.Errorf("unexpected value %T", val)
		}
		ext, ns, err := r.extension(v.ExtensionRef, r.ns(i))
		if err != nil {
			return nil, err
		}
		p := ext.Spec.ExtProc
		if p == nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s has no extProc", ns, ext.Name)
		}
		svc, cl, err := extGrpcService(p.GrpcService, ns, extensionHTTP2(r.env))
		if err != nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s: extProc.%w", ns, ext.Name, err)
		}
		cfg := &extprocv3.ExternalProcessor{
			GrpcService:        svc,
			FailureModeAllow:   p.FailOpen == nil || *p.FailOpen,
			RequestAttributes:  p.RequestAttributes,
			ResponseAttributes: p.ResponseAttributes,
		}
		if err := processorSettings(cfg, p); err != nil {
			return nil, fmt.Errorf("GatewayExtension %s/%s: extProc.%w", ns, ext.Name, err)
		}
		if p.ProcessingMode != nil {
			if cfg.ProcessingMode, err = processingMode(p.ProcessingMode); err != nil {
				return nil, err
			}
		}
		if p.MessageTimeout != nil {
			t, err := time.ParseDuration(*p.MessageTimeout)
			if err != nil {
				return nil, fmt.Errorf("messageTimeout: %q is not a duration", *p.MessageTimeout)
			}
			cfg.MessageTimeout = durationpb.New(t)
		}
		if p.StatPrefix != nil {
			cfg.StatPrefix = *p.StatPrefix
		}
		overrides := &extprocv3.ExtProcOverrides{}
		if v.ProcessingMode != nil {
			if overrides.ProcessingMode, err = processingMode(v.ProcessingMode); err != nil {
				return nil, err
			}
		}
		filterName := "ext_proc/" + ns + "/" + ext.Name
		fr := policy.Fragment{
			Capability: "ext_proc",
			Filter: &policy.HTTPFilter{Name: filterName, Order: extProcOrder(p.FilterStage),
				Typed: unlessDisabled("ext_proc", "envoy.filters.http.ext_proc", cfg)},
			TypedPerFilterConfig: map[string]proto.Message{filterName: &extprocv3.ExtProcPerRoute{
				Override: &extprocv3.ExtProcPerRoute_Overrides{Overrides: overrides}}},
		}
		fr.Filter.Precedence = filterWeight("extProc", ext).Weight
		// After the route stage is after routing: kgateway runs such a
		// processor among the router's upstream filters.
		fr.Filter.Upstream = p.FilterStage != nil && p.FilterStage.Stage == "Route" && p.FilterStage.Predicate == "After"
		fr.TypedClusters = []proto.Message{cl}
		out = append(out, familyMarker("ext_proc", "ext_proc"), fr)
	}
	return out, nil
}

// filterStages are kgateway's filter stages by the names a
// FilterStageSpec gives them.
var filterStages = map[string]int{
	"Fault": stageFault, "CORS": stageCors, "WAF": stageWaf, "AuthN": stageAuthN, "AuthZ": stageAuthZ,
	"RateLimit": stageRateLimit, "Accepted": stageAccepted, "Route": stageRoute,
}

// extProcOrder is where an ext_proc filter runs in the chain: at its
// extension's filterStage, by default after authorization (kgateway's
// default); filters of one place sort by weight.
func extProcOrder(fs *FilterStageSpec) int {
	if fs == nil || fs.Stage == "" {
		return orderExtProc
	}
	stage, ok := filterStages[fs.Stage]
	if !ok {
		return orderExtProc
	}
	switch fs.Predicate {
	case "Before":
		return staged(stage, -1)
	case "After":
		return staged(stage, 1)
	}
	return staged(stage, 0)
}

// extGrpcService is the Envoy gRPC client of an extension's service:
// its cluster, authority, request deadline and retries, with the
// cluster entry (HTTP/2 when http2: extensionHTTP2).
func extGrpcService(g ExtGrpcService, ns string, http2 bool) (*corev3.GrpcService, *clusterv3.Cluster, error) {
	name, cl := serviceCluster(g.BackendRef.BackendObjectReference, ns, http2)
	eg := &corev3.GrpcService_EnvoyGrpc{ClusterName: name}
	if g.Authority != nil {
		eg.Authority = *g.Authority
	}
	svc := &corev3.GrpcService{TargetSpecifier: &corev3.GrpcService_EnvoyGrpc_{EnvoyGrpc: eg}}
	if g.RequestTimeout != nil {
		t, err := duration("grpcService.requestTimeout", *g.RequestTimeout)
		if err != nil {
			return nil, nil, err
		}
		svc.Timeout = t
	}
	rp, err := extRetryPolicy(g.Retry, "grpcService")
	if err != nil {
		return nil, nil, err
	}
	svc.RetryPolicy = rp
	return svc, cl, nil
}

// extRetryPolicy is how an extension's client retries its calls: the
// attempts (the CRD's default, 1, when the policy gives none) and the
// backoff (pluginsdk: buildExtSvcRetryPolicy, shared by every extension's
// gRPC and HTTP service). nil without a retry.
func extRetryPolicy(r *ExtSvcRetryPolicy, field string) (*corev3.RetryPolicy, error) {
	if r == nil {
		return nil, nil
	}
	attempts := int32(1)
	if r.Attempts != nil {
		attempts = *r.Attempts
	}
	rp := &corev3.RetryPolicy{NumRetries: wrapperspb.UInt32(uint32(max(attempts, 0)))}
	if b := r.Backoff; b != nil {
		base, err := duration(field+".retry.backoff.baseInterval", b.BaseInterval)
		if err != nil {
			return nil, err
		}
		rp.RetryBackOff = &corev3.BackoffStrategy{BaseInterval: base}
		if b.MaxInterval != nil {
			if rp.RetryBackOff.MaxInterval, err = duration(field+".retry.backoff.maxInterval", *b.MaxInterval); err != nil {
				return nil, err
			}
		}
	}
	return rp, nil
}

var routeCacheActions = map[string]extprocv3.ExternalProcessor_RouteCacheAction{
	"FromResponse": extprocv3.ExternalProcessor_DEFAULT,
	"Clear":        extprocv3.ExternalProcessor_CLEAR,
	"Retain":       extprocv3.ExternalProcessor_RETAIN,
}

// processorSettings: which processing modes a processor may ask for, the
// longest message timeout it may set, what to do with the route cache,
// and which metadata namespaces it receives.
func processorSettings(cfg *extprocv3.ExternalProcessor, p *ExtProcProvider) error {
	if p.AllowProcessingModeOverride != nil {
		cfg.AllowModeOverride = *p.AllowProcessingModeOverride
	}
	for i, m := range p.AllowedProcessingModeOverrides {
		if m == nil {
			continue
		}
		pm, err := processingMode(m)
		if err != nil {
			return fmt.Errorf("allowedProcessingModeOverrides[%d].%w", i, err)
		}
		cfg.AllowedOverrideModes = append(cfg.AllowedOverrideModes, pm)
	}
	if p.MaxMessageTimeout != nil {
		t, err := duration("maxMessageTimeout", *p.MaxMessageTimeout)
		if err != nil {
			return err
		}
		cfg.MaxMessageTimeout = t
	}
	if p.RouteCacheAction != "" {
		a, ok := routeCacheActions[p.RouteCacheAction]
		if !ok {
			return fmt.Errorf("routeCacheAction: %q is not one of Clear, FromResponse, Retain", p.RouteCacheAction)
		}
		cfg.RouteCacheAction = a
	}
	// metadataOptions given writes its (possibly empty) options, as
	// kgateway's buildCompositeExtProcFilter does; forwarding fills them.
	if mo := p.MetadataOptions; mo != nil {
		cfg.MetadataOptions = &extprocv3.MetadataOptions{}
		if mo.Forwarding != nil {
			cfg.MetadataOptions.ForwardingNamespaces = &extprocv3.MetadataOptions_MetadataNamespaces{
				Typed: mo.Forwarding.Typed, Untyped: mo.Forwarding.Untyped}
		}
	}
	return nil
}

// processingMode is Envoy's ProcessingMode; a mode that is not one of
// Envoy's values (in kgateway's spelling, NONE, or CamelCase) is an error
// naming the field and the values allowed. A mode left out is the CRD's
// default, which the API server stores and kgateway translates as any
// other value (toEnvoyProcessingMode): headers SEND, trailers SKIP,
// bodies NONE — the same in the TrafficPolicy's processingMode and in the
// GatewayExtension's processingMode and allowedProcessingModeOverrides.
func processingMode(m *ProcessingMode) (*extprocv3.ProcessingMode, error) {
	out := &extprocv3.ProcessingMode{}
	for _, h := range []struct {
		field, value, def string
		dst               *extprocv3.ProcessingMode_HeaderSendMode
	}{
		{"requestHeaderMode", m.RequestHeaderMode, "SEND", &out.RequestHeaderMode},
		{"responseHeaderMode", m.ResponseHeaderMode, "SEND", &out.ResponseHeaderMode},
		{"requestTrailerMode", m.RequestTrailerMode, "SKIP", &out.RequestTrailerMode},
		{"responseTrailerMode", m.ResponseTrailerMode, "SKIP", &out.ResponseTrailerMode},
	} {
		if h.value == "" {
			h.value = h.def
		}
		n, err := enumValue(h.field, h.value, extprocv3.ProcessingMode_HeaderSendMode_value)
		if err != nil {
			return nil, err
		}
		*h.dst = extprocv3.ProcessingMode_HeaderSendMode(n)
	}
	for _, b := range []struct {
		field, value string
		dst          *extprocv3.ProcessingMode_BodySendMode
	}{
		{"requestBodyMode", m.RequestBodyMode, &out.RequestBodyMode},
		{"responseBodyMode", m.ResponseBodyMode, &out.ResponseBodyMode},
	} {
		n, err := enumValue(b.field, b.value, extprocv3.ProcessingMode_BodySendMode_value)
		if err != nil {
			return nil, err
		}
		*b.dst = extprocv3.ProcessingMode_BodySendMode(n)
	}
	return out, nil
}

// enumValue is the number of an enum value given by name ("" is the
// zero value).
func enumValue(field, v string, values map[string]int32) (int32, error) {
	if v == "" {
		return 0, nil
	}
	n, ok := values[enumName(v)]
	if !ok {
		return 0, fmt.Errorf("processingMode.%s: %q is not one of %s", field, v, strings.Join(slices.Sorted(maps.Keys(values)), ", "))
	}
	return n, nil
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

// extensionHTTP2 reports whether an extension's gRPC service forces
// HTTP/2 on its backend's cluster. Under the kgateway target it does not:
// ResolveExtGrpcService only names the backend's own cluster, whose
// protocol is the backend's (a Service port's appProtocol, a Backend's),
// as for a collector (collectorService); other targets keep HTTP/2.
func extensionHTTP2(env *policy.Env) bool { return env == nil || env.Target != "kgateway" }

package kgateway

import (
	"fmt"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	corev3 "github.com/envoyproxy/go-control-plane/envoy/config/core/v3"
	tracev3 "github.com/envoyproxy/go-control-plane/envoy/config/trace/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	otelresv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/tracers/opentelemetry/resource_detectors/v3"
	samplersv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/tracers/opentelemetry/samplers/v3"
	metadatav3 "github.com/envoyproxy/go-control-plane/envoy/type/metadata/v3"
	tracingv3 "github.com/envoyproxy/go-control-plane/envoy/type/tracing/v3"
	typev3 "github.com/envoyproxy/go-control-plane/envoy/type/v3"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// Envoy's OpenTelemetry tracer and its extensions.
const (
	otelTracerName      = "envoy.tracers.opentelemetry"
	envDetectorName     = "envoy.tracers.opentelemetry.resource_detectors.environment"
	alwaysOnSamplerName = "envoy.tracers.opentelemetry.samplers.always_on"
)

// defaultServiceName is how kgateway names a Gateway's proxy to its
// collectors when the policy does not: <gateway>.<namespace>, the Envoy
// cluster name of its bootstrap.
func defaultServiceName(gw policy.GatewayName) string { return gw.Name + "." + gw.Namespace }

// listenerTracing is the connection manager's tracing: an OpenTelemetry
// tracer sending spans over gRPC to a Service, with the sampling,
// verbosity and custom tags of the policy, and the collector's cluster.
func listenerTracing(t *Tracing, in policy.FieldInput, env *policy.Env) (*hcmv3.HttpConnectionManager_Tracing, []proto.Message, error) {
	o := t.Provider.OpenTelemetry
	if o == nil {
		return nil, nil, diag.Errorf(diag.Unsupported, "tracing.provider: gwpol renders the openTelemetry provider only")
	}
	cfg, cluster, err := otelTracer(o, in, env)
	if err != nil {
		return nil, nil, fmt.Errorf("tracing.provider.openTelemetry: %w", err)
	}
	out := &hcmv3.HttpConnectionManager_Tracing{
		Provider:        &tracev3.Tracing_Http{Name: otelTracerName, ConfigType: &tracev3.Tracing_Http_TypedConfig{TypedConfig: pack(cfg)}},
		ClientSampling:  samplingPercent(t.ClientSampling),
		RandomSampling:  samplingPercent(t.RandomSampling),
		OverallSampling: samplingPercent(t.OverallSampling),
		Verbose:         derefOr(t.Verbose),
	}
	if t.MaxPathTagLength != nil {
		out.MaxPathTagLength = wrapperspb.UInt32(uint32(max(*t.MaxPathTagLength, 0)))
	}
	if t.SpawnUpstreamSpan != nil {
		out.SpawnUpstreamSpan = wrapperspb.Bool(*t.SpawnUpstreamSpan)
	}
	if out.CustomTags, err = customTags(t.Attributes); err != nil {
		return nil, nil, fmt.Errorf("tracing.%w", err)
	}
	return out, []proto.Message{cluster}, nil
}

// otelTracer is the OpenTelemetry tracer's configuration: its collector,
// the service name (the Gateway's by default), the environment resource
// detector unless the policy turns it off, and the sampler.
func otelTracer(o *OpenTelemetryTracingConfig, in policy.FieldInput, env *policy.Env) (*tracev3.OpenTelemetryConfig, *clusterv3.Cluster, error) {
	svc, cluster, err := collectorService(o.GrpcService, in, env)
	if err != nil {
		return nil, nil, fmt.Errorf("grpcService: %w", err)
	}
	cfg := &tracev3.OpenTelemetryConfig{GrpcService: svc, ServiceName: derefOr(o.ServiceName)}
	if cfg.ServiceName == "" {
		if in.Gateway.IsZero() {
			return nil, nil, diag.Errorf(diag.Unsupported, "a tracer without serviceName is named after its Gateway, and this field configures none")
		}
		cfg.ServiceName = defaultServiceName(in.Gateway)
	}
	envDetector := true // kgateway's default; the last detector setting decides
	for _, d := range o.ResourceDetectors {
		if d.EnvironmentResourceDetector != nil && d.EnvironmentResourceDetector.Enable != nil {
			envDetector = *d.EnvironmentResourceDetector.Enable
		}
	}
	if envDetector {
		cfg.ResourceDetectors = []*corev3.TypedExtensionConfig{{Name: envDetectorName, TypedConfig: pack(&otelresv3.EnvironmentResourceDetectorConfig{})}}
	}
	if o.Sampler != nil && o.Sampler.AlwaysOn != nil {
		cfg.Sampler = &corev3.TypedExtensionConfig{Name: alwaysOnSamplerName, TypedConfig: pack(&samplersv3.AlwaysOnSamplerConfig{})}
	}
	return cfg, cluster, nil
}

// collectorService is the Envoy gRPC client of a collector (tracing or
// OpenTelemetry access logs), with its cluster entry. The collector is a
// Service port or a kgateway Backend: kgateway names the resolved
// backend's cluster either way (ToEnvoyGrpc: backend.ClusterName()), and
// render builds a Backend's cluster from the Backend as it does for a
// route's backendRef. kgateway leaves the cluster's protocol to the
// backend (a Service's h2c appProtocol, a static Backend's appProtocol);
// other targets make it HTTP/2, which gRPC needs.
func collectorService(g CommonGrpcService, in policy.FieldInput, env *policy.Env) (*corev3.GrpcService, *clusterv3.Cluster, error) {
	if err := collectorResolves(g.BackendRef.BackendObjectReference, in, env); err != nil {
		return nil, nil, err
	}
	if g.BackendRef.Port == nil && model.RefGroupKind(g.BackendRef.Group, g.BackendRef.Kind, serviceKind) == serviceKind {
		return nil, nil, fmt.Errorf("backendRef: a Service needs a port")
	}
	ns := ""
	if len(in.Namespaces) > 0 {
		ns = in.Namespaces[0]
	}
	return grpcServiceOf(g, ns, env.Target != "kgateway")
}

// collectorResolves is kgateway's resolution of a ListenerPolicy's
// collector (an access log's gRPC or OpenTelemetry service, the
// OpenTelemetry tracer's): GetBackendFromRef with the policy as the
// source, whose failure fails the setting ("unresolved backend
// reference"; access_logging_converter.go: convertAccessLogConfig,
// tracing_converter.go: convertTracingConfig). Nil without a model.
func collectorResolves(ref gwv1.BackendObjectReference, in policy.FieldInput, env *policy.Env) error {
	if env == nil || env.Model == nil {
		return nil
	}
	from := ""
	if len(in.Namespaces) > 0 {
		from = in.Namespaces[0]
	}
	r := backendRef{gk: model.RefGroupKind(ref.Group, ref.Kind, serviceKind), name: string(ref.Name)}
	if ref.Namespace != nil {
		r.namespace = string(*ref.Namespace)
	}
	if ref.Port != nil {
		p := int32(*ref.Port)
		r.port = &p
	}
	if problem := backendRefProblem(env, KindListenerPolicy, from, r); problem != "" {
		return fmt.Errorf("unresolved backend reference: %s", problem)
	}
	return nil
}

// samplingPercent is a sampling percentage; nil when unset.
func samplingPercent(p *int32) *typev3.Percent {
	if p == nil {
		return nil
	}
	return &typev3.Percent{Value: float64(*p)}
}

// customTags are span tags from literals, environment variables, request
// headers or metadata.
func customTags(attrs []CustomAttribute) ([]*tracingv3.CustomTag, error) {
	var out []*tracingv3.CustomTag
	for i, a := range attrs {
		tag := &tracingv3.CustomTag{Tag: a.Name}
		switch {
		case a.Literal != nil:
			tag.Type = &tracingv3.CustomTag_Literal_{Literal: &tracingv3.CustomTag_Literal{Value: a.Literal.Value}}
		case a.Environment != nil:
			tag.Type = &tracingv3.CustomTag_Environment_{Environment: &tracingv3.CustomTag_Environment{
				Name: a.Environment.Name, DefaultValue: derefOr(a.Environment.DefaultValue)}}
		case a.RequestHeader != nil:
			tag.Type = &tracingv3.CustomTag_RequestHeader{RequestHeader: &tracingv3.CustomTag_Header{
				Name: a.RequestHeader.Name, DefaultValue: derefOr(a.RequestHeader.DefaultValue)}}
		case a.Metadata != nil:
			m, err := metadataTag(a.Metadata)
			if err != nil {
				return nil, fmt.Errorf("attributes[%d]: %w", i, err)
			}
			tag.Type = &tracingv3.CustomTag_Metadata_{Metadata: m}
		default:
			continue // nothing to tag with, as kgateway skips it
		}
		out = append(out, tag)
	}
	return out, nil
}

// metadataKinds are the metadata a tag may read, by kgateway's names.
var metadataKinds = map[string]func() *metadatav3.MetadataKind{
	"Request": func() *metadatav3.MetadataKind {
		return &metadatav3.MetadataKind{Kind: &metadatav3.MetadataKind_Request_{Request: &metadatav3.MetadataKind_Request{}}}
	},
	"Route": func() *metadatav3.MetadataKind {
		return &metadatav3.MetadataKind{Kind: &metadatav3.MetadataKind_Route_{Route: &metadatav3.MetadataKind_Route{}}}
	},
	"Cluster": func() *metadatav3.MetadataKind {
		return &metadatav3.MetadataKind{Kind: &metadatav3.MetadataKind_Cluster_{Cluster: &metadatav3.MetadataKind_Cluster{}}}
	},
	"Host": func() *metadatav3.MetadataKind {
		return &metadatav3.MetadataKind{Kind: &metadatav3.MetadataKind_Host_{Host: &metadatav3.MetadataKind_Host{}}}
	},
}

func metadataTag(m *CustomAttributeMetadata) (*tracingv3.CustomTag_Metadata, error) {
	kind, ok := metadataKinds[m.Kind]
	if !ok {
		return nil, fmt.Errorf("metadata.kind %q is not Request, Route, Cluster or Host", m.Kind)
	}
	key := &metadatav3.MetadataKey{Key: m.MetadataKey.Key}
	for _, s := range m.MetadataKey.Path {
		key.Path = append(key.Path, &metadatav3.MetadataKey_PathSegment{Segment: &metadatav3.MetadataKey_PathSegment_Key{Key: s.Key}})
	}
	return &tracingv3.CustomTag_Metadata{Kind: kind(), MetadataKey: key, DefaultValue: derefOr(m.DefaultValue)}, nil
}

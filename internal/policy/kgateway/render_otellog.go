package kgateway

import (
	"fmt"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	otellogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/open_telemetry/v3"
	otelcommonv1 "go.opentelemetry.io/proto/otlp/common/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// kgatewayContainer is the name of the proxy's container in kgateway's
// deployment, which its OpenTelemetry access logs report.
const kgatewayContainer = "kgateway-proxy"

// otelAccessLog sends access logs to an OpenTelemetry collector. Like
// kgateway it adds the resource attributes that identify the proxy (its
// Gateway, namespace, the controller's version and container) unless the
// policy sets them.
func otelAccessLog(o *OpenTelemetryAccessLogService, in policy.FieldInput, env *policy.Env) (*otellogv3.OpenTelemetryAccessLogConfig, *clusterv3.Cluster, error) {
	svc, cluster, err := collectorService(o.GrpcService.CommonGrpcService, in, env)
	if err != nil {
		return nil, nil, fmt.Errorf("grpcService: %w", err)
	}
	if in.Gateway.IsZero() {
		return nil, nil, diag.Errorf(diag.Unsupported, "its resource attributes name a Gateway, and this field configures none")
	}
	out := &otellogv3.OpenTelemetryAccessLogConfig{
		LogName:              o.GrpcService.LogName,
		GrpcService:          svc,
		DisableBuiltinLabels: derefOr(o.DisableBuiltinLabels),
		Attributes:           otelKeyValues(o.Attributes),
		ResourceAttributes:   otelKeyValues(o.ResourceAttributes),
	}
	if o.Body != nil {
		out.Body = &otelcommonv1.AnyValue{Value: &otelcommonv1.AnyValue_StringValue{StringValue: *o.Body}}
	}
	gw := in.Gateway
	for _, a := range [][2]string{
		{"service.name", defaultServiceName(gw)},
		{"service.namespace", gw.Namespace},
		{"service.version", KgatewayVersion.String(env.Config)},
		{"k8s.namespace.name", gw.Namespace},
		{"k8s.container.name", kgatewayContainer},
	} {
		if a[1] != "" {
			out.ResourceAttributes = withDefaultAttribute(out.ResourceAttributes, a[0], a[1])
		}
	}
	return out, cluster, nil
}

// withDefaultAttribute adds a string attribute unless the list has key.
func withDefaultAttribute(l *otelcommonv1.KeyValueList, key, value string) *otelcommonv1.KeyValueList {
	if l == nil {
		l = &otelcommonv1.KeyValueList{}
	}
	for _, kv := range l.Values {
		if kv.Key == key {
			return l
		}
	}
	l.Values = append(l.Values, &otelcommonv1.KeyValue{Key: key, Value: &otelcommonv1.AnyValue{Value: &otelcommonv1.AnyValue_StringValue{StringValue: value}}})
	return l
}

// otelKeyValues is an attribute list as OTLP key/values; nil when unset.
func otelKeyValues(l *KeyAnyValueList) *otelcommonv1.KeyValueList {
	if l == nil {
		return nil
	}
	out := &otelcommonv1.KeyValueList{Values: make([]*otelcommonv1.KeyValue, 0, len(l.Values))}
	for _, kv := range l.Values {
		out.Values = append(out.Values, &otelcommonv1.KeyValue{Key: kv.Key, Value: otelAnyValue(kv.Value)})
	}
	return out
}

// otelAnyValue is a string, an array or a key/value list; nil when the
// value sets none.
func otelAnyValue(v AnyValue) *otelcommonv1.AnyValue {
	switch {
	case v.StringValue != nil:
		return &otelcommonv1.AnyValue{Value: &otelcommonv1.AnyValue_StringValue{StringValue: *v.StringValue}}
	case v.ArrayValue != nil:
		arr := &otelcommonv1.ArrayValue{}
		for _, e := range v.ArrayValue {
			arr.Values = append(arr.Values, otelAnyValue(e))
		}
		return &otelcommonv1.AnyValue{Value: &otelcommonv1.AnyValue_ArrayValue{ArrayValue: arr}}
	case v.KvListValue != nil:
		return &otelcommonv1.AnyValue{Value: &otelcommonv1.AnyValue_KvlistValue{KvlistValue: otelKeyValues(v.KvListValue)}}
	}
	return nil
}

package kgateway

import (
	"encoding/json"
	"strings"
	"testing"

	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"
	"google.golang.org/protobuf/encoding/protojson"
	gwv1 "sigs.k8s.io/gateway-api/apis/v1"

	"github.com/gwpol/gwpol/internal/diag"
	"github.com/gwpol/gwpol/internal/policy"
)

// TestListenerHTTPSettings renders one httpSettings field of a
// ListenerPolicy and checks the connection manager it yields (protojson),
// or the error that makes it invalid.
func TestListenerHTTPSettings(t *testing.T) {
	tests := []struct {
		name, settings, key string
		want, wantErr       string
	}{
		{"http2 windows in bytes", `{"http2ProtocolOptions": {"initialStreamWindowSize": "128Ki", "maxConcurrentStreams": 10, "allowConnect": true}}`, "http2ProtocolOptions",
			`{"http2ProtocolOptions":{"maxConcurrentStreams":10,"initialStreamWindowSize":131072,"allowConnect":true}}`, ""},
		{"http2 window below RFC 7540's initial window", `{"http2ProtocolOptions": {"initialConnectionWindowSize": 1024}}`, "http2ProtocolOptions",
			"", "initialConnectionWindowSize must be between 65535 and 2147483647 bytes (inclusive), got 1024"},
		{"local reply: long response flag names become Envoy's codes", `{"localReplies": {"mappers": [{"filter": {"responseFlagFilter": {"flags": ["NoHealthyUpstream", "UF"]}}, "statusCode": 503}]}}`, "localReplyConfig",
			`{"localReplyConfig":{"mappers":[{"filter":{"responseFlagFilter":{"flags":["UH","UF"]}},"statusCode":503}]}}`, ""},
		{"local reply: an unknown response flag is no error of the policy", `{"localReplies": {"mappers": [{"filter": {"orFilter": [{"notHealthCheckFilter": true}, {"responseFlagFilter": {"flags": ["Nope"]}}]}}]}}`, "localReplyConfig",
			`{"localReplyConfig":{"mappers":[{"filter":{"orFilter":{"filters":[{"notHealthCheckFilter":{}},{"responseFlagFilter":{"flags":["Nope"]}}]}}}]}}`, ""},
		{"local reply: default JSON body", `{"localReplies": {"defaultBodyFormat": {"json": {"error": "%LOCAL_REPLY_BODY%"}, "contentType": "application/json"}}}`, "localReplyConfig",
			`{"localReplyConfig":{"bodyFormat":{"jsonFormat":{"error":"%LOCAL_REPLY_BODY%"},"contentType":"application/json"}}}`, ""},
		{"tracing: the tracer is named after its Gateway, detector off, sampler always on", `{"tracing": {"provider": {"openTelemetry": {"grpcService": {"backendRef": {"name": "otel", "port": 4317}}, "resourceDetectors": [{"environmentResourceDetector": {"enable": false}}], "sampler": {"alwaysOnConfig": {}}}}, "overallSampling": 5, "maxPathTagLength": 64}}`, "tracing",
			`{"tracing":{"overallSampling":{"value":5},"maxPathTagLength":64,"provider":{"name":"envoy.tracers.opentelemetry","typedConfig":{"@type":"type.googleapis.com/envoy.config.trace.v3.OpenTelemetryConfig","grpcService":{"envoyGrpc":{"clusterName":"kube_infra_otel_4317"}},"serviceName":"gw.infra","sampler":{"name":"envoy.tracers.opentelemetry.samplers.always_on","typedConfig":{"@type":"type.googleapis.com/envoy.extensions.tracers.opentelemetry.samplers.v3.AlwaysOnSamplerConfig"}}}}}}`, ""},
		{"tracing: metadata tag of an unknown kind", `{"tracing": {"provider": {"openTelemetry": {"grpcService": {"backendRef": {"name": "otel", "port": 4317}}, "serviceName": "s", "resourceDetectors": [{"environmentResourceDetector": {"enable": false}}]}}, "attributes": [{"name": "t", "metadata": {"kind": "Pod", "metadataKey": {"key": "k", "path": [{"key": "p"}]}}}]}}`, "tracing",
			"", `metadata.kind "Pod" is not Request, Route, Cluster or Host`},
		{"OpenTelemetry access log: the policy's resource attributes win", `{"accessLog": [{"openTelemetry": {"grpcService": {"backendRef": {"name": "otel", "port": 4317}, "logName": "l"}, "resourceAttributes": {"values": [{"key": "service.name", "value": {"stringValue": "mine"}}]}}}]}`, "accessLog",
			`{"accessLog":[{"name":"envoy.access_loggers.open_telemetry","typedConfig":{"@type":"type.googleapis.com/envoy.extensions.access_loggers.open_telemetry.v3.OpenTelemetryAccessLogConfig","resourceAttributes":{"values":[{"key":"service.name","value":{"stringValue":"mine"}},{"key":"service.namespace","value":{"stringValue":"infra"}},{"key":"k8s.namespace.name","value":{"stringValue":"infra"}},{"key":"k8s.container.name","value":{"stringValue":"kgateway-proxy"}}]},"grpcService":{"envoyGrpc":{"clusterName":"kube_infra_otel_4317"}},"logName":"l"}}]}`, ""},
		{"client cert details without a mode: SanitizeSet, so they take effect", `{"forwardClientCertDetails": {"details": {"uri": true, "subject": false}}}`, "forwardClientCertDetails.mode",
			`{"forwardClientCertDetails":"SANITIZE_SET"}`, ""},
		{"client cert details with a mode: the mode as given", `{"forwardClientCertDetails": {"mode": "AppendForward", "details": {"dns": true}}}`, "forwardClientCertDetails.mode",
			`{"forwardClientCertDetails":"APPEND_FORWARD"}`, ""},
		{"local reply: headers are added or set, never removed", `{"localReplies": {"mappers": [{"filter": {"notHealthCheckFilter": true}, "headers": {"remove": ["x-a"]}}]}}`, "localReplyConfig",
			"", "cannot be removed"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var c ListenerConfig
			if err := json.Unmarshal([]byte(`{"httpSettings": `+tt.settings+`}`), &c); err != nil {
				t.Fatal(err)
			}
			var v any
			for _, f := range listenerFields {
				if f.key == "default.httpSettings."+tt.key {
					v = f.get(&c)
				}
			}
			in := policy.FieldInput{Key: "default.httpSettings." + tt.key, Values: []any{v}, Contributors: []string{"gateway.kgateway.dev/ListenerPolicy/infra/lp"}, Namespaces: []string{"infra"},
				Gateway: policy.GatewayName{Namespace: "infra", Name: "gw"}}
			frags, err := ListenerKind{}.RenderField(in, &policy.Env{})
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || len(frags) != 1 {
				t.Fatalf("RenderField: %d fragments, error %v", len(frags), err)
			}
			h, ok := frags[0].HCM.(*hcmv3.HttpConnectionManager)
			if !ok {
				t.Fatalf("fragment HCM is %T", frags[0].HCM)
			}
			got, err := protojson.Marshal(h)
			if err != nil {
				t.Fatal(err)
			}
			if compactJSON(t, got) != compactJSON(t, []byte(tt.want)) {
				t.Errorf("connection manager\n got %s\nwant %s", got, tt.want)
			}
		})
	}
}

// compactJSON is JSON re-encoded with sorted keys, to compare protojson
// output whose spacing protojson leaves unstable on purpose.
func compactJSON(t *testing.T, b []byte) string {
	t.Helper()
	var v any
	if err := json.Unmarshal(b, &v); err != nil {
		t.Fatal(err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(out)
}

// TestListenerTracingNeedsGateway: a tracer without serviceName is named
// after its Gateway; rendered where no Gateway is known it is unsupported
// (GWP404), never named wrongly.
func TestListenerTracingNeedsGateway(t *testing.T) {
	tr := &Tracing{Provider: TracingProvider{OpenTelemetry: &OpenTelemetryTracingConfig{}}}
	port := gwv1.PortNumber(4317)
	tr.Provider.OpenTelemetry.GrpcService.BackendRef.Name, tr.Provider.OpenTelemetry.GrpcService.BackendRef.Port = "otel", &port
	in := policy.FieldInput{Key: "default.httpSettings.tracing", Values: []any{tr}, Namespaces: []string{"infra"}}
	_, err := ListenerKind{}.RenderField(in, &policy.Env{})
	if diag.KindOf(err) != diag.Unsupported {
		t.Fatalf("error %v, want an unsupported one", err)
	}
	in.Gateway = policy.GatewayName{Namespace: "infra", Name: "gw"}
	if _, err := (ListenerKind{}).RenderField(in, &policy.Env{}); err != nil {
		t.Fatalf("with its Gateway: %v", err)
	}
}

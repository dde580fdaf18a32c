package kgateway

import (
	"encoding/json"
	"strings"
	"testing"

	accesslogv3 "github.com/envoyproxy/go-control-plane/envoy/config/accesslog/v3"
	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	filelogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/file/v3"
	grpclogv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/access_loggers/grpc/v3"
	hcmv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/network/http_connection_manager/v3"

	"github.com/gwpol/gwpol/internal/policy"
)

// TestListenerAccessLog: a ListenerPolicy's access logs render onto the
// connection manager in the policy's order, each sink with its filter, a
// gRPC sink with its service's cluster (relative to the policy's
// namespace); kgateway's second key renders nothing (no log twice).
func TestListenerAccessLog(t *testing.T) {
	spec := `{"httpSettings": {"accessLog": [
	  {"fileSink": {"path": "/dev/stdout", "stringFormat": "%REQ(:PATH)%"}, "filter": {"andFilter": [
	    {"statusCodeFilter": {"op": "GE", "value": 400}}, {"grpcStatusFilter": {"statuses": ["NOT_FOUND"], "exclude": true}}]}},
	  {"grpcService": {"logName": "als", "backendRef": {"name": "log", "port": 50051}},
	   "filter": {"headerFilter": {"header": {"name": "x-log", "value": "^y", "type": "RegularExpression"}}}}]}}`
	var c ListenerConfig
	if err := json.Unmarshal([]byte(spec), &c); err != nil {
		t.Fatal(err)
	}
	in := policy.FieldInput{Key: "default.httpSettings.accessLog", Values: []any{accessLog(&c)}, Namespaces: []string{"infra"}}
	frs, err := ListenerKind{}.RenderField(in, &policy.Env{})
	if err != nil {
		t.Fatal(err)
	}
	if len(frs) != 1 {
		t.Fatalf("%d fragments, want 1", len(frs))
	}
	hcm, ok := frs[0].HCM.(*hcmv3.HttpConnectionManager)
	if !ok || len(hcm.AccessLog) != len(c.HTTPSettings.AccessLog) {
		t.Fatalf("connection manager %v, want %d access logs", frs[0].HCM, len(c.HTTPSettings.AccessLog))
	}

	file, grpc := hcm.AccessLog[0], hcm.AccessLog[1]
	var fl filelogv3.FileAccessLog
	if err := file.GetTypedConfig().UnmarshalTo(&fl); err != nil {
		t.Fatalf("file sink: %v", err)
	}
	if fl.Path != c.HTTPSettings.AccessLog[0].FileSink.Path || fl.GetLogFormat().GetTextFormatSource().GetInlineString() != *c.HTTPSettings.AccessLog[0].FileSink.StringFormat {
		t.Errorf("file sink %v does not write the policy's path and format", &fl)
	}
	and := file.GetFilter().GetAndFilter().GetFilters()
	if len(and) != 2 || and[0].GetStatusCodeFilter().GetComparison().GetOp() != accesslogv3.ComparisonFilter_GE ||
		and[0].GetStatusCodeFilter().GetComparison().GetValue().GetDefaultValue() != 400 ||
		and[1].GetGrpcStatusFilter().GetStatuses()[0] != accesslogv3.GrpcStatusFilter_NOT_FOUND || !and[1].GetGrpcStatusFilter().GetExclude() {
		t.Errorf("file sink filter %v is not the policy's and-filter", file.GetFilter())
	}

	var gl grpclogv3.HttpGrpcAccessLogConfig
	if err := grpc.GetTypedConfig().UnmarshalTo(&gl); err != nil {
		t.Fatalf("grpc sink: %v", err)
	}
	cluster := policy.ServiceCluster("infra", "log", 50051)
	if gl.GetCommonConfig().GetLogName() != "als" || gl.GetCommonConfig().GetGrpcService().GetEnvoyGrpc().GetClusterName() != cluster {
		t.Errorf("grpc sink %v does not log %q to %s", &gl, "als", cluster)
	}
	if cs := frs[0].TypedClusters; len(cs) != 1 || cs[0].(*clusterv3.Cluster).GetName() != cluster {
		t.Errorf("clusters %v, want %s", cs, cluster)
	}
	hm := grpc.GetFilter().GetHeaderFilter().GetHeader()
	if hm.GetName() != "x-log" || hm.GetStringMatch().GetSafeRegex().GetRegex() != "^y" {
		t.Errorf("header filter %v is not the policy's regular expression", hm)
	}
	for _, al := range hcm.AccessLog {
		if err := al.ValidateAll(); err != nil {
			t.Errorf("access log %s: %v", al.Name, err)
		}
	}

	in.Key = "default.httpSettings.accessLogConfig"
	if frs, err := (ListenerKind{}).RenderField(in, &policy.Env{}); err != nil || len(frs) != 0 {
		t.Errorf("accessLogConfig rendered %v, %v; want nothing (the logs render once)", frs, err)
	}
}

// TestListenerAccessLogErrors: a sink or filter Envoy cannot express is an
// error naming the entry.
func TestListenerAccessLogErrors(t *testing.T) {
	for _, spec := range []string{
		`[{"fileSink": {"path": "/dev/stdout"}, "grpcService": {"logName": "x", "backendRef": {"name": "s", "port": 1}}}]`,
		`[{"fileSink": {"path": "/dev/stdout"}, "filter": {"statusCodeFilter": {"op": "GT", "value": 1}}}]`,
		`[{"fileSink": {"path": "/dev/stdout"}, "filter": {"grpcStatusFilter": {"statuses": ["NOPE"]}}}]`,
		`[{"grpcService": {"backendRef": {"name": "s", "port": 1}}}]`,
		`[{}]`,
	} {
		var logs []AccessLog
		if err := json.Unmarshal([]byte(spec), &logs); err != nil {
			t.Fatal(err)
		}
		_, err := ListenerKind{}.RenderField(policy.FieldInput{Key: "default.httpSettings.accessLog", Values: []any{logs}}, &policy.Env{})
		if err == nil || !strings.Contains(err.Error(), "accessLog[0]") {
			t.Errorf("%s: error %v, want one naming accessLog[0]", spec, err)
		}
	}
}

package envoygateway

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
	"time"

	clusterv3 "github.com/envoyproxy/go-control-plane/envoy/config/cluster/v3"
	routev3 "github.com/envoyproxy/go-control-plane/envoy/config/route/v3"
	extprocv3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/ext_proc/v3"
	luav3 "github.com/envoyproxy/go-control-plane/envoy/extensions/filters/http/lua/v3"
	"google.golang.org/protobuf/proto"

	"github.com/gwpol/gwpol/internal/manifest"
	"github.com/gwpol/gwpol/internal/model"
	"github.com/gwpol/gwpol/internal/policy"
)

// luaEnv holds the ConfigMaps Lua scripts are read from.
func luaEnv(t *testing.T) *policy.Env {
	t.Helper()
	const doc = `apiVersion: v1
kind: ConfigMap
metadata: {name: with-lua, namespace: app}
data: {other: a, lua: b}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: without-lua, namespace: app}
data: {zeta: a, alpha: b}
`
	objs, err := manifest.Parse("cm.yaml", []byte(doc), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	return &policy.Env{Model: model.Build(&manifest.Set{Objects: objs}, model.Options{})}
}

// TestRenderLua: a disabled Lua filter per script, named after the owner
// and the index, ordered by index; the route enables it with an empty
// config, or a LuaPerRoute with the filterContext; a ConfigMap script is
// its lua key (else the first key by name), named, never read.
func TestRenderLua(t *testing.T) {
	who := policyName{kind: "envoyextensionpolicy", namespace: "app", name: "p"}
	in := policy.FieldInput{Key: "lua", Values: []any{json.RawMessage(`[
		{"type":"Inline","inline":"function envoy_on_request(h) end"},
		{"type":"Inline","inline":"function envoy_on_response(h) end","filterContext":{"mode":"strict"}},
		{"type":"ValueRef","valueRef":{"name":"with-lua","kind":"ConfigMap","group":"v1"}},
		{"type":"ValueRef","valueRef":{"name":"without-lua","kind":"ConfigMap","group":"v1"}}]`)}}
	frags, err := renderLua(in, luaEnv(t), who)
	if err != nil || len(frags) != 4 {
		t.Fatalf("got %d fragments, %v", len(frags), err)
	}
	wantCode := []string{"function envoy_on_request(h) end", "function envoy_on_response(h) end",
		policy.ConfigMapPlaceholder("app", "with-lua", "lua"), policy.ConfigMapPlaceholder("app", "without-lua", "alpha")}
	for i, f := range frags {
		name := "envoy.filters.http.lua/envoyextensionpolicy/app/p/lua/" + string(rune('0'+i))
		if f.Capability != "lua" || f.Filter == nil || f.Filter.Name != name || f.Filter.Enabled || f.Filter.Order != orderLua || f.Filter.Precedence != -int32(i) {
			t.Errorf("[%d] filter %+v, want %s disabled at order %d precedence %d", i, f.Filter, name, orderLua, -i)
			continue
		}
		lua, ok := f.Filter.Typed.(*luav3.Lua)
		if !ok || lua.GetDefaultSourceCode().GetInlineString() != wantCode[i] {
			t.Errorf("[%d] source %v, want %q", i, f.Filter.Typed, wantCode[i])
		}
		switch per := f.TypedPerFilterConfig[name].(type) {
		case *routev3.FilterConfig:
			if i == 1 || per.GetConfig() == nil || per.Disabled {
				t.Errorf("[%d] per-route %v", i, per)
			}
		case *luav3.LuaPerRoute:
			if i != 1 || per.GetFilterContext().GetFields()["mode"].GetStringValue() != "strict" {
				t.Errorf("[%d] per-route %v, want the filterContext", i, per)
			}
		default:
			t.Errorf("[%d] per-route config %T", i, per)
		}
	}
	if _, err := renderLua(policy.FieldInput{Key: "lua", Values: []any{json.RawMessage(`[{"type":"ValueRef","valueRef":{"name":"gone"}}]`)}}, luaEnv(t), who); err == nil {
		t.Error("a script from a ConfigMap not in the input rendered")
	}
}

// TestRenderExtProc: an ext_proc filter per entry calling the cluster
// named after the entry (EDS, HTTP/2, 10s), with the entry's processing
// mode and options; entries that failed open are left out (indexes kept);
// backendSettings.retry retries the gRPC calls.
func TestRenderExtProc(t *testing.T) {
	who := policyName{kind: "envoyextensionpolicy", namespace: "app", name: "p"}
	value := &fieldValue{raw: json.RawMessage(`[
		{"backendRefs":[{"name":"gone","port":9000}],"failOpen":true},
		{"backendRefs":[{"name":"svc","namespace":"ext","port":9000}],"failOpen":true,"messageTimeout":"5s","shadowMode":true,"statusOnError":504,
		 "processingMode":{"allowModeOverride":true,"request":{"body":"Buffered","attributes":["request.path"]},"response":{"body":"FullDuplexStreamed"}},
		 "metadata":{"accessibleNamespaces":["a"],"writableNamespaces":["b"]}},
		{"backendRefs":[{"name":"svc","port":9000}]}]`), failed: []int{0}}
	frags, err := renderExtProc(policy.FieldInput{Key: "extProc", Values: []any{value}}, nil, who)
	if err != nil || len(frags) != 2 {
		t.Fatalf("got %d fragments, %v; want entries 1 and 2", len(frags), err)
	}
	const name = "envoy.filters.http.ext_proc/envoyextensionpolicy/app/p/extproc/1"
	f := frags[0]
	if f.Capability != "ext_proc" || f.Filter.Name != name || f.Filter.Enabled || f.Filter.Order != orderExtProc || f.Filter.Precedence != -1 {
		t.Fatalf("filter %+v", f.Filter)
	}
	cfg, ok := f.Filter.Typed.(*extprocv3.ExternalProcessor)
	if !ok {
		t.Fatalf("config %T", f.Filter.Typed)
	}
	grpc := cfg.GetGrpcService()
	if grpc.GetEnvoyGrpc().GetClusterName() != "envoyextensionpolicy/app/p/extproc/1" || grpc.GetEnvoyGrpc().GetAuthority() != "svc.ext:9000" || grpc.GetTimeout().AsDuration() != 10*time.Second {
		t.Errorf("grpc service %v", grpc)
	}
	want := &extprocv3.ProcessingMode{
		RequestHeaderMode: extprocv3.ProcessingMode_SEND, RequestBodyMode: extprocv3.ProcessingMode_BUFFERED, RequestTrailerMode: extprocv3.ProcessingMode_SKIP,
		ResponseHeaderMode: extprocv3.ProcessingMode_SEND, ResponseBodyMode: extprocv3.ProcessingMode_FULL_DUPLEX_STREAMED, ResponseTrailerMode: extprocv3.ProcessingMode_SEND,
	}
	if !proto.Equal(cfg.GetProcessingMode(), want) {
		t.Errorf("processing mode %v, want %v", cfg.GetProcessingMode(), want)
	}
	if !cfg.FailureModeAllow || !cfg.ObservabilityMode || !cfg.AllowModeOverride || cfg.GetMessageTimeout().AsDuration() != 5*time.Second ||
		cfg.GetStatusOnError().GetCode() != 504 || !slices.Equal(cfg.RequestAttributes, []string{"request.path"}) ||
		!slices.Equal(cfg.GetMetadataOptions().GetForwardingNamespaces().GetUntyped(), []string{"a"}) ||
		!slices.Equal(cfg.GetMetadataOptions().GetReceivingNamespaces().GetUntyped(), []string{"b"}) {
		t.Errorf("options %v", cfg)
	}
	if per, ok := f.TypedPerFilterConfig[name].(*routev3.FilterConfig); !ok || per.GetConfig() == nil {
		t.Errorf("per-route %v", f.TypedPerFilterConfig[name])
	}
	c, ok := f.TypedClusters[0].(*clusterv3.Cluster)
	if len(f.TypedClusters) != 1 || !ok || c.Name != "envoyextensionpolicy/app/p/extproc/1" || c.GetType() != clusterv3.Cluster_EDS ||
		c.GetConnectTimeout().AsDuration() != 10*time.Second || c.TypedExtensionProtocolOptions[httpProtocolOptionsKey] == nil ||
		c.GetEdsClusterConfig().GetServiceName() != policy.ServiceCluster("ext", "svc", 9000) {
		t.Errorf("cluster %v", f.TypedClusters)
	}
	plain, ok := frags[1].Filter.Typed.(*extprocv3.ExternalProcessor)
	if !ok || plain.GetProcessingMode().GetRequestHeaderMode() != extprocv3.ProcessingMode_SKIP || plain.GetGrpcService().GetEnvoyGrpc().GetAuthority() != "svc.app:9000" {
		t.Errorf("default entry %v", frags[1].Filter.Typed)
	}

	frags, err = renderExtProc(policy.FieldInput{Key: "extProc", Values: []any{json.RawMessage(`[{"backendRefs":[{"name":"svc","port":9000}],"backendSettings":{"retry":{}}}]`)}}, nil, who)
	if err != nil || len(frags) != 1 || frags[0].Capability != "ext_proc" {
		t.Fatalf("backendSettings: got %+v, %v; want the filter", frags, err)
	}
	if rp := frags[0].Filter.Typed.(*extprocv3.ExternalProcessor).GetGrpcService().GetRetryPolicy(); rp.GetRetryOn() != retryDefaultOn {
		t.Errorf("backendSettings.retry: the gRPC service's retry policy %v; want Envoy Gateway's default triggers", rp)
	}
}

// TestFailedExtProcs: the failed entries' indexes in the effective
// list, which is one policy's (a merging policy's list replaces).
func TestFailedExtProcs(t *testing.T) {
	route := &fieldValue{raw: json.RawMessage(`[{"a":1},{"a":2}]`), failed: []int{1}}
	tests := []struct {
		name   string
		in     policy.FieldInput
		n      int
		failed []int
		ok     bool
	}{
		{"none failed", policy.FieldInput{Values: []any{json.RawMessage(`[{}]`)}}, 1, nil, true},
		{"one policy", policy.FieldInput{Values: []any{route}}, 2, []int{1}, true},
		{"not the list in effect", policy.FieldInput{Values: []any{route}}, 3, nil, false},
		{"several values", policy.FieldInput{Strategy: policy.StrategicMerge, Values: []any{route, route}}, 2, nil, false},
	}
	for _, tc := range tests {
		failed, ok := failedExtProcs(tc.in, tc.n)
		if ok != tc.ok || !slices.Equal(failed, tc.failed) {
			t.Errorf("%s: got %v %v, want %v %v", tc.name, failed, ok, tc.failed, tc.ok)
		}
	}
}

// TestRenderWasm: Wasm is unsupported, and the capability says why.
func TestRenderWasm(t *testing.T) {
	frags, err := renderWasm(policy.FieldInput{Key: "wasm", Values: []any{json.RawMessage(`[{}]`)}}, nil, policyName{})
	if err != nil || len(frags) != 1 || !strings.Contains(frags[0].Capability, "Wasm HTTP server") {
		t.Errorf("got %+v, %v", frags, err)
	}
}

// TestRenderExtProcBackends: a Backend of IP endpoints is reached through
// the entry's EDS cluster, its authority without a port; one of hostnames
// (a DNS cluster in Envoy Gateway's rendering) is unsupported.
func TestRenderExtProcBackends(t *testing.T) {
	objs, err := manifest.Parse("b.yaml", []byte(extensionObjects), manifest.Limits{})
	if err != nil {
		t.Fatal(err)
	}
	reg := policy.NewRegistry(All()...)
	env := &policy.Env{Model: model.Build(&manifest.Set{Objects: objs}, model.Options{Extra: reg.GroupKinds()})}
	who := policyName{kind: "envoyextensionpolicy", namespace: "app", name: "p"}
	tests := []struct {
		name, ref, capability, authority string
	}{
		{"IP endpoints", `{"group":"gateway.envoyproxy.io","kind":"Backend","name":"ip"}`, "ext_proc", "ip.app"},
		{"hostname endpoints", `{"group":"gateway.envoyproxy.io","kind":"Backend","name":"fqdn"}`, "envoygateway.EnvoyExtensionPolicy.extProc.backendRefs.fqdn", ""},
	}
	for _, tc := range tests {
		frags, err := renderExtProc(policy.FieldInput{Key: "extProc", Values: []any{json.RawMessage(`[{"backendRefs":[` + tc.ref + `]}]`)}}, env, who)
		if err != nil || len(frags) != 1 || frags[0].Capability != tc.capability {
			t.Errorf("%s: got %+v, %v; want capability %s", tc.name, frags, err, tc.capability)
			continue
		}
		if tc.authority == "" {
			continue
		}
		cfg, ok := frags[0].Filter.Typed.(*extprocv3.ExternalProcessor)
		if !ok || cfg.GetGrpcService().GetEnvoyGrpc().GetAuthority() != tc.authority {
			t.Errorf("%s: config %v, want authority %s", tc.name, frags[0].Filter.Typed, tc.authority)
		}
	}
}
